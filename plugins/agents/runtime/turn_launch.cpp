#include "turn_launch.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "agent_child_env.h"
#include "mcp_bearer.h"
#include "turn_hard_limits.h"
#include "turn_items.h"

namespace abx::plugins::agents {
namespace {

namespace fs = std::filesystem;
using sdk::Status;

std::optional<std::chrono::milliseconds> toMillis(const std::optional<double>& seconds) {
  if (!seconds || *seconds <= 0) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(*seconds * 1000.0 + 0.5));
}

// The spec the turn runs (session vault tokens go to the matching MCP
// servers of this turn only) and the redaction of everything secret in it.
// @return the turn's extra MCP servers, with the tokens bound as well.
std::vector<sdk::agents::McpServerSpec> bindTurnSecrets(const TurnRequest& request,
                                                        const RuntimeOptions& options,
                                                        TurnLaunch& launch) {
  auto extra_mcp_servers = request.extra_mcp_servers;
  launch.context.spec = &launch.agent->spec;
  if (!request.mcp_bearer_tokens.empty()) {
    launch.bound_spec = launch.agent->spec;
    applyMcpBearers(launch.bound_spec.mcp_servers, request.mcp_bearer_tokens);
    applyMcpBearers(extra_mcp_servers, request.mcp_bearer_tokens);
    launch.context.spec = &launch.bound_spec;
  }
  launch.redaction = launch.agent->redaction;
  auto extra = request.extra_secrets;
  for (const auto& [name, value] : request.secret_env) extra.push_back(value);
  for (const auto& [url, token] : request.mcp_bearer_tokens) extra.push_back(token);
  if (!extra.empty() && options.redaction_for)
    launch.redaction = options.redaction_for(launch.spec(), extra);
  return extra_mcp_servers;
}

// The adapter's part: invocation, parser and credentials, its files written.
std::optional<TurnError> buildInvocation(TurnLaunch& launch, sdk::agents::EnvList& credentials) {
  const auto& adapter = launch.adapter();
  try {
    auto built = adapter.buildInvocation(launch.context);
    if (!built)
      return TurnError{"invalid_request", launch.redaction->redact(built.status().message())};
    launch.invocation = std::move(*built);
    launch.parser = adapter.newParser(launch.context);
    credentials = adapter.credentialEnv(launch.spec());
  } catch (const std::exception& e) {
    return TurnError{"internal_error", launch.redaction->redact(e.what())};
  }
  if (!launch.parser || launch.invocation.argv.empty())
    return TurnError{"internal_error", "adapter '" + adapter.name() + "' built no command"};
  if (auto written = launch.directory.write(launch.invocation.files); !written)
    return TurnError{"internal_error", written.message()};
  return std::nullopt;
}

}  // namespace

bool TurnDirectory::create() {
  std::error_code ec;
  auto base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / "abx-turn-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return false;
  if (!sdk::Subprocess::giveToChildUser(pattern)) {
    fs::remove_all(pattern, ec);
    return false;
  }
  path_ = std::move(pattern);
  return true;
}

Status TurnDirectory::write(const std::vector<sdk::agents::InvocationFile>& files) const {
  for (const auto& file : files) {
    fs::path rel(file.relpath);
    if (file.relpath.empty() || rel.is_absolute() ||
        std::any_of(rel.begin(), rel.end(), [](const fs::path& p) { return p == ".."; }))
      return Status::error("adapter file path '" + file.relpath + "' leaves the turn directory");
    fs::path path = fs::path(path_) / rel;
    std::error_code ec;
    for (fs::path p = path_; auto& part : rel.parent_path()) {
      p /= part;
      if (fs::create_directory(p, ec)) sdk::Subprocess::giveToChildUser(p.string());
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << file.content;
    if (!out) return Status::error("could not write " + file.relpath);
    out.close();
    ::chmod(path.c_str(), file.mode & 07777);
    if (auto given = sdk::Subprocess::giveToChildUser(path.string()); !given) return given;
  }
  return Status::ok();
}

void TurnDirectory::remove() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
  path_.clear();
}

std::optional<TurnError> prepareTurnLaunch(const TurnRequest& request,
                                           const SessionHistory& history,
                                           const RuntimeOptions& options, TurnLaunch& launch) {
  auto& ctx = launch.context;
  ctx.extra_mcp_servers = bindTurnSecrets(request, options, launch);
  const auto& spec = launch.spec();
  ctx.prompt = request.prompt;
  ctx.extra_instructions = request.extra_instructions;
  if (!history.native_session_id.empty()) ctx.native_session_id = history.native_session_id;
  ctx.is_first_turn = history.native_session_id.empty();
  ctx.workdir = request.workdir.empty() ? spec.workspace.path : request.workdir;
  ctx.reasoning_effort = request.reasoning_effort;
  ctx.session_usage = history.usage;
  if (auto refused = unenforceableLimit(spec, launch.adapter())) return refused;
  // With workspace.git the checkout comes first (bootstrapTurnWorkspace()
  // makes the directory after it): git clones only into an empty one.
  if (!spec.workspace.git) {
    std::error_code ec;
    fs::create_directories(ctx.workdir, ec);
    if (ec)
      return TurnError{"sandbox_error",
                       "could not create workspace " + ctx.workdir + ": " + ec.message()};
  }
  if (!launch.directory.create())
    return TurnError{"sandbox_error", "could not create the turn directory"};
  ctx.turn_dir = launch.directory.path();

  sdk::agents::EnvList credentials;
  if (auto refused = buildInvocation(launch, credentials)) return refused;
  auto& spawn = launch.spawn;
  spawn.argv = launch.invocation.argv;
  spawn.cwd = launch.invocation.cwd.empty() ? ctx.workdir : launch.invocation.cwd;
  auto secrets = spec.secrets;
  secrets.insert(secrets.end(), request.secret_env.begin(), request.secret_env.end());
  spawn.env = buildAgentEnv({options.base_env(), options.passthrough_env, credentials, spec.env,
                             secrets, launch.invocation.env, options.env_protected});

  auto& limits = launch.limits;
  limits.turn_timeout = toMillis(spec.limits.turn_timeout_s);
  limits.idle_timeout = toMillis(spec.limits.idle_timeout_s);
  if (spec.limits.max_output_bytes && *spec.limits.max_output_bytes > 0)
    limits.max_output_bytes = static_cast<std::uint64_t>(*spec.limits.max_output_bytes);
  limits.ladder = options.ladder;
  applyHardLimits(spec, request, limits);
  return std::nullopt;
}

TurnProcessOutcome runTurnLaunch(TurnLaunch& launch, const std::atomic<bool>& cancel,
                                 TurnItems& items) {
  auto& parser = *launch.parser;
  std::vector<sdk::agents::ParsedEvent> parsed;
  auto outcome = runTurnProcess(launch.spawn, launch.invocation.stdin_data, launch.limits, cancel,
                                [&](std::string_view line) {
                                  parsed.clear();
                                  parser.feed(line, parsed);
                                  for (const auto& e : parsed) items.apply(e);
                                });
  if (outcome.stop != TurnStop::exited) return outcome;
  try {
    parsed.clear();
    parser.finish(outcome.exit_code, parsed);
    for (const auto& e : parsed) items.apply(e);
  } catch (const std::exception& e) {
    outcome.stop = TurnStop::line_rejected;
    outcome.handler_error = e.what();
  }
  return outcome;
}

}  // namespace abx::plugins::agents
