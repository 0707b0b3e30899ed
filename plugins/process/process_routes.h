// The background-process routes: POST /process/start, GET /process/list,
// GET /process/{pid}, POST /process/{pid}/signal, and this project's
// GET /process/{pid}/output and POST /process/{pid}/stdin (docs/process.md).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "abx/sdk/http.h"
#include "abx/sdk/json.h"
#include "launch.h"
#include "managed_process.h"
#include "process_table.h"
#include "shell_pump.h"

namespace abx::plugins::process {

struct ProcessContext {
  LaunchContext launch;
  std::shared_ptr<ProcessTable> table;
  /** Drives every running /shell/stream command (its thread starts with the first). */
  std::shared_ptr<ShellPump> shell_pump;
  pid_t server_pid = 0;
};

/** Writes {"pid", "command", "state", "started_at", "exit_code"}. */
void writeSnapshot(sdk::JsonWriter& w, const ProcessSnapshot& snapshot);

/** 200 {"pid", "command"}; 400 / 403 as /shell; 429 ResourceError at the cap. */
sdk::Response startProcess(const ProcessContext& context, const sdk::Request& request);
/** 200 {"processes": [...]}, in start order: the caller's own (every one for `admin`). */
sdk::Response listProcesses(const ProcessContext& context, const sdk::Request& request);
/** 400 pid not an integer, 404 NotFoundError, else the snapshot. */
sdk::Response getProcess(const ProcessContext& context, const sdk::Request& request);
/** 400 / 403 / 404 / 409, else {"pid", "signal"}. */
sdk::Response signalProcess(const ProcessContext& context, const sdk::Request& request);
/** ?after=<offset>: {"output", "next", "dropped", "state", "exit_code", "eof"}. */
sdk::Response processOutput(const ProcessContext& context, const sdk::Request& request);
/** {"data", "close"?}: {"written": n}; 409 when stdin is closed or the process exited. */
sdk::Response processStdin(const ProcessContext& context, const sdk::Request& request);

}  // namespace abx::plugins::process
