#!/usr/bin/env bash
# POST /shell round trips against the floor, in one run: N sequential
# `POST /shell {"command":"true"}` on one keep-alive connection, N bare
# posix_spawnp + waitpid of `true` (the cost of the command itself), and N
# runs of `true` through the SDK's Subprocess without HTTP (what the safe
# spawn adds), interleaved in 20 rounds, all measured by abx_shell_bench
# (shell_bench_client.cpp).
# Prints per-call mean / p50 / p99, round trips per second, and the overhead
# per call above the floor (difference and ratio). With wrk installed it also
# reports req/s of /shell with 2 connections (the machine has 2 CPUs).
#
# Environment:
#   BENCH_CALLS     N (default 2000)
#   BENCH_SECONDS   wrk duration (default 5; 0 skips wrk)
#   ABX_SERVER_BIN  our server binary (default <repo>/build/bin/agent-sandbox-server)
#   ABX_SHELL_BENCH the client (default: next to the server binary)
#   BENCH_CACHE     scratch space (default <repo>/build/bench-cache)
#
# Exit status: 0 unless the server fails to start or a call fails. The
# figures are informational.

set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
BENCH_CALLS=${BENCH_CALLS:-2000}
BENCH_SECONDS=${BENCH_SECONDS:-5}
ABX_SERVER_BIN=${ABX_SERVER_BIN:-$ROOT/build/bin/agent-sandbox-server}
ABX_SHELL_BENCH=${ABX_SHELL_BENCH:-$(dirname "$ABX_SERVER_BIN")/abx_shell_bench}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/build/bench-cache}
HOST=127.0.0.1

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

[ -x "$ABX_SERVER_BIN" ] || die "server binary '$ABX_SERVER_BIN' not found (set ABX_SERVER_BIN)"
[ -x "$ABX_SHELL_BENCH" ] || die "client '$ABX_SHELL_BENCH' not found (set ABX_SHELL_BENCH)"
case "$BENCH_CALLS" in ''|*[!0-9]*|0) die "BENCH_CALLS must be a positive integer" ;; esac

mkdir -p "$BENCH_CACHE" || die "cannot create $BENCH_CACHE"
WORK=$(mktemp -d "$BENCH_CACHE/shell.XXXXXX") || die "mktemp failed"
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
  - name: process
    file: abx_process.so
    id: abx.process
YAML

# Auth on, as a deployed server runs.
TOKEN=bench-token-$$
ABX_SERVER_TOKEN=$TOKEN ABX_SERVER_BASE_DIR="$WORK/base" ABX_AGENTS_STATE_DIR="$WORK/state" \
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
echo "POST /shell {\"command\":\"true\"} vs posix_spawnp+waitpid of true, N=$BENCH_CALLS, 127.0.0.1, auth on  ($(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
echo
"$ABX_SHELL_BENCH" --port "$PORT" --n "$BENCH_CALLS" --token "$TOKEN" || die "the client failed"

if [ "$BENCH_SECONDS" != 0 ] && command -v wrk >/dev/null 2>&1; then
  cat >"$WORK/shell.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"command":"true"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Access-Token"] = "$TOKEN"
LUA
  wrk -t1 -c2 -d1s -s "$WORK/shell.lua" "http://$HOST:$PORT/shell" >/dev/null 2>&1
  WRK_OUT=$(wrk -t1 -c2 -d"${BENCH_SECONDS}s" --latency -s "$WORK/shell.lua" "http://$HOST:$PORT/shell" 2>&1)
  RPS=$(printf '%s\n' "$WRK_OUT" | awk '/^Requests\/sec:/ {print $2}')
  P50=$(printf '%s\n' "$WRK_OUT" | awk '$1 == "50%" {print $2}')
  P99=$(printf '%s\n' "$WRK_OUT" | awk '$1 == "99%" {print $2}')
  NON2XX=$(printf '%s\n' "$WRK_OUT" | awk '/Non-2xx/ {print $NF}')
  echo
  echo "wrk -t1 -c2 -d${BENCH_SECONDS}s POST /shell: ${RPS:-n/a} req/s, p50 ${P50:-n/a}, p99 ${P99:-n/a}, non-2xx ${NON2XX:-0}"
fi
exit 0
