// Helpers for the agent parser tests: read a real transcript from
// tests/data/transcripts, run a parser over lines, and name event kinds so
// sequences compare readably.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "agent_parsers.h"

namespace abx::testing::parsers {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

inline std::string transcriptPath(const std::string& cli, const std::string& name) {
  return std::string(ABX_SOURCE_DIR) + "/tests/data/transcripts/" + cli + "/" + name;
}

inline std::vector<std::string> transcriptLines(const std::string& cli, const std::string& run) {
  std::ifstream in(transcriptPath(cli, run + ".jsonl"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline int transcriptExitCode(const std::string& cli, const std::string& run) {
  std::ifstream in(transcriptPath(cli, run + ".rc"));
  int rc = -1;
  in >> rc;
  return rc;
}

/** Feeds every line, then finish(@p exit_code). */
inline std::vector<ParsedEvent> runParser(const std::string& parser,
                                          const std::vector<std::string>& lines, int exit_code) {
  auto p = plugins::adapters::makeParser(parser);
  std::vector<ParsedEvent> out;
  if (!p) return out;
  for (const auto& line : lines) p->feed(line, out);
  p->finish(exit_code, out);
  return out;
}

/** Runs a recorded transcript with its recorded exit code. */
inline std::vector<ParsedEvent> runTranscript(const std::string& parser, const std::string& cli,
                                              const std::string& run) {
  return runParser(parser, transcriptLines(cli, run), transcriptExitCode(cli, run));
}

inline std::string kindName(ParsedKind k) {
  switch (k) {
    case ParsedKind::session:
      return "session";
    case ParsedKind::text_delta:
      return "text_delta";
    case ParsedKind::message:
      return "message";
    case ParsedKind::reasoning_delta:
      return "reasoning_delta";
    case ParsedKind::reasoning:
      return "reasoning";
    case ParsedKind::tool_start:
      return "tool_start";
    case ParsedKind::tool_output:
      return "tool_output";
    case ParsedKind::tool_end:
      return "tool_end";
    case ParsedKind::usage:
      return "usage";
    case ParsedKind::error:
      return "error";
    case ParsedKind::result:
      return "result";
    case ParsedKind::log:
      return "log";
  }
  return "?";
}

inline std::vector<std::string> kinds(const std::vector<ParsedEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(kindName(e.kind));
  return out;
}

/** The events of one kind, in order. */
inline std::vector<ParsedEvent> ofKind(const std::vector<ParsedEvent>& events, ParsedKind kind) {
  std::vector<ParsedEvent> out;
  for (const auto& e : events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

/** The concatenated text of the deltas of item @p id. */
inline std::string deltaText(const std::vector<ParsedEvent>& events, const std::string& id,
                             ParsedKind kind = ParsedKind::text_delta) {
  std::string text;
  for (const auto& e : events)
    if (e.kind == kind && e.id == id) text += e.text;
  return text;
}

}  // namespace abx::testing::parsers
