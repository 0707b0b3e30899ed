#!/usr/bin/env bash
# Runs oracle case files (official openai / @openai/agents JS SDKs) against a
# fresh agent-sandbox-server, then checks that the secret canary leaked
# nowhere and that every recorded answer matches the server's own OpenAPI
# document (tests/openapi/wire_check.mjs).
#
#   run.sh --server BIN [--plugin-dir DIR] [--manifest FILE]
#          [--agents FILE] [--path DIR] CASE.test.mjs...
#
# --agents replaces agents.yaml (ABX_AGENTS_CONFIG); --path puts DIR first on
# the server's PATH, before fake_agents/ (tests/realcli passes its real CLIs).
# Extra server environment: REALCLI_SERVER_ENV="NAME=value ..." (no secrets).
#
# Exit codes: 0 pass, 1 fail (a case failed, the server did not start, the
# canary leaked or an answer does not match the document), 77 skip (node/npm
# or the pinned SDKs unavailable and CI is not set; under CI=true that is a
# failure).
# ORACLE_KEEP=1 keeps the work dir (server log, state dir, recorded wire).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

server="" plugin_dir="" manifest="" agents="$here/agents.yaml" extra_path="" cases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --plugin-dir) plugin_dir="$2"; shift 2 ;;
    --manifest) manifest="$2"; shift 2 ;;
    --agents) agents="$2"; shift 2 ;;
    --path) extra_path="$2:"; shift 2 ;;
    -h|--help) sed -n 2,18p "$0"; exit 0 ;;
    *) cases+=("$1"); shift ;;
  esac
done
[ -n "$server" ] && [ -x "$server" ] || { echo "oracle: --server BIN is required and must be executable (got '$server')" >&2; exit 1; }
# Absolute paths: the cases and the wire check run from other folders.
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
server="$(absolute "$server")"
[ -n "$plugin_dir" ] && plugin_dir="$(absolute "$plugin_dir")"
[ -n "$manifest" ] && manifest="$(absolute "$manifest")"
[ ${#cases[@]} -gt 0 ] || cases=("$here"/cases/*.test.mjs)
for i in "${!cases[@]}"; do
  [ -f "${cases[$i]}" ] || { echo "oracle: no such case file: ${cases[$i]}" >&2; exit 1; }
  cases[$i]="$(absolute "${cases[$i]}")"
done

# 1. The pinned SDKs. One install at a time: CTest runs the case files in parallel.
command -v flock >/dev/null && exec 9>"$here/.install.lock" && flock 9
"$here/install.sh" || exit $?                          # 77 → CTest SKIP (CI: 1)
exec 9>&-

# 2. A fresh work dir: server log, agents state, workspace, HOME, recorded wire.
work="$(mktemp -d "${TMPDIR:-/tmp}/abx-oracle-XXXXXX")"
state="$work/state" wire="$work/wire" log="$work/server.log"
cases_dir="$work/cases"   # the servers a case starts itself (harness startServer)
mkdir -p "$state" "$wire" "$work/workspace" "$work/home" "$work/base" "$cases_dir"
token="oracle-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
canary="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"   # 32 hex characters
# shellcheck source=../support/server_run.sh
. "$repo/tests/support/server_run.sh"
cleanup() { abx_server_stop; }
finish() {
  cleanup
  if [ "${ORACLE_KEEP:-0}" = 1 ]; then echo "oracle: work dir kept: $work"; else rm -rf "$work"; fi
}
trap finish EXIT
trap 'exit 1' INT TERM

# 3. The server: loopback, a free port (--port 0, read back from the
# 'listening on' line), only the agents group on, token via env (never argv),
# agents from agents.yaml, the fake agents first on PATH, room for the 250
# sessions of the pagination case (the default keeps 200).
config=()
[ -n "$plugin_dir" ] && config+=(--plugin-dir "$plugin_dir")
[ -n "$manifest" ] && config+=(--plugins "$manifest")
args=(serve --host 127.0.0.1 --port 0 --pty-port 0 "${config[@]}")
read -r -a extra_env <<<"${REALCLI_SERVER_ENV:-}"
# public_env holds no secret: the cases get it to start servers of their own.
public_env=(HOME="$work/home"
    PATH="$extra_path$repo/fake_agents:$PATH"
    ABX_SERVER_ENABLED_GROUPS=agents
    ABX_SERVER_BASE_DIR="$work/base"
    ABX_AGENTS_CONFIG="$agents"
    ABX_AGENTS_MAX_SESSIONS=1000
    ORACLE_WORKSPACE="$work/workspace"
    "${extra_env[@]}")
server_env=(ABX_SERVER_TOKEN="$token" ABX_AGENTS_STATE_DIR="$state" ORACLE_CANARY="$canary"
    "${public_env[@]}")
abx_server_start oracle "$log" env "${server_env[@]}" "$server" "${args[@]}"
port=$abx_server_port
echo "oracle: $server ${args[*]} (log $log)"

# 4. The cases, sequentially, in a clean SDK environment. A case that needs a
# server of its own (a restart) starts it with the harness's startServer()
# from ORACLE_SERVER_* (one argument, one NAME=value a line), under
# ORACLE_CASES_DIR, which the canary scan covers.
cd "$here"
env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u OPENAI_CUSTOM_HEADERS -u OPENAI_ORG_ID \
    -u OPENAI_PROJECT_ID -u OPENAI_WEBHOOK_SECRET -u OPENAI_LOG -u ORACLE_CANARY \
  NODE_ENV=test OPENAI_AGENTS_DISABLE_TRACING=1 \
  ORACLE_BASE_URL="http://127.0.0.1:$port/v1" ORACLE_TOKEN="$token" ORACLE_WIRE_DIR="$wire" \
  ORACLE_CANARY_VALUE="$canary" ORACLE_WORK_DIR="$work" \
  ORACLE_SERVER_BIN="$server" ORACLE_SERVER_ARGS="$(printf '%s\n' "${args[@]}")" \
  ORACLE_SERVER_ENV="$(printf '%s\n' "${public_env[@]}")" ORACLE_CASES_DIR="$cases_dir" \
  node --test --test-force-exit --test-concurrency=1 --test-reporter=spec "${cases[@]}"
rc=$?
if [ $rc -ne 0 ]; then echo "--- server log (last 80 lines) ---"; tail -80 "$log"; fi

# 5. The secret canary: stop the server (so everything it keeps is flushed),
# then look for the canary in its log, its state dir, the logs and state of
# the servers the cases started, and every byte the SDK received. This assertion fails the test on its own, whatever the cases did.
cleanup
leaks=0
recorded="$(find "$wire" -type f | wc -l)"
if [ "$recorded" -eq 0 ]; then
  echo "not ok - secret canary: the recording fetch captured no response, so the scan proves nothing"
  leaks=1
fi
while IFS= read -r -d '' f; do
  case "$f" in
    "$log") where="server log" ;; "$wire"/*) where="SDK wire" ;;
    "$cases_dir"/*) where="files of a case's own server" ;; *) where="state dir" ;;
  esac
  offset="$(grep -boF "$canary" "$f" | head -1 | cut -d: -f1)"
  echo "not ok - secret canary found in the $where: ${f#$work/} (byte offset $offset)"
  leaks=1
done < <(grep -rlFZ -- "$canary" "$log" "$state" "$cases_dir" "$wire" 2>/dev/null)
if [ $leaks -eq 0 ]; then
  echo "ok - secret canary absent from the server log, $(find "$state" "$cases_dir" -type f | wc -l) state and case file(s) and $recorded recorded response(s)"
else
  [ "${ORACLE_KEEP:-0}" = 1 ] || echo "oracle: set ORACLE_KEEP=1 to keep $work for inspection"
  [ $rc -eq 0 ] && rc=1
fi

# 6. The recorded answers against the document of the same server: its
# `openapi` command, same plugins, environment and group, its own agents
# state dir (the server's is scanned above and stays as the server left it).
# Without the openapi suite's validator (tests/openapi/install.sh) the
# check is skipped, except under CI=true, where that fails.
"$repo/tests/openapi/install.sh" >/dev/null
case $? in
  0) if ! env "${server_env[@]}" ABX_AGENTS_STATE_DIR="$work/openapi-state" \
         node "$repo/tests/openapi/wire_check.mjs" --server "$server" "${config[@]}" --wire "$wire"; then
       echo "not ok - wire check: the answers above do not match the server's OpenAPI document"
       [ "${ORACLE_KEEP:-0}" = 1 ] || echo "oracle: set ORACLE_KEEP=1 to keep the recorded wire"
       [ $rc -eq 0 ] && rc=1
     fi ;;
  77) echo "oracle: wire check skipped: no openapi suite npm packages (tests/openapi/install.sh)" ;;
  *) echo "not ok - wire check: tests/openapi/install.sh failed (CI requires its packages)"
     [ $rc -eq 0 ] && rc=1 ;;
esac
exit $rc
