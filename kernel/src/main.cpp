// agent-sandbox-server: entry point.
#include "cli/cli.h"

int main(int argc, char** argv) { return abx::kernel::runCli(argc, argv); }
