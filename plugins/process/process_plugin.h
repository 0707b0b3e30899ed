// The abx.process plugin: owns the `process` group (on by default) and serves
// POST /shell, POST /shell/stream, POST /process/start, GET /process/list,
// GET /process/{pid}, POST /process/{pid}/signal, GET /process/{pid}/output
// and POST /process/{pid}/stdin (spec §4.4, §6, §8.2; docs/process.md).
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "process_routes.h"
#include "stream_route.h"

namespace abx::plugins::process {

class ProcessPlugin final : public sdk::Plugin {
 public:
  /** Declares the group and adds the eight routes. */
  sdk::Status start(sdk::HostContext& host) override;
  /**
   * Stops every streamed command and every background process (kill
   * ladders) and waits for their threads.
   */
  void stop() noexcept override;

 private:
  std::shared_ptr<ProcessContext> context_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeProcessPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::process
