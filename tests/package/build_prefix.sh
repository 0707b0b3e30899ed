#!/usr/bin/env bash
# Configures and builds the project for an install prefix (without the test
# suite) in BUILD_DIR, then installs it into BUILD_DIR/destdir with DESTDIR,
# as a distribution package build does. The package tests share the build:
# it is configured once per ctest run and most objects come from ccache.
#
#   build_prefix.sh SOURCE_DIR BUILD_DIR PREFIX
set -euo pipefail
src=$1 build=$2 prefix=$3
mkdir -p "$build"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DABX_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" > "$build/configure.log"
cmake --build "$build" -j "$(nproc)" > "$build/build.log" || { tail -40 "$build/build.log"; exit 1; }
rm -rf "$build/destdir"
DESTDIR="$build/destdir" cmake --install "$build" > "$build/install.log"
echo "installed $prefix into $build/destdir"
