#!/usr/bin/env bash
# Runs one client example of examples/ against a fresh server, as a reader
# would: the token in ABX_TOKEN, the URL in ABX_URL, an agent in ABX_MODEL.
# The server has every group on (agents, dev_tools and browser are opt-in)
# and the fake agents first on its PATH, so ABX_MODEL=codex answers without
# a model provider.
#
#   run.sh --server BIN --plugin-dir DIR --manifest FILE EXAMPLE
#
# Exit: 0 the example succeeded, 1 it failed (or the server did not start),
# 77 skip (node/npm or the pinned packages unavailable and CI is not set).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
server="" plugin_dir="" manifest="" example=""
while [ $# -gt 0 ]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --plugin-dir) plugin_dir="$2"; shift 2 ;;
    --manifest) manifest="$2"; shift 2 ;;
    *) example="$1"; shift ;;
  esac
done
[ -x "$server" ] && [ -f "$example" ] || { echo "examples: usage: run.sh --server BIN ... EXAMPLE" >&2; exit 1; }

command -v flock >/dev/null && exec 9>"$repo/examples/.install.lock" && flock 9
bash "$repo/examples/install.sh" || exit $?
exec 9>&-

work="$(mktemp -d "${TMPDIR:-/tmp}/abx-example-XXXXXX")"
mkdir -p "$work/base" "$work/state" "$work/home"
token="example-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
log="$work/server.log"
pid=""
finish() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap finish EXIT
trap 'exit 1' INT TERM

args=(serve --host 127.0.0.1 --port 0 --pty-port 0 --plugin-dir "$plugin_dir" --plugins "$manifest")
env HOME="$work/home" PATH="$repo/fake_agents:$PATH" \
  ABX_SERVER_TOKEN="$token" ABX_SERVER_ENABLED_GROUPS=agents,dev_tools,browser \
  ABX_SERVER_BASE_DIR="$work/base" ABX_AGENTS_STATE_DIR="$work/state" \
  "$server" "${args[@]}" >"$log" 2>&1 &
pid=$!
# If CTest kills this script outright, the watchdog stops the server.
( trap '' TERM INT; while kill -0 $$ 2>/dev/null; do sleep 1; done; kill -KILL "$pid" 2>/dev/null ) &
port=""
for _ in $(seq 300); do
  port="$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$log" | head -1)"
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "examples: the server exited:" >&2; cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "examples: the server did not listen in 30 s" >&2; cat "$log" >&2; exit 1; }

cd "$repo/examples"
export ABX_URL="http://127.0.0.1:$port" ABX_TOKEN="$token" ABX_MODEL=codex
case "$example" in
  *.sh) bash "$example" ;;
  *.mjs) env -u OPENAI_API_KEY -u OPENAI_BASE_URL NODE_ENV=test node "$example" ;;
esac
rc=$?
if [ $rc -ne 0 ]; then echo "--- server log (last 60 lines) ---"; tail -60 "$log"; fi
exit $rc
