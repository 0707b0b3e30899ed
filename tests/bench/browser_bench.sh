#!/usr/bin/env bash
# Browser navigate+content round trips (docs/performance.md, "Browser round
# trips"): starts our server with only the browser plugin (group browser on,
# auth on) and runs abx_browser_bench (browser_bench_client.cpp), which
# serves a small page itself on 127.0.0.1 and measures, interleaved in 10
# rounds, N navigate+content round trips through the server, the same
# through the plugin's BrowserSession in its own process (no HTTP), N bare
# Runtime.evaluate round trips and N plain HTTP GETs of the page, and prints
# the ratios.
#
# Environment:
#   BENCH_NAVS        N (default 100, at most 1000)
#   ABX_SERVER_BIN    our server binary (default <repo>/build/bin/agent-sandbox-server)
#   ABX_BROWSER_BENCH the client (default: next to the server binary)
#   BENCH_CACHE       scratch space (default <repo>/build/bench-cache)
#
# Exit status: 77 (CTest: skipped) when no chromium is installed; 0 unless
# the server fails to start or a round trip fails. The figures are
# informational.

set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
BENCH_NAVS=${BENCH_NAVS:-100}
ABX_SERVER_BIN=${ABX_SERVER_BIN:-$ROOT/build/bin/agent-sandbox-server}
ABX_BROWSER_BENCH=${ABX_BROWSER_BENCH:-$(dirname "$ABX_SERVER_BIN")/abx_browser_bench}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/build/bench-cache}
HOST=127.0.0.1

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

# The plugin looks for these names in the child PATH (chromium_process.h).
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  log "SKIP: chromium is not installed (packaging/install-deps.sh installs it)"
  exit 77
fi
[ -x "$ABX_SERVER_BIN" ] || die "server binary '$ABX_SERVER_BIN' not found (set ABX_SERVER_BIN)"
[ -x "$ABX_BROWSER_BENCH" ] || die "client '$ABX_BROWSER_BENCH' not found (set ABX_BROWSER_BENCH)"
case "$BENCH_NAVS" in ''|*[!0-9]*|0) die "BENCH_NAVS must be a positive integer" ;; esac
[ "$BENCH_NAVS" -le 1000 ] || die "BENCH_NAVS must be at most 1000"

mkdir -p "$BENCH_CACHE" || die "cannot create $BENCH_CACHE"
WORK=$(mktemp -d "$BENCH_CACHE/browser.XXXXXX") || die "mktemp failed"
mkdir -p "$WORK/base"

SERVER_PID=""
# shellcheck disable=SC2317  # invoked via trap
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cat >"$WORK/plugins.yaml" <<'YAML'
plugins:
  - name: browser
    file: abx_browser.so
    id: abx.browser
YAML

# Auth on, as a deployed server runs; the browser group is opt-in.
TOKEN=bench-token-$$
ABX_SERVER_TOKEN=$TOKEN ABX_SERVER_ENABLED_GROUPS=browser ABX_SERVER_BASE_DIR="$WORK/base" \
  ABX_AGENTS_STATE_DIR="$WORK/state" \
  "$ABX_SERVER_BIN" serve --host "$HOST" --port 0 --pty-port 0 --plugins "$WORK/plugins.yaml" \
  >"$WORK/server.log" 2>&1 </dev/null &
SERVER_PID=$!
PORT=""
for ((i = 0; i < 200; i++)); do
  PORT=$(sed -n 's/^listening on [0-9.]*:\([0-9]*\)$/\1/p' "$WORK/server.log" | head -n1)
  [ -n "$PORT" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.05
done
[ -n "$PORT" ] || { cat "$WORK/server.log" >&2; die "server did not start"; }

echo
echo "navigate+content round trips, N=$BENCH_NAVS, local page on 127.0.0.1, auth on  ($(nproc) CPUs, $(chromium --version 2>/dev/null || chromium-browser --version 2>/dev/null), $(date -u +%Y-%m-%dT%H:%M:%SZ))"
echo
"$ABX_BROWSER_BENCH" --port "$PORT" --n "$BENCH_NAVS" --token "$TOKEN" || die "the client failed"
exit 0
