// Shared pieces of the attack tests (tests/security/, label security): the
// real server with every in-tree plugin, a token and an optional policy, and
// small JSON helpers. Each attack test starts the real binary and talks to it
// over loopback HTTP/WebSocket only.
#pragma once

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/json.h"
#include "support/server_process.h"

namespace abx::testing::security {

using Headers = std::vector<std::pair<std::string, std::string>>;

/** Every in-tree plugin, in the default manifest's order (commands with an empty file). */
inline const std::string kAllPlugins =
    "plugins:\n"
    "  - {name: commands, file: abx_commands.so, id: abx.commands,"
    " settings: {commands_file: '{dir}/commands.yaml'}}\n"
    "  - {name: system, file: abx_system.so, id: abx.system}\n"
    "  - {name: files, file: abx_files.so, id: abx.files}\n"
    "  - {name: process, file: abx_process.so, id: abx.process}\n"
    "  - {name: terminal, file: abx_terminal.so, id: abx.terminal}\n"
    "  - {name: agents, file: abx_agents.so, id: abx.agents}\n"
    "  - {name: adapter_command, file: abx_adapter_command.so, id: abx.adapter.command}\n"
    "  - {name: adapter_claude_code, file: abx_adapter_claude_code.so,"
    " id: abx.adapter.claude_code}\n"
    "  - {name: adapter_qwen_code, file: abx_adapter_qwen_code.so, id: abx.adapter.qwen_code}\n"
    "  - {name: adapter_cursor, file: abx_adapter_cursor.so, id: abx.adapter.cursor}\n"
    "  - {name: adapter_codex, file: abx_adapter_codex.so, id: abx.adapter.codex}\n"
    "  - {name: dev_tools, file: abx_dev_tools.so, id: abx.dev_tools}\n"
    "  - {name: browser, file: abx_browser.so, id: abx.browser}\n"
    "  - {name: inspector, file: abx_inspector.so, id: abx.inspector}\n";

/**
 * The server with every plugin. @p policy (YAML, may be empty) is written to
 * {dir}/policy.yaml and passed with --policy; @p env adds to the server's
 * environment (ABX_SERVER_TOKEN among them when wanted).
 */
inline ServerOptions allPlugins(const std::string& policy = {},
                                std::map<std::string, std::string> env = {},
                                std::vector<std::string> extra_args = {}) {
  ServerOptions o;
  o.files = {{"plugins.yaml", kAllPlugins}, {"commands.yaml", "commands: []\n"}};
  o.args = {"--plugins", "{dir}/plugins.yaml"};
  if (!policy.empty()) {
    o.files["policy.yaml"] = policy;
    o.args.insert(o.args.end(), {"--policy", "{dir}/policy.yaml"});
  }
  o.args.insert(o.args.end(), extra_args.begin(), extra_args.end());
  o.env = std::move(env);
  return o;
}

inline Poco::JSON::Object::Ptr parseObject(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
}

}  // namespace abx::testing::security
