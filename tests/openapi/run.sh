#!/usr/bin/env bash
# Runs one openapi case file against a fresh agent-sandbox-server.
#
#   run.sh --server BIN --plugin-dir DIR --manifest FILE [--policy FILE] CASE.test.mjs
#
# The server listens on 127.0.0.1 on a free port, with every opt-in group
# (agents, dev_tools, browser, mcp) turned on by ABX_SERVER_ENABLED_GROUPS and the
# oracle's fake agents behind the agents group, so the document has the
# whole surface; --policy adds a policy file (restrictive.yaml). Tokens go
# through the environment, never argv. The case gets OPENAPI_BASE_URL,
# OPENAPI_TOKEN, OPENAPI_SERVER and OPENAPI_CLI_ARGS (the `openapi` command's
# arguments for the same configuration) and OPENAPI_WORK_DIR, whose wire/
# receives every answer for the closed-schema check.
# Exit codes: 0 pass, 1 fail, 77 skip (node/npm or the pinned packages
# unavailable and CI is not set; under CI=true that is a failure).
# OPENAPI_KEEP=1 keeps the work dir (server log, wire/).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
server="" plugin_dir="" manifest="" policy="" case_file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --plugin-dir) plugin_dir="$2"; shift 2 ;;
    --manifest) manifest="$2"; shift 2 ;;
    --policy) policy="$2"; shift 2 ;;
    -h|--help) sed -n 2,17p "$0"; exit 0 ;;
    *) case_file="$1"; shift ;;
  esac
done
[ -x "$server" ] || { echo "openapi: --server BIN must be executable (got '$server')" >&2; exit 1; }
[ -f "$case_file" ] || { echo "openapi: no such case file: '$case_file'" >&2; exit 1; }

"$here/install.sh" || exit $?

work="$(mktemp -d "${TMPDIR:-/tmp}/abx-openapi-XXXXXX")"
log="$work/server.log"
mkdir -p "$work/base" "$work/home" "$work/state" "$work/agents" "$work/workspace" "$work/wire"
random_token() { echo "$1-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"; }
# shellcheck source=../support/server_run.sh
. "$repo/tests/support/server_run.sh"
finish() {
  abx_server_stop
  if [ "${OPENAPI_KEEP:-0}" = 1 ]; then echo "openapi: work dir kept: $work"; else rm -rf "$work"; fi
}
trap finish EXIT
trap 'exit 1' INT TERM

config=(--plugins "$manifest" --plugin-dir "$plugin_dir")
[ -n "$policy" ] && config+=(--policy "$policy")
export HOME="$work/home" PATH="$repo/fake_agents:$PATH"
export ABX_SERVER_ENABLED_GROUPS=agents,dev_tools,browser,mcp
export ABX_SERVER_BASE_DIR="$work/base" ABX_SERVER_STATE_DIR="$work/state"
# The oracle's agents (fake CLIs), with the variables its agents.yaml names.
export ABX_AGENTS_CONFIG="$repo/tests/oracle/agents.yaml" ABX_AGENTS_STATE_DIR="$work/agents"
ORACLE_CANARY="$(random_token canary)" ORACLE_WORKSPACE="$work/workspace"
export ORACLE_CANARY ORACLE_WORKSPACE
if [ -n "$policy" ]; then
  OPENAPI_ADMIN_TOKEN="$(random_token admin)" OPENAPI_READER_TOKEN="$(random_token reader)"
  export OPENAPI_ADMIN_TOKEN OPENAPI_READER_TOKEN
  export OPENAPI_TOKEN="$OPENAPI_ADMIN_TOKEN"
else
  ABX_SERVER_TOKEN="$(random_token openapi)"
  export ABX_SERVER_TOKEN OPENAPI_TOKEN="$ABX_SERVER_TOKEN"
fi
abx_server_start openapi "$log" "$server" serve --host 127.0.0.1 --port 0 --pty-port 0 "${config[@]}"
port=$abx_server_port

cd "$here"
OPENAPI_BASE_URL="http://127.0.0.1:$port" OPENAPI_SERVER="$server" OPENAPI_WORK_DIR="$work" \
  OPENAPI_CLI_ARGS="$(printf '%s\n' "${config[@]}")" \
  node --test --test-force-exit --test-reporter=spec "$case_file"
rc=$?
if [ $rc -ne 0 ]; then echo "--- server log (last 60 lines) ---"; tail -60 "$log"; fi
exit $rc
