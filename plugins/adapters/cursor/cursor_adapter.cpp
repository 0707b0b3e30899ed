// CursorAdapter: an agent definition + one turn -> a cursor-agent command line.
#include "cursor_adapter.h"

#include <algorithm>
#include <cctype>

#include "cursor_mcp_file.h"
#include "cursor_stream_parser.h"
#include "mcp_names.h"

namespace abx::plugins::adapters {

using namespace sdk::agents;

namespace {

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

AdapterCapabilities CursorAdapter::capabilities() const {
  AdapterCapabilities caps;
  caps.resume = true;
  caps.partial_deltas = true;
  caps.mcp = true;
  caps.experimental = true;
  return caps;
}

std::vector<std::vector<std::string>> CursorAdapter::installSteps() const {
  // Cursor ships cursor-agent through its own installer, not npm.
  return {{"sh", "-c", "curl -fsS https://cursor.com/install | bash"}};
}

std::vector<std::string> CursorAdapter::validate(const AgentSpec& spec) const {
  std::vector<std::string> errors;
  if (!spec.provider.base_url.empty())
    errors.push_back(
        "provider.base_url is not supported by the cursor runtime: cursor-agent only talks to "
        "Cursor's own service; remove base_url (set provider.api_key to a Cursor API key)");
  if (!spec.provider.wire_api.empty())
    errors.push_back("provider.wire_api is codex-only; remove it for the cursor runtime");
  if (spec.limits.max_turns)
    errors.push_back("limits.max_turns is not supported by cursor-agent; remove it");
  if (spec.limits.max_budget_usd)
    errors.push_back("limits.max_budget_usd is not supported by cursor-agent; remove it");
  if (!spec.model.empty() && spec.model.front() == '-')
    errors.push_back("model '" + spec.model + "' must not start with '-'");
  return errors;
}

sdk::Result<Invocation> CursorAdapter::buildInvocation(const TurnContext& turn) const {
  if (!turn.spec) return sdk::Status::error("cursor: no agent definition", "ValueError");
  const AgentSpec& spec = *turn.spec;

  auto servers = spec.mcp_servers;
  servers.insert(servers.end(), turn.extra_mcp_servers.begin(), turn.extra_mcp_servers.end());
  // Names become keys of .cursor/mcp.json, merged into the user's own file.
  if (auto s = checkMcpNames(servers, "cursor"); !s) return s;

  Invocation inv;
  auto& argv = inv.argv;
  argv = {binary(), "-p", "--output-format", "stream-json", "--stream-partial-output", "--trust"};
  if (spec.permissions == Permissions::read_only) {
    argv.insert(argv.end(), {"--mode", "plan"});
  } else if (spec.permissions == Permissions::full_access) {
    argv.push_back("--force");
  }
  if (!servers.empty()) argv.push_back("--approve-mcps");
  if (!spec.model.empty()) argv.push_back("--model=" + spec.model);
  if (turn.native_session_id && !turn.native_session_id->empty())
    argv.push_back("--resume=" + *turn.native_session_id);
  argv.insert(argv.end(), spec.extra_args.begin(), spec.extra_args.end());

  std::string prompt = turn.prompt;
  for (const auto* text : {&turn.extra_instructions, &spec.instructions})
    if (!text->empty()) prompt = *text + "\n\n" + prompt;
  // "--" ends the options: a prompt that starts with '-' stays the prompt.
  argv.push_back("--");
  argv.push_back(std::move(prompt));

  if (!servers.empty()) {
    CursorMcpServers mcp = buildCursorMcpServers(servers);
    const std::string workdir = turn.workdir.empty() ? spec.workspace.path : turn.workdir;
    if (auto s = writeCursorMcpConfig(workdir, mcp.servers_json); !s)
      return sdk::Status::error("cursor: " + s.message(), "ValueError");
    inv.env = std::move(mcp.env);
  }
  return inv;
}

std::unique_ptr<EventParser> CursorAdapter::newParser(const TurnContext&) const {
  return std::make_unique<CursorStreamParser>();
}

EnvList CursorAdapter::credentialEnv(const AgentSpec& spec) const {
  EnvList env;
  if (!spec.provider.api_key.empty()) env.emplace_back("CURSOR_API_KEY", spec.provider.api_key);
  return env;
}

FailureInfo CursorAdapter::classifyFailure(int exit_code, std::string_view stderr_tail) const {
  const std::string text = lowered(stderr_tail);
  // cursor-agent asks for `cursor-agent login` / `agent login` when it has no valid key.
  if (text.find("login") != std::string::npos && text.find("agent") != std::string::npos)
    return {"authentication_error", classifyCommonFailure(exit_code, stderr_tail).message};
  if ((text.find("chat") != std::string::npos || text.find("session") != std::string::npos) &&
      text.find("not found") != std::string::npos)
    return {"invalid_request",
            "cursor-agent no longer knows this chat (its ~/.cursor store changed); start a new "
            "session"};
  if (text.find("usage limit") != std::string::npos)
    return {"rate_limit_exceeded", classifyCommonFailure(exit_code, stderr_tail).message};
  return classifyCommonFailure(exit_code, stderr_tail);
}

}  // namespace abx::plugins::adapters
