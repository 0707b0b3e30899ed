// Handlers share one ProcessContext (the host's path guard and child
// environment, the process table); they run on worker threads concurrently.
#include "process_plugin.h"

#include "process_vocabulary.h"

#include <unistd.h>

#include "shell_routes.h"

namespace abx::plugins::process {
namespace {

constexpr const char* kGroup = "process";
constexpr const char* kRun = "process:run";
constexpr const char* kManage = "process:manage";

sdk::RouteSpec route(const char* method, const char* path, const char* endpoint,
                     const char* summary, const char* scope) {
  sdk::RouteSpec spec;
  spec.method = method;
  spec.path = path;
  spec.endpoint = endpoint;
  spec.group = kGroup;
  spec.summary = summary;
  spec.scopes = {scope};
  return spec;
}

}  // namespace

sdk::Status ProcessPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {kGroup, false,
           "Commands and background processes: shell, SSE shell, start, list, signal, output, "
           "stdin",
           processParams()});
      !s)
    return s;

  auto context = std::make_shared<ProcessContext>();
  context->launch.paths = &host.paths();
  context->launch.environment = &host.environment();
  context->launch.base_dir = host.info().base_dir;
  context->table = std::make_shared<ProcessTable>();
  context->shell_pump = std::make_shared<ShellPump>();
  context->server_pid = ::getpid();
  std::shared_ptr<const ProcessContext> ctx = context;

  std::vector<sdk::RouteSpec> routes;
  routes.push_back(
      route("POST", "/shell", "shell", "Run a command (no shell) and return its output", kRun));
  routes.back().handler = [ctx](const sdk::Request& r) { return runShell(ctx->launch, r); };
  routes.push_back(route("POST", "/shell/stream", "shell_stream",
                         "Run a command and stream its stdout and stderr lines as SSE", kRun));
  routes.back().streaming = true;
  routes.back().stream_handler = [ctx](const sdk::Request& r, sdk::SseStream& s) {
    static const StreamSettings kSettings;
    return shellStream(ctx->launch, *ctx->shell_pump, kSettings, r, s);
  };

  using Fn = sdk::Response (*)(const ProcessContext&, const sdk::Request&);
  struct Row {
    const char *method, *path, *endpoint, *summary, *scope;
    Fn fn;
  };
  const Row rows[] = {
      {"POST", "/process/start", "process_start", "Start a background process", kRun,
       &startProcess},
      {"GET", "/process/list", "process_list", "List background processes", kManage,
       &listProcesses},
      {"GET", "/process/{pid}", "process_get", "One background process", kManage, &getProcess},
      {"POST", "/process/{pid}/signal", "process_signal",
       "Send a whitelisted signal to a background process", kManage, &signalProcess},
      {"GET", "/process/{pid}/output", "process_output",
       "Read a background process's output from an offset", kManage, &processOutput},
      {"POST", "/process/{pid}/stdin", "process_stdin",
       "Write to (or close) a background process's stdin", kManage, &processStdin},
  };
  for (const Row& row : rows) {
    auto spec = route(row.method, row.path, row.endpoint, row.summary, row.scope);
    spec.handler = [ctx, fn = row.fn](const sdk::Request& r) { return fn(*ctx, r); };
    routes.push_back(std::move(spec));
  }
  for (auto& spec : routes)
    if (auto s = host.routes().add(std::move(spec)); !s) return s;
  context_ = std::move(context);
  return sdk::Status::ok();
}

void ProcessPlugin::stop() noexcept {
  if (!context_) return;
  context_->shell_pump->stop();
  context_->table->shutdown();
}

std::unique_ptr<sdk::Plugin> makeProcessPlugin(sdk::HostContext&) {
  return std::make_unique<ProcessPlugin>();
}

}  // namespace abx::plugins::process
