// Handlers share one ToolContext; they run on worker threads concurrently
// and keep no state between calls.
#include "dev_tools_plugin.h"

#include "abx/sdk/route_table.h"
#include "code_run_route.h"
#include "dev_tools_vocabulary.h"
#include "git_routes.h"

namespace abx::plugins::dev_tools {
namespace {

constexpr const char* kGroup = "dev_tools";
constexpr const char* kScope = "devtools:run";

}  // namespace

sdk::Status DevToolsPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {kGroup, true, "Run python, node or bash code; git status and diff of a work tree",
           devToolsParams()});
      !s)
    return s;

  auto context = std::make_shared<ToolContext>();
  context->paths = &host.paths();
  context->environment = &host.environment();
  context->base_dir = host.info().base_dir;
  context->state_dir = host.info().state_dir;
  std::shared_ptr<const ToolContext> ctx = context;

  const std::vector<std::string> run{kScope};
  return sdk::addRoutes(host.routes(), kGroup, ctx,
                        {
                            {"POST", "/code/run", "code_run",
                             "Run python, node or bash code and return its output", run, &runCode},
                            {"GET", "/git/status", "git_status",
                             "Branch and changed files of a git work tree", run, &gitStatus},
                            {"GET", "/git/diff", "git_diff",
                             "Diff text and line statistics of a git work tree", run, &gitDiff},
                        });
}

std::unique_ptr<sdk::Plugin> makeDevToolsPlugin(sdk::HostContext&) {
  return std::make_unique<DevToolsPlugin>();
}

}  // namespace abx::plugins::dev_tools
