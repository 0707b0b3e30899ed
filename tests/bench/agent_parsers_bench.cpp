// The agent output parsers on the lines their fast delta scan does not take
// (every line but a plain text/thinking delta goes through the full JSON
// parse and the lenient reads): the recorded CLI transcripts of
// tests/data/transcripts, and a delta line the scan declines. See
// docs/performance.md ("Agent output parsers").
//
//   build/bin/abx_agent_parsers_bench [--benchmark_min_time=1]
//
// items/s counts lines; bytes/s their bytes.
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>
#include <vector>

#include "agent_parsers.h"
#include "stream_delta_scan.h"

namespace {

using abx::plugins::adapters::makeParser;
using abx::plugins::adapters::scanStreamDelta;

std::vector<std::string> fullParseLines(const std::string& cli, std::vector<std::string> runs) {
  std::vector<std::string> lines;
  for (const auto& run : runs) {
    std::ifstream in(std::string(ABX_SOURCE_DIR) + "/tests/data/transcripts/" + cli + "/" + run +
                     ".jsonl");
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && !scanStreamDelta(line)) lines.push_back(line);
  }
  return lines;
}

void run(benchmark::State& state, const char* parser, const std::vector<std::string>& lines) {
  std::size_t bytes = 0;
  for (const auto& line : lines) bytes += line.size();
  std::vector<abx::sdk::agents::ParsedEvent> out;
  for (auto _ : state) {
    auto p = makeParser(parser);
    for (const auto& line : lines) {
      p->feed(line, out);
      out.clear();
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lines.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

const std::vector<std::string> kRuns{"turn1", "turn2-resume", "turn3-resume-notool", "tool-fail",
                                     "auth-error"};

void ClaudeTranscripts(benchmark::State& state) {
  static const auto lines = [] {
    auto all = fullParseLines("claude", kRuns);
    auto qwen = fullParseLines("qwen", kRuns);
    all.insert(all.end(), qwen.begin(), qwen.end());
    return all;
  }();
  run(state, "jsonl-claude", lines);
}

void CodexTranscripts(benchmark::State& state) {
  static const auto lines = fullParseLines("codex", kRuns);
  run(state, "jsonl-codex", lines);
}

// A text delta with a member the scan does not expect: the full parse's cost per delta.
void DeclinedDelta(benchmark::State& state) {
  static const std::vector<std::string> lines(
      100, R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":)"
           R"({"type":"text_delta","text":"Hello, wor","extra":1}},"session_id":)"
           R"("5d9c2c7e-1111-2222-3333-444455556666","parent_tool_use_id":null,)"
           R"("uuid":"0b8e2c7e-1111-2222-3333-444455556666"})");
  run(state, "jsonl-claude", lines);
}

}  // namespace

BENCHMARK(ClaudeTranscripts);
BENCHMARK(CodexTranscripts);
BENCHMARK(DeclinedDelta);
BENCHMARK_MAIN();
