#!/usr/bin/env bash
# Builds the tree a second time under sanitizers and runs tests on it:
#   asan  AddressSanitizer + UBSan (-fno-sanitize-recover=all, leaks at exit
#         included): the unit, integration and security labels, whose
#         servers are the sanitized binary too (tests/support/server_process
#         fails the test that started a server whose stderr holds a report).
#   tsan  ThreadSanitizer: abx_tsan_tests, the agents runtime, the stream
#         engine, the terminal bridge and the shell pump unit tests.
#
#   tests/sanitize/run.sh <source dir> <build dir> asan|tsan
#
# clang++ builds it (libclang-rt-14-dev, installed by packaging/install-deps.sh):
# it compiles the product at -O1 (with the sanitizers, twice as fast as g++),
# and the tests unoptimised like every build. Suppressions (only for
# third-party code, each justified) are in tests/sanitize/*.supp.
#
# Environment: SANITIZE_CXX (default clang++), SANITIZE_JOBS (default nproc).
# Exit status: non-zero when the build fails or any test or report does.
set -euo pipefail

log() { printf '[sanitize] %s\n' "$*" >&2; }
die() { printf '[sanitize] ERROR: %s\n' "$*" >&2; exit 2; }

[ $# -eq 3 ] || die "usage: $0 <source dir> <build dir> asan|tsan"
SRC=$(cd "$1" && pwd) || die "no source dir '$1'"
BUILD=$2
KIND=$3
CXX=${SANITIZE_CXX:-clang++}
JOBS=${SANITIZE_JOBS:-$(nproc)}
command -v "$CXX" >/dev/null 2>&1 ||
  die "'$CXX' not found: install clang and libclang-rt-14-dev (packaging/install-deps.sh)"

case "$KIND" in
  asan) OPTION=-DABX_SANITIZE=ON; TARGETS=(abx_unit_tests abx_integration_tests) ;;
  tsan) OPTION=-DABX_TSAN=ON; TARGETS=(abx_tsan_tests) ;;
  *) die "unknown kind '$KIND' (asan or tsan)" ;;
esac

log "configuring $KIND in $BUILD"
cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DABX_HARDENING=OFF -DABX_BUILD_TESTS=ON \
  "$OPTION" >"$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log" >&2; die "configure failed"; }
log "building ${TARGETS[*]}"
started=$SECONDS
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}" >"$BUILD.build.log" 2>&1 ||
  { tail -n 60 "$BUILD.build.log" >&2; die "build failed"; }
log "built in $((SECONDS - started)) s"

SUPP="$SRC/tests/sanitize"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_odr_violation=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$SUPP/tsan.supp"

started=$SECONDS
case "$KIND" in
  asan)
    # The out-of-tree SDK consumer and the docs check are not about memory.
    ctest --test-dir "$BUILD" -L '^(unit|integration|security)$' -E '^(sdk_consumer|docs_references)$' \
      -j "$JOBS" --timeout 600 --output-on-failure
    ;;
  tsan)
    "$BUILD/bin/abx_tsan_tests"
    ;;
esac
log "$KIND tests passed in $((SECONDS - started)) s"
