// Test doubles for the agent runtime: ScriptAdapter runs the agent's first
// extra_args entry as a /bin/sh script and parses a tiny line protocol
// ("S id" session, "T text" delta, "M text" message, "R text" reasoning,
// "E text" fatal error, "W text" an error the CLI survives, "C cmd" / "D out"
// a command's start and end, "U in out" usage, "X" parser throws, anything
// else a log line);
// MarkerRedaction replaces "SECRET-VALUE" — enough to drive the runtime
// without a real CLI.
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "runtime/agent_runtime.h"
#include "runtime/text_redaction.h"

namespace abx::plugins::agents::testing {

class MarkerDelta final : public DeltaRedaction {
 public:
  std::string push(std::string_view d) override {
    held_ += d;
    // Hold back a possible start of the marker.
    std::string out;
    for (auto pos = held_.find("SECRET-VALUE"); pos != std::string::npos;
         pos = held_.find("SECRET-VALUE"))
      held_.replace(pos, 12, "[REDACTED]");
    const std::size_t keep = std::min<std::size_t>(held_.size(), 11);
    out = held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return out;
  }
  std::string flush() override {
    std::string out;
    out.swap(held_);
    return out;
  }

 private:
  std::string held_;
};

class MarkerRedaction final : public TextRedaction {
 public:
  std::string redact(std::string_view text) const override {
    std::string out(text);
    for (auto pos = out.find("SECRET-VALUE"); pos != std::string::npos;
         pos = out.find("SECRET-VALUE"))
      out.replace(pos, 12, "[REDACTED]");
    return out;
  }
  std::unique_ptr<DeltaRedaction> newStream() const override {
    return std::make_unique<MarkerDelta>();
  }
};

class LineParser final : public sdk::agents::EventParser {
 public:
  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) override {
    using sdk::agents::ParsedKind;
    sdk::agents::ParsedEvent e;
    if (line == "X") throw std::runtime_error("cannot parse X");
    std::string rest(line.size() > 2 ? line.substr(2) : std::string_view{});
    switch (line.empty() ? ' ' : line[0]) {
      case 'S':
        e.kind = ParsedKind::session;
        e.id = rest;
        break;
      case 'T':
        e.kind = ParsedKind::text_delta;
        e.id = "m1";
        e.text = rest;
        break;
      case 'M':
        e.kind = ParsedKind::message;
        e.id = "m1";
        e.text = rest;
        break;
      case 'R':
        e.kind = ParsedKind::reasoning;
        e.id = "r1";
        e.text = rest;
        break;
      case 'U':  // "U <input> <output>"
        e.kind = ParsedKind::usage;
        e.usage = sdk::agents::TokenUsage{};
        std::sscanf(rest.c_str(), "%ld %ld", &e.usage->input_tokens, &e.usage->output_tokens);
        break;
      case 'E':
        e.kind = ParsedKind::error;
        e.fatal = true;
        e.text = rest;
        break;
      case 'W':  // an error the CLI survives
        e.kind = ParsedKind::error;
        e.code = "rate_limit_exceeded";
        e.text = rest;
        break;
      case 'C':  // "C <command line>": a command starts
        e.kind = ParsedKind::tool_start;
        e.id = "c1";
        e.tool_kind = "command";
        e.command = rest;
        break;
      case 'D':  // the command ends, exit 0
        e.kind = ParsedKind::tool_end;
        e.id = "c1";
        e.status = "completed";
        e.exit_code = 0;
        e.text = rest;
        break;
      default:
        e.kind = ParsedKind::log;
        e.text = std::string(line);
    }
    out.push_back(std::move(e));
  }
  void finish(int, std::vector<sdk::agents::ParsedEvent>&) override {}
};

class ScriptAdapter final : public sdk::agents::AgentAdapter {
 public:
  std::string name() const override { return "script"; }
  std::string binary() const override { return "sh"; }
  sdk::agents::AdapterCapabilities capabilities() const override { return {}; }
  std::vector<std::string> validate(const sdk::agents::AgentSpec&) const override { return {}; }
  sdk::Result<sdk::agents::Invocation> buildInvocation(
      const sdk::agents::TurnContext& turn) const override {
    {
      std::lock_guard lock(mutex);
      struct stat st {};
      ::stat(turn.turn_dir.c_str(), &st);
      contexts.push_back({turn.prompt, turn.native_session_id.value_or(""), turn.is_first_turn,
                          turn.turn_dir, st.st_mode & 0777, turn.session_usage});
    }
    sdk::agents::Invocation inv;
    inv.argv = {binary_override.empty() ? "/bin/sh" : binary_override, "-c",
                turn.spec->extra_args.empty() ? "true" : turn.spec->extra_args[0]};
    inv.stdin_data = turn.prompt;
    inv.files.push_back({"note.txt", "hello", 0600});
    inv.env.emplace_back("TURN_DIR", turn.turn_dir);
    // Every MCP header as MCP_HEADER_<i>="<server> <name>: <value>", as a
    // real adapter hands header values to its CLI (env only).
    std::size_t i = 0;
    for (const auto* servers : {&turn.spec->mcp_servers, &turn.extra_mcp_servers})
      for (const auto& server : *servers)
        for (const auto& h : server.headers)
          inv.env.emplace_back("MCP_HEADER_" + std::to_string(i++),
                               server.name + " " + h.name + ": " + h.value);
    return inv;
  }
  std::unique_ptr<sdk::agents::EventParser> newParser(
      const sdk::agents::TurnContext&) const override {
    return std::make_unique<LineParser>();
  }
  sdk::agents::EnvList credentialEnv(const sdk::agents::AgentSpec& spec) const override {
    return {{"SCRIPT_API_KEY", spec.provider.api_key}};
  }

  struct Seen {
    std::string prompt;
    std::string native_id;
    bool first = true;
    std::string turn_dir;
    unsigned turn_dir_mode = 0;
    sdk::agents::TokenUsage session_usage;
  };
  mutable std::mutex mutex;
  mutable std::vector<Seen> contexts;
  std::string binary_override;
};

}  // namespace abx::plugins::agents::testing
