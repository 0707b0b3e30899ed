// The real server with the agents plugin and the command adapter, fake
// agents (fake_agents/) first on PATH, a token and the agents group on:
// what the agents wire tests start. Each test brings its agents.yaml.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "support/server_process.h"

namespace abx::testing {

/** agents.yaml with one agent, `fake`: the fake agent (fake_agents/README.md) as codex speaks. */
inline constexpr const char* kFakeAgentYaml = R"(agents:
  - name: fake
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    workspace: {path: "{dir}/work"}
)";

/** @p agents_yaml: the agents config ({dir} is the server's temp dir). */
inline ServerOptions fakeAgentsServer(const std::string& agents_yaml, const std::string& token) {
  ServerOptions o;
  o.manifest =
      "plugins:\n  - name: agents\n    file: abx_agents.so\n"
      "  - name: adapter_command\n    file: abx_adapter_command.so\n";
  o.files["agents.yaml"] = agents_yaml;
  o.env["ABX_AGENTS_CONFIG"] = "{dir}/agents.yaml";
  o.env["ABX_AGENTS_STATE_DIR"] = "{dir}/state";
  o.env["ABX_SERVER_TOKEN"] = token;
  o.env["ABX_SERVER_ENABLED_GROUPS"] = "agents";
  o.env["PATH"] = sourceDir() + "/fake_agents:/usr/bin:/bin";
  return o;
}

// The head of a raw HTTP/1.1 response followed by its body, de-chunked (a
// chunk boundary may fall anywhere inside an SSE event).
inline std::string dechunked(const std::string& raw) {
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos || raw.find("chunked") > head_end) return raw;
  std::string out = raw.substr(0, head_end + 4);
  std::size_t at = head_end + 4;
  while (at < raw.size()) {
    const auto line_end = raw.find("\r\n", at);
    if (line_end == std::string::npos) break;
    const auto size = std::stoul(raw.substr(at, line_end - at), nullptr, 16);
    if (size == 0) break;
    out += raw.substr(line_end + 2, size);
    at = line_end + 2 + size + 2;
  }
  return out;
}

/** Bearer @p token and a JSON body. */
inline std::vector<std::pair<std::string, std::string>> bearerJson(const std::string& token) {
  return {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}};
}

}  // namespace abx::testing
