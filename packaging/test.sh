#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite through CTest
# (unit, integration, the out-of-tree SDK consumer, and the labelled slow
# suites such as bench). BUILD_DIR overrides the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
build="${BUILD_DIR:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABX_BUILD_TESTS=ON
cmake --build "$build" -j "$(nproc)"
cd "$build"
ctest --output-on-failure -j "$(nproc)" --timeout 900
