#include "session_file.h"

#include <fstream>
#include <sstream>

#include "abx/sdk/json.h"
#include "json_fields.h"
#include "state/atomic_write.h"

namespace abx::plugins::agents {
namespace {

// Lenient like the file's first reader: a number written as a float or a
// string of digits still reads, anything else is 0.
std::int64_t integerOf(const sdk::Json& v) {
  if (auto n = v.asInteger(0)) return *n;
  if (auto d = v.asNumber(0)) return static_cast<std::int64_t>(*d);
  return 0;
}

void writeItem(sdk::JsonWriter& w, const Item& item) {
  w.beginObject()
      .member("id", item.id)
      .member("turn_id", item.turn_id)
      .member("type", item.type)
      .member("status", item.status)
      .member("text", item.text)
      .member("name", item.name)
      .member("server_label", item.server_label)
      .member("arguments", item.arguments)
      .member("output", item.output)
      .member("error", item.error)
      .optionalMember("exit_code", item.exit_code)
      .member("cwd", item.cwd)
      .optionalMember("duration_ms", item.duration_ms)
      .member("created_at", item.created_at)
      .endObject();
}

Item itemFrom(const sdk::Json& o) {
  Item item;
  item.id = textOf(o.get("id"));
  item.turn_id = textOf(o.get("turn_id"));
  item.type = textOf(o.get("type"));
  item.status = textOf(o.get("status"));
  item.text = textOf(o.get("text"));
  item.name = textOf(o.get("name"));
  item.server_label = textOf(o.get("server_label"));
  item.arguments = textOf(o.get("arguments"));
  item.output = textOf(o.get("output"));
  item.error = textOf(o.get("error"));
  if (!o.get("exit_code").isMissing())
    item.exit_code = static_cast<int>(integerOf(o.get("exit_code")));
  item.cwd = textOf(o.get("cwd"));
  if (!o.get("duration_ms").isMissing()) item.duration_ms = integerOf(o.get("duration_ms"));
  item.created_at = integerOf(o.get("created_at"));
  return item;
}

void writeSession(sdk::JsonWriter& w, const SessionInfo& s) {
  w.beginObject()
      .member("id", s.id)
      .member("agent", s.agent)
      .member("owner", s.owner)
      .member("native_session_id", s.native_session_id)
      .member("created_at", s.created_at)
      .member("last_active_at", s.last_active_at)
      .key("metadata");
  writeTextMap(w, s.metadata);
  w.key("vault_ids").beginArray();
  for (const auto& id : s.vault_ids) w.value(id);
  w.endArray().key("turn_ids").beginArray();
  for (const auto& id : s.turn_ids) w.value(id);
  w.endArray().endObject();
}

SessionInfo sessionFrom(const sdk::Json& o) {
  SessionInfo s;
  s.id = textOf(o.get("id"));
  s.agent = textOf(o.get("agent"));
  s.owner = textOf(o.get("owner"));
  s.native_session_id = textOf(o.get("native_session_id"));
  s.created_at = integerOf(o.get("created_at"));
  s.last_active_at = integerOf(o.get("last_active_at"));
  s.metadata = textMap(o.get("metadata"));
  for (const auto& id : o.get("vault_ids").elements()) s.vault_ids.push_back(textOf(id));
  for (const auto& id : o.get("turn_ids").elements()) s.turn_ids.push_back(textOf(id));
  return s;
}

void writeTurn(sdk::JsonWriter& w, const Turn& t) {
  w.beginObject()
      .member("id", t.id)
      .member("session_id", t.session_id)
      .member("status", turnStatusName(t.status))
      .member("created_at", t.created_at)
      .member("started_at", t.started_at)
      .member("completed_at", t.completed_at);
  if (t.error)
    w.key("error")
        .beginObject()
        .member("code", t.error->code)
        .member("message", t.error->message)
        .endObject();
  w.key("usage")
      .beginObject()
      .member("input_tokens", t.usage.input_tokens)
      .member("cached_input_tokens", t.usage.cached_input_tokens)
      .member("output_tokens", t.usage.output_tokens)
      .member("reasoning_tokens", t.usage.reasoning_tokens)
      .member("cost_usd", t.usage.cost_usd)
      .endObject();
  w.key("items").beginArray();
  for (const auto& item : t.items) writeItem(w, item);
  w.endArray().key("input").beginArray();
  for (const auto& m : t.input)
    w.beginObject().member("id", m.id).member("role", m.role).member("text", m.text).endObject();
  w.endArray().endObject();
}

TurnStatus turnStatusFrom(const std::string& name) {
  for (auto s : {TurnStatus::queued, TurnStatus::in_progress, TurnStatus::completed,
                 TurnStatus::failed, TurnStatus::cancelled})
    if (name == turnStatusName(s)) return s;
  return TurnStatus::failed;
}

Turn turnFrom(const sdk::Json& o) {
  Turn t;
  t.id = textOf(o.get("id"));
  t.session_id = textOf(o.get("session_id"));
  t.status = turnStatusFrom(textOf(o.get("status")));
  t.created_at = integerOf(o.get("created_at"));
  t.started_at = integerOf(o.get("started_at"));
  t.completed_at = integerOf(o.get("completed_at"));
  if (const auto e = o.get("error"); e.isObject())
    t.error = TurnError{textOf(e.get("code")), textOf(e.get("message"))};
  if (const auto u = o.get("usage"); u.isObject()) {
    t.usage.input_tokens = integerOf(u.get("input_tokens"));
    t.usage.cached_input_tokens = integerOf(u.get("cached_input_tokens"));
    t.usage.output_tokens = integerOf(u.get("output_tokens"));
    t.usage.reasoning_tokens = integerOf(u.get("reasoning_tokens"));
    if (auto cost = u.get("cost_usd").asNumber(0)) t.usage.cost_usd = *cost;
  }
  for (const auto& item : o.get("items").elements()) t.items.push_back(itemFrom(item));
  for (const auto& m : o.get("input").elements())
    t.input.push_back({textOf(m.get("id")), textOf(m.get("role")), textOf(m.get("text"))});
  return t;
}

}  // namespace

SessionFile::SessionFile(std::string state_dir)
    : dir_(std::move(state_dir)), path_(dir_ + "/sessions.json") {}

sdk::Status SessionFile::save(const std::vector<SessionInfo>& sessions,
                              const std::vector<Turn>& turns) const {
  sdk::JsonWriter w(4096);
  w.beginObject().member("version", 1).key("sessions").beginArray();
  for (const auto& s : sessions) writeSession(w, s);
  w.endArray().key("turns").beginArray();
  for (const auto& t : turns) writeTurn(w, t);
  w.endArray().endObject();
  return writeFileAtomically(dir_, path_, w.take());
}

sdk::Result<SessionFile::Loaded> SessionFile::load(std::int64_t now) const {
  Loaded out;
  std::ifstream in(path_, std::ios::binary);
  if (!in) return out;
  std::stringstream text;
  text << in.rdbuf();
  auto root = sdk::Json::parse(text.str());
  if (!root) return sdk::Status::error(path_ + " is not valid JSON: " + root.status().message());
  if (!root->isObject())
    return sdk::Status::error(path_ + " has an unexpected shape: not an object");
  for (const auto& o : root->get("sessions").elements()) out.sessions.push_back(sessionFrom(o));
  for (const auto& o : root->get("turns").elements()) {
    Turn t = turnFrom(o);
    if (!isTerminal(t.status)) {
      t.status = TurnStatus::failed;
      t.error = TurnError{"internal_error", "server restarted"};
      t.completed_at = now;
      for (auto& item : t.items)
        if (item.status == "in_progress") item.status = "incomplete";
      out.interrupted = true;
    }
    out.turns.push_back(std::move(t));
  }
  return out;
}

}  // namespace abx::plugins::agents
