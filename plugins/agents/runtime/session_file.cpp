#include "session_file.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace abx::plugins::agents {
namespace {

namespace fs = std::filesystem;
using Poco::JSON::Array;
using Poco::JSON::Object;

std::string str(const Object::Ptr& o, const std::string& key) {
  return o && o->has(key) && !o->isNull(key) ? o->getValue<std::string>(key) : std::string();
}
std::int64_t num(const Object::Ptr& o, const std::string& key) {
  return o && o->has(key) && !o->isNull(key) ? o->getValue<std::int64_t>(key) : 0;
}

Object::Ptr itemJson(const Item& item) {
  Object::Ptr o = new Object;
  o->set("id", item.id);
  o->set("turn_id", item.turn_id);
  o->set("type", item.type);
  o->set("status", item.status);
  o->set("text", item.text);
  o->set("name", item.name);
  o->set("server_label", item.server_label);
  o->set("arguments", item.arguments);
  o->set("output", item.output);
  o->set("error", item.error);
  if (item.exit_code) o->set("exit_code", *item.exit_code);
  o->set("created_at", item.created_at);
  return o;
}

Item itemFrom(const Object::Ptr& o) {
  Item item;
  item.id = str(o, "id");
  item.turn_id = str(o, "turn_id");
  item.type = str(o, "type");
  item.status = str(o, "status");
  item.text = str(o, "text");
  item.name = str(o, "name");
  item.server_label = str(o, "server_label");
  item.arguments = str(o, "arguments");
  item.output = str(o, "output");
  item.error = str(o, "error");
  if (o->has("exit_code")) item.exit_code = static_cast<int>(num(o, "exit_code"));
  item.created_at = num(o, "created_at");
  return item;
}

TurnStatus turnStatusFrom(const std::string& name) {
  for (auto s : {TurnStatus::queued, TurnStatus::in_progress, TurnStatus::completed,
                 TurnStatus::failed, TurnStatus::cancelled})
    if (name == turnStatusName(s)) return s;
  return TurnStatus::failed;
}

}  // namespace

SessionFile::SessionFile(std::string state_dir)
    : dir_(std::move(state_dir)), path_(dir_ + "/sessions.json") {}

sdk::Status SessionFile::save(const std::vector<SessionInfo>& sessions,
                              const std::vector<Turn>& turns) const {
  Object root;
  root.set("version", 1);
  Array::Ptr session_list = new Array;
  for (const auto& s : sessions) {
    Object::Ptr o = new Object;
    o->set("id", s.id);
    o->set("agent", s.agent);
    o->set("owner", s.owner);
    o->set("native_session_id", s.native_session_id);
    o->set("created_at", s.created_at);
    o->set("last_active_at", s.last_active_at);
    Object::Ptr meta = new Object;
    for (const auto& [k, v] : s.metadata) meta->set(k, v);
    o->set("metadata", meta);
    Array::Ptr ids = new Array;
    for (const auto& id : s.turn_ids) ids->add(id);
    o->set("turn_ids", ids);
    session_list->add(o);
  }
  root.set("sessions", session_list);
  Array::Ptr turn_list = new Array;
  for (const auto& t : turns) {
    Object::Ptr o = new Object;
    o->set("id", t.id);
    o->set("session_id", t.session_id);
    o->set("status", std::string(turnStatusName(t.status)));
    o->set("created_at", t.created_at);
    o->set("started_at", t.started_at);
    o->set("completed_at", t.completed_at);
    if (t.error) {
      Object::Ptr e = new Object;
      e->set("code", t.error->code);
      e->set("message", t.error->message);
      o->set("error", e);
    }
    Object::Ptr usage = new Object;
    usage->set("input_tokens", t.usage.input_tokens);
    usage->set("cached_input_tokens", t.usage.cached_input_tokens);
    usage->set("output_tokens", t.usage.output_tokens);
    usage->set("reasoning_tokens", t.usage.reasoning_tokens);
    usage->set("cost_usd", t.usage.cost_usd);
    o->set("usage", usage);
    Array::Ptr items = new Array;
    for (const auto& item : t.items) items->add(itemJson(item));
    o->set("items", items);
    Array::Ptr input = new Array;
    for (const auto& m : t.input) {
      Object::Ptr mo = new Object;
      mo->set("id", m.id);
      mo->set("role", m.role);
      mo->set("text", m.text);
      input->add(mo);
    }
    o->set("input", input);
    turn_list->add(o);
  }
  root.set("turns", turn_list);

  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return sdk::Status::error("cannot create " + dir_ + ": " + ec.message());
  ::chmod(dir_.c_str(), 0700);
  std::ostringstream text;
  root.stringify(text);
  const std::string body = text.str();
  const std::string temp = path_ + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return sdk::Status::error("cannot write " + temp);
  std::size_t done = 0;
  while (done < body.size()) {
    auto n = ::write(fd, body.data() + done, body.size() - done);
    if (n <= 0) {
      ::close(fd);
      return sdk::Status::error("cannot write " + temp);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(temp.c_str(), path_.c_str()) != 0)
    return sdk::Status::error("cannot replace " + path_);
  return sdk::Status::ok();
}

sdk::Result<SessionFile::Loaded> SessionFile::load(std::int64_t now) const {
  Loaded out;
  std::ifstream in(path_, std::ios::binary);
  if (!in) return out;
  std::stringstream text;
  text << in.rdbuf();
  Object::Ptr root;
  try {
    Poco::JSON::Parser parser;
    root = parser.parse(text.str()).extract<Object::Ptr>();
  } catch (const std::exception& e) {
    return sdk::Status::error(path_ + " is not valid JSON: " + e.what());
  }
  try {
    if (auto list = root->getArray("sessions"))
      for (std::size_t i = 0; i < list->size(); ++i) {
        auto o = list->getObject(static_cast<unsigned>(i));
        SessionInfo s;
        s.id = str(o, "id");
        s.agent = str(o, "agent");
        s.owner = str(o, "owner");
        s.native_session_id = str(o, "native_session_id");
        s.created_at = num(o, "created_at");
        s.last_active_at = num(o, "last_active_at");
        if (auto meta = o->getObject("metadata"))
          for (const auto& key : meta->getNames()) s.metadata[key] = str(meta, key);
        if (auto ids = o->getArray("turn_ids"))
          for (std::size_t j = 0; j < ids->size(); ++j)
            s.turn_ids.push_back(ids->getElement<std::string>(static_cast<unsigned>(j)));
        out.sessions.push_back(std::move(s));
      }
    if (auto list = root->getArray("turns"))
      for (std::size_t i = 0; i < list->size(); ++i) {
        auto o = list->getObject(static_cast<unsigned>(i));
        Turn t;
        t.id = str(o, "id");
        t.session_id = str(o, "session_id");
        t.status = turnStatusFrom(str(o, "status"));
        t.created_at = num(o, "created_at");
        t.started_at = num(o, "started_at");
        t.completed_at = num(o, "completed_at");
        if (auto e = o->getObject("error")) t.error = TurnError{str(e, "code"), str(e, "message")};
        if (auto u = o->getObject("usage")) {
          t.usage.input_tokens = num(u, "input_tokens");
          t.usage.cached_input_tokens = num(u, "cached_input_tokens");
          t.usage.output_tokens = num(u, "output_tokens");
          t.usage.reasoning_tokens = num(u, "reasoning_tokens");
          t.usage.cost_usd = u->has("cost_usd") ? u->getValue<double>("cost_usd") : 0;
        }
        if (auto items = o->getArray("items"))
          for (std::size_t j = 0; j < items->size(); ++j)
            t.items.push_back(itemFrom(items->getObject(static_cast<unsigned>(j))));
        if (auto input = o->getArray("input"))
          for (std::size_t j = 0; j < input->size(); ++j) {
            auto mo = input->getObject(static_cast<unsigned>(j));
            t.input.push_back({str(mo, "id"), str(mo, "role"), str(mo, "text")});
          }
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
  } catch (const std::exception& e) {
    return sdk::Status::error(path_ + " has an unexpected shape: " + e.what());
  }
  return out;
}

}  // namespace abx::plugins::agents
