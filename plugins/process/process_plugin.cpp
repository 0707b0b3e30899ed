// Handlers share one ProcessContext (the host's path guard and child
// environment, the process table); they run on worker threads concurrently.
#include "process_plugin.h"

#include <unistd.h>

#include "abx/sdk/metrics.h"
#include "abx/sdk/route_table.h"
#include "process_vocabulary.h"
#include "shell_routes.h"

namespace abx::plugins::process {
namespace {

constexpr const char* kGroup = "process";
constexpr const char* kRun = "process:run";
constexpr const char* kManage = "process:manage";

std::optional<sdk::Response> streamShell(const ProcessContext& ctx, const sdk::Request& r,
                                         sdk::SseStream& s) {
  static const StreamSettings kSettings;
  return shellStream(ctx.launch, *ctx.shell_pump, kSettings, r, s);
}

sdk::Response runShellRoute(const ProcessContext& ctx, const sdk::Request& r) {
  return runShell(ctx.launch, r);
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
  sdk::Metrics& metrics = host.metrics();
  TableOptions table;
  table.started = &metrics
                       .counter("abx_process_background_started_total",
                                "Background processes started (POST /process/start).", {})
                       .labels({});
  context->table = std::make_shared<ProcessTable>(table);
  metrics.callbackGauge(
      "abx_process_background_running", "Background processes running now.",
      [table = context->table] { return static_cast<double>(table->runningCount()); });
  context->shell_pump = std::make_shared<ShellPump>();
  context->server_pid = ::getpid();
  std::shared_ptr<const ProcessContext> ctx = context;

  const std::vector<std::string> run{kRun}, manage{kManage};
  if (auto s = sdk::addRoutes(
          host.routes(), kGroup, ctx,
          {
              {"POST", "/shell", "shell", "Run a command (no shell) and return its output", run,
               &runShellRoute},
              {"POST", "/shell/stream", "shell_stream",
               "Run a command and stream its stdout and stderr lines as SSE", run, nullptr,
               &streamShell},
              {"POST", "/process/start", "process_start", "Start a background process", run,
               &startProcess},
              {"GET", "/process/list", "process_list", "List background processes", manage,
               &listProcesses},
              {"GET", "/process/{pid}", "process_get", "One background process", manage,
               &getProcess},
              {"POST", "/process/{pid}/signal", "process_signal",
               "Send a whitelisted signal to a background process", manage, &signalProcess},
              {"GET", "/process/{pid}/output", "process_output",
               "Read a background process's output from an offset", manage, &processOutput},
              {"POST", "/process/{pid}/stdin", "process_stdin",
               "Write to (or close) a background process's stdin", manage, &processStdin},
          });
      !s)
    return s;
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
