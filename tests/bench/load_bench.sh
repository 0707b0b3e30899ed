#!/usr/bin/env bash
# The serving-core load benchmark (docs/performance.md, "Holding many
# connections"): one real server with the process, commands, agents and
# command-adapter plugins, held under BENCH_SSE SSE subscribers spread over
# agent sessions (each session runs one turn half-way through),
# BENCH_SHELL /shell/stream requests, BENCH_IDLE idle keep-alive connections
# and BENCH_TRICKLE connections that send a header line every 2 s, while the
# client measures GET /health and an authenticated GET /commands on fresh
# connections. The same probes go to abx_floor_server (one bare epoll loop)
# in the same seconds: its latency is the machine's floor under that load.
# Prints figures; fails only when the server does not start.
# Environment: ABX_SERVER_BIN, ABX_LOAD_BENCH (the client), ABX_FLOOR_SERVER
# (skipped when missing), BENCH_SSE, BENCH_SHELL, BENCH_IDLE, BENCH_TRICKLE,
# BENCH_SECONDS, BENCH_PROBE_NICE (the client's probing thread, -10), BENCH_CACHE.
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
ABX_SERVER_BIN=${ABX_SERVER_BIN:-$ROOT/build/bin/agent-sandbox-server}
ABX_LOAD_BENCH=${ABX_LOAD_BENCH:-$(dirname "$ABX_SERVER_BIN")/abx_load_bench}
ABX_FLOOR_SERVER=${ABX_FLOOR_SERVER:-$(dirname "$ABX_SERVER_BIN")/abx_floor_server}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/build/bench-cache}
PLUGIN_DIR=$(cd "$(dirname "$ABX_SERVER_BIN")/../lib/agent-sandbox/plugins" && pwd)

die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }
[ -x "$ABX_SERVER_BIN" ] || die "server binary '$ABX_SERVER_BIN' not found"
[ -x "$ABX_LOAD_BENCH" ] || die "client '$ABX_LOAD_BENCH' not found"

mkdir -p "$BENCH_CACHE"
WORK=$(mktemp -d "$BENCH_CACHE/load.XXXXXX") || die "mktemp failed"
SERVER_PID=""
FLOOR_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  [ -n "$FLOOR_PID" ] && kill -TERM "$FLOOR_PID" 2>/dev/null && wait "$FLOOR_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/plugins.yaml" <<YAML
plugins:
  - {name: commands, file: abx_commands.so, settings: {commands_file: "$WORK/commands.yaml"}}
  - {name: process, file: abx_process.so}
  - {name: agents, file: abx_agents.so}
  - {name: adapter_command, file: abx_adapter_command.so}
YAML
echo 'commands: [{name: hello, argv: ["/bin/echo", "hi"]}]' >"$WORK/commands.yaml"
cat >"$WORK/agents.yaml" <<YAML
agents:
  - name: turn
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    workspace: {path: "$WORK/work"}
    env: {FAKE_SCENARIO: notool}
YAML

# Thousands of sockets on both ends.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
TOKEN=bench-token-$$
: >"$WORK/server.log"  # before the server starts, so the wait loop never races its creation
export PATH="$ROOT/fake_agents:/usr/bin:/bin" FAKE_AGENT_STATE_DIR="$WORK/fake-state" HOME="$WORK"
ABX_SERVER_TOKEN=$TOKEN ABX_SERVER_ENABLED_GROUPS=agents ABX_AGENTS_CONFIG="$WORK/agents.yaml" \
  ABX_AGENTS_STATE_DIR="$WORK/state" ABX_AGENTS_MAX_SESSIONS=1000 \
  "$ABX_SERVER_BIN" serve --host 127.0.0.1 --port 0 --plugin-dir "$PLUGIN_DIR" \
  --plugins "$WORK/plugins.yaml" --base-dir "$WORK" >"$WORK/server.log" 2>&1 </dev/null &
SERVER_PID=$!
PORT=""
for ((i = 0; i < 200; i++)); do
  PORT=$(sed -n 's/^listening on [0-9.]*:\([0-9]*\)$/\1/p' "$WORK/server.log" | head -n1)
  [ -n "$PORT" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.05
done
[ -n "$PORT" ] || { cat "$WORK/server.log" >&2; die "server did not start"; }

FLOOR_PORT=0
if [ -x "$ABX_FLOOR_SERVER" ]; then
  "$ABX_FLOOR_SERVER" 0 >"$WORK/floor.log" 2>&1 </dev/null &
  FLOOR_PID=$!
  for ((i = 0; i < 100; i++)); do
    FLOOR_PORT=$(sed -n 's/^listening on [0-9.]*:\([0-9]*\)$/\1/p' "$WORK/floor.log")
    [ -n "$FLOOR_PORT" ] && break
    sleep 0.05
  done
  FLOOR_PORT=${FLOOR_PORT:-0}
else
  printf '[bench] SKIP floor: %s not found\n' "$ABX_FLOOR_SERVER" >&2
fi

echo
echo "Holding many connections: $(nproc) CPUs, 127.0.0.1, auth on, worker pool ${ABX_SERVER_THREADS:-64} ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
echo "held: ${BENCH_SSE:-2000} SSE subscribers, ${BENCH_SHELL:-200} /shell/stream, ${BENCH_IDLE:-1000} idle keep-alive, ${BENCH_TRICKLE:-500} trickling; ${BENCH_SECONDS:-20} s"
BENCH_SERVER_PID=$SERVER_PID BENCH_FLOOR_PORT=$FLOOR_PORT "$ABX_LOAD_BENCH" "$PORT" "$TOKEN" turn || die "the load client could not set up"
