#!/usr/bin/env bash
# The agents figures (docs/performance.md, "Agent turns"), in one run of a
# real server with the agents plugin and the command adapter:
#  - turn overhead: BENCH_TURNS rounds of (bare spawn-and-wait of the fake
#    agent, then POST /v1/responses stream:true until response.completed),
#    p50 of each and the difference;
#  - flood: one turn of `fake-agent --format jsonl-claude` in FAKE_MODE=flood
#    (BENCH_FLOOD_EVENTS deltas) to one SSE client: events per second, and
#    the server's peak RSS (VmHWM) afterwards;
#  - fan-out: one flood turn (BENCH_FANOUT_EVENTS deltas, less than the
#    session ring of 20 000 events) on an Agents-wire session watched by 1, 8
#    and 32 subscribers of its event stream: events per second, and that
#    every subscriber got every delta.
# Environment: ABX_SERVER_BIN, ABX_AGENTS_BENCH (the client), BENCH_TURNS
# (default 30), BENCH_FLOOD_EVENTS (default 200000), BENCH_CACHE.
# Exit status: 0 unless the server fails to start or a turn fails.
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
ABX_SERVER_BIN=${ABX_SERVER_BIN:-$ROOT/build/bin/agent-sandbox-server}
ABX_AGENTS_BENCH=${ABX_AGENTS_BENCH:-$(dirname "$ABX_SERVER_BIN")/abx_agents_bench}
BENCH_TURNS=${BENCH_TURNS:-30}
BENCH_FLOOD_EVENTS=${BENCH_FLOOD_EVENTS:-200000}
BENCH_FANOUT_EVENTS=${BENCH_FANOUT_EVENTS:-20000}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/build/bench-cache}
PLUGIN_DIR=$(cd "$(dirname "$ABX_SERVER_BIN")/../lib/agent-sandbox/plugins" && pwd)

die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }
[ -x "$ABX_SERVER_BIN" ] || die "server binary '$ABX_SERVER_BIN' not found"
[ -x "$ABX_AGENTS_BENCH" ] || die "client '$ABX_AGENTS_BENCH' not found"

mkdir -p "$BENCH_CACHE"
WORK=$(mktemp -d "$BENCH_CACHE/agents.XXXXXX") || die "mktemp failed"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/plugins.yaml" <<YAML
plugins:
  - name: agents
    file: abx_agents.so
  - name: adapter_command
    file: abx_adapter_command.so
YAML
cat >"$WORK/agents.yaml" <<YAML
agents:
  - name: turn
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    workspace: {path: "$WORK/work"}
    env: {FAKE_SCENARIO: notool}
  - name: flood
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-claude"], parser: jsonl-claude}
    workspace: {path: "$WORK/work"}
    env: {FAKE_MODE: flood, FAKE_FLOOD_EVENTS: "$BENCH_FLOOD_EVENTS"}
    limits: {max_output_bytes: 1073741824}
  - name: fanout
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-claude"], parser: jsonl-claude}
    workspace: {path: "$WORK/work"}
    env: {FAKE_MODE: flood, FAKE_FLOOD_EVENTS: "$BENCH_FANOUT_EVENTS"}
    limits: {max_output_bytes: 1073741824}
YAML

TOKEN=bench-token-$$
export PATH="$ROOT/fake_agents:/usr/bin:/bin" FAKE_AGENT_STATE_DIR="$WORK/fake-state" HOME="$WORK"
ABX_SERVER_TOKEN=$TOKEN ABX_SERVER_ENABLED_GROUPS=agents ABX_AGENTS_CONFIG="$WORK/agents.yaml" \
  ABX_AGENTS_STATE_DIR="$WORK/state" \
  "$ABX_SERVER_BIN" serve --host 127.0.0.1 --port 0 --pty-port 0 --plugin-dir "$PLUGIN_DIR" \
  --plugins "$WORK/plugins.yaml" >"$WORK/server.log" 2>&1 </dev/null &
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
echo "Agent turns: fake-agent (python3) on $(nproc) CPUs, 127.0.0.1, auth on ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
FAKE_SCENARIO=notool "$ABX_AGENTS_BENCH" turn "$PORT" "$TOKEN" turn "$BENCH_TURNS" \
  fake-agent --format jsonl-codex || die "turn benchmark failed"
"$ABX_AGENTS_BENCH" flood "$PORT" "$TOKEN" flood || die "flood benchmark failed"
for n in 1 8 32; do
  "$ABX_AGENTS_BENCH" fanout "$PORT" "$TOKEN" fanout "$n" || die "fan-out to $n subscribers failed"
done
echo "server peak RSS: $(awk '/VmHWM/ {printf "%.1f MiB", $2/1024}' /proc/$SERVER_PID/status)"
