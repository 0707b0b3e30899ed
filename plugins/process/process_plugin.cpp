// Handlers share one ProcessContext (the host's path guard and child
// environment, the process table); they run on worker threads concurrently.
#include "process_plugin.h"

#include <unistd.h>

#include "shell_routes.h"

namespace abx::plugins::process {
namespace {

constexpr const char* kGroup = "process";
constexpr const char* kRun = "process:run";
constexpr const char* kManage = "process:manage";

sdk::RouteSpec route(std::string method, std::string path, std::string endpoint,
                     std::string summary, std::string scope) {
  sdk::RouteSpec spec;
  spec.method = std::move(method);
  spec.path = std::move(path);
  spec.endpoint = std::move(endpoint);
  spec.group = kGroup;
  spec.summary = std::move(summary);
  spec.scopes = {std::move(scope)};
  return spec;
}

}  // namespace

sdk::Status ProcessPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {kGroup, false,
           "Commands and background processes: shell, SSE shell, start, list, signal, output, "
           "stdin"});
      !s)
    return s;

  auto context = std::make_shared<ProcessContext>();
  context->launch.paths = &host.paths();
  context->launch.environment = &host.environment();
  context->launch.base_dir = host.info().base_dir;
  context->table = std::make_shared<ProcessTable>();
  context->server_pid = ::getpid();
  std::shared_ptr<const ProcessContext> ctx = context;
  const sdk::KillLadder timeout_ladder{std::chrono::milliseconds(1000),
                                       std::chrono::milliseconds(1000)};

  std::vector<sdk::RouteSpec> routes;
  {
    auto spec =
        route("POST", "/shell", "shell", "Run a command (no shell) and return its output", kRun);
    spec.handler = [ctx, timeout_ladder](const sdk::Request& r) {
      return runShell(ctx->launch, r, timeout_ladder);
    };
    routes.push_back(std::move(spec));
  }
  {
    auto spec = route("POST", "/shell/stream", "shell_stream",
                      "Run a command and stream its stdout and stderr lines as SSE", kRun);
    spec.streaming = true;
    spec.stream_handler = [ctx](const sdk::Request& r, sdk::SseStream& s) {
      static const StreamSettings kSettings;
      return shellStream(ctx->launch, kSettings, r, s);
    };
    routes.push_back(std::move(spec));
  }
  auto handler = [ctx](sdk::Response (*fn)(const ProcessContext&, const sdk::Request&)) {
    return [ctx, fn](const sdk::Request& r) { return fn(*ctx, r); };
  };
  {
    auto spec =
        route("POST", "/process/start", "process_start", "Start a background process", kRun);
    spec.handler = handler(&startProcess);
    routes.push_back(std::move(spec));
  }
  {
    auto spec = route("GET", "/process/list", "process_list", "List background processes", kManage);
    spec.handler = handler(&listProcesses);
    routes.push_back(std::move(spec));
  }
  {
    auto spec = route("GET", "/process/{pid}", "process_get", "One background process", kManage);
    spec.handler = handler(&getProcess);
    routes.push_back(std::move(spec));
  }
  {
    auto spec = route("POST", "/process/{pid}/signal", "process_signal",
                      "Send a whitelisted signal to a background process", kManage);
    spec.handler = handler(&signalProcess);
    routes.push_back(std::move(spec));
  }
  {
    auto spec = route("GET", "/process/{pid}/output", "process_output",
                      "Read a background process's output from an offset", kManage);
    spec.handler = handler(&processOutput);
    routes.push_back(std::move(spec));
  }
  {
    auto spec = route("POST", "/process/{pid}/stdin", "process_stdin",
                      "Write to (or close) a background process's stdin", kManage);
    spec.handler = handler(&processStdin);
    routes.push_back(std::move(spec));
  }
  for (auto& spec : routes)
    if (auto s = host.routes().add(std::move(spec)); !s) return s;
  context_ = std::move(context);
  return sdk::Status::ok();
}

void ProcessPlugin::stop() noexcept {
  if (context_) context_->table->shutdown();
}

std::unique_ptr<sdk::Plugin> makeProcessPlugin(sdk::HostContext&) {
  return std::make_unique<ProcessPlugin>();
}

}  // namespace abx::plugins::process
