// The agent-sandbox-server command line: serve, healthcheck, check-config,
// plugins, version, and --help on each.
#pragma once

namespace abx::kernel {

/** @return the process exit code. */
int runCli(int argc, char** argv);

}  // namespace abx::kernel
