// libFuzzer target for the agent CLIs' stdout parsers
// (plugins/adapters/parsers/, the qwen and cursor parsers). Built and run by
// tests/fuzz/run.sh agent_parsers with -fsanitize=fuzzer,address,undefined.
//
// The first input byte is the exit code given to finish(); the rest is
// stdout, split at '\n' into lines, each copied into a heap block of its own
// size (ASan sees any read past a line). Every line goes to every parser
// (text, jsonl-codex, jsonl-claude, qwen, cursor), then finish(). Checked
// against what the headers promise:
//   - every event has a kind of the enum; a tool_start's tool_kind and a
//     tool_end's status are among the documented values;
//   - a JSON parser turns a line that is not a JSON object into at most one
//     log event carrying that line;
//   - scanStreamDelta() accepts only lines the full JSON parser reads the
//     same way (a stream_event content_block_delta with that delta text);
//   - each parser yields exactly one result over the run (finish adds one
//     when none arrived, and none is added after the first);
//   - the text parser's deltas, message and result text are the lines
//     joined by '\n'.
// Any disagreement aborts with a message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"
#include "agent_parsers.h"
#include "cursor/cursor_stream_parser.h"
#include "json_reads.h"
#include "qwen_code/qwen_stream_parser.h"
#include "stream_delta_scan.h"

namespace {

namespace adapters = abx::plugins::adapters;
namespace json = abx::plugins::adapters::json;
using abx::sdk::agents::EventParser;
using abx::sdk::agents::ParsedEvent;
using abx::sdk::agents::ParsedKind;

[[noreturn]] void violated(const char* what, std::string_view line = {}) {
  std::fprintf(stderr, "invariant violated: %s\nline: %.*s\n", what, static_cast<int>(line.size()),
               line.data());
  std::abort();
}

bool oneOf(const std::string& v, std::initializer_list<std::string_view> allowed) {
  for (auto a : allowed)
    if (v == a) return true;
  return false;
}

void checkEvent(const ParsedEvent& e) {
  if (static_cast<int>(e.kind) < 0 || static_cast<int>(e.kind) > static_cast<int>(ParsedKind::log))
    violated("an event kind outside the enum");
  if (e.kind == ParsedKind::tool_start &&
      !oneOf(e.tool_kind, {"command", "mcp", "file_change", "web_search", "todo_list", "other"}))
    violated("a tool_start with an undocumented tool_kind", e.tool_kind);
  if (e.kind == ParsedKind::tool_end && !oneOf(e.status, {"completed", "failed"}))
    violated("a tool_end with an undocumented status", e.status);
}

/** The fast delta scanner against the full parse of the same line. */
void checkDeltaScan(std::string_view line) {
  auto delta = adapters::scanStreamDelta(line);
  if (!delta) return;
  const auto o = json::parseObject(line);
  if (!o.isObject()) violated("scanStreamDelta accepted a line that is not a JSON object", line);
  const auto event = json::obj(o, "event");
  const auto d = json::obj(event, "delta");
  if (json::str(o, "type") != "stream_event" || json::str(event, "type") != "content_block_delta")
    violated("scanStreamDelta accepted a line of another type", line);
  const char* key = delta->thinking ? "thinking" : "text";
  if (json::str(d, "type") != (delta->thinking ? "thinking_delta" : "text_delta") ||
      !d.get(key).isString() || json::str(d, key) != delta->text)
    violated("scanStreamDelta read another delta than the JSON parser", line);
}

struct Run {
  Run(const char* n, std::unique_ptr<EventParser> p, bool json)
      : name(n), parser(std::move(p)), json_lines(json) {}
  const char* name;
  std::unique_ptr<EventParser> parser;
  bool json_lines;
  std::vector<ParsedEvent> all;
};

std::vector<Run> parsers() {
  std::vector<Run> runs;
  for (const char* name : {"text", "jsonl-codex", "jsonl-claude"})
    runs.emplace_back(name, adapters::makeParser(name), std::string_view(name) != "text");
  runs.emplace_back(
      "qwen",
      std::make_unique<adapters::QwenStreamParser>(std::nullopt, abx::sdk::agents::TokenUsage{}),
      true);
  runs.emplace_back("cursor", std::make_unique<adapters::CursorStreamParser>(), true);
  for (const auto& r : runs)
    if (!r.parser) violated("makeParser refused a listed name", r.name);
  return runs;
}

void feedLine(Run& run, std::string_view line) {
  std::vector<ParsedEvent> out;
  run.parser->feed(line, out);
  for (const auto& e : out) checkEvent(e);
  if (run.json_lines && !line.empty() && !json::parseObject(line).isObject()) {
    if (out.size() > 1) violated("a non-JSON line yielded more than one event", line);
    if (out.size() == 1 && (out[0].kind != ParsedKind::log || out[0].text != line))
      violated("a non-JSON line yielded something other than its log event", line);
  }
  run.all.insert(run.all.end(), out.begin(), out.end());
}

void checkTextParser(const std::vector<ParsedEvent>& events, const std::string& joined,
                     bool any_line) {
  std::string deltas;
  for (const auto& e : events) {
    if (e.kind == ParsedKind::text_delta) deltas += e.text;
    if (e.kind == ParsedKind::message && e.text != joined)
      violated("the text parser's message is not the joined lines");
    if (e.kind == ParsedKind::result && e.text != joined)
      violated("the text parser's result is not the joined lines");
  }
  if (any_line && deltas != joined) violated("the text parser's deltas are not the joined lines");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int exit_code = static_cast<std::int8_t>(data[0]);
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<Run> runs = parsers();
  std::string joined;
  bool any_line = false;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string_view piece = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    auto block = std::make_unique<char[]>(piece.empty() ? 1 : piece.size());
    if (!piece.empty()) std::memcpy(block.get(), piece.data(), piece.size());
    const std::string_view line(block.get(), piece.size());
    checkDeltaScan(line);
    for (auto& run : runs) feedLine(run, line);
    if (any_line) joined += '\n';
    joined.append(line);
    any_line = true;
  }
  for (auto& run : runs) {
    std::vector<ParsedEvent> out;
    run.parser->finish(exit_code, out);
    for (const auto& e : out) checkEvent(e);
    run.all.insert(run.all.end(), out.begin(), out.end());
    const auto results = std::count_if(run.all.begin(), run.all.end(), [](const ParsedEvent& e) {
      return e.kind == ParsedKind::result;
    });
    if (results != 1) violated("a parser did not yield exactly one result", run.name);
  }
  checkTextParser(runs[0].all, joined, any_line);
  return 0;
}
