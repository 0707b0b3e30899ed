#!/usr/bin/env bash
# Installs dependencies, builds, and starts the server in the foreground with
# the default manifest on 127.0.0.1:9000. Extra arguments go to `serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
build="${BUILD_DIR:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABX_BUILD_TESTS=OFF
cmake --build "$build" -j "$(nproc)"
exec "$build/bin/agent-sandbox-server" serve --host 127.0.0.1 --port 9000 "$@"
