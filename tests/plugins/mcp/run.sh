#!/usr/bin/env bash
# Runs one mcp case file against a fresh agent-sandbox-server.
#
#   run.sh --server BIN --plugin-dir DIR --manifest FILE --policy FILE CASE.test.mjs
#
# The server listens on 127.0.0.1 on a free port with the policy FILE (which
# turns the opt-in mcp group on and names two identities, admin and reader,
# whose tokens come from MCP_ADMIN_TOKEN and MCP_READER_TOKEN, never argv).
# The case gets MCP_BASE_URL, both tokens and MCP_BASE_DIR (the server's
# base dir). Exit codes: 0 pass, 1 fail, 77 skip (node/npm or the pinned
# packages unavailable and CI is not set). MCP_KEEP=1 keeps the work dir.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
server="" plugin_dir="" manifest="" policy="" case_file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --plugin-dir) plugin_dir="$2"; shift 2 ;;
    --manifest) manifest="$2"; shift 2 ;;
    --policy) policy="$2"; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) case_file="$1"; shift ;;
  esac
done
[ -x "$server" ] || { echo "mcp: --server BIN must be executable (got '$server')" >&2; exit 1; }
[ -f "$case_file" ] || { echo "mcp: no such case file: '$case_file'" >&2; exit 1; }

"$here/install.sh" || exit $?

work="$(mktemp -d "${TMPDIR:-/tmp}/abx-mcp-XXXXXX")"
log="$work/server.log"
mkdir -p "$work/base" "$work/home" "$work/state"
random_token() { echo "$1-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"; }
# shellcheck source=../../support/server_run.sh
. "$repo/tests/support/server_run.sh"
finish() {
  abx_server_stop
  if [ "${MCP_KEEP:-0}" = 1 ]; then echo "mcp: work dir kept: $work"; else rm -rf "$work"; fi
}
trap finish EXIT
trap 'exit 1' INT TERM

export HOME="$work/home"
export ABX_SERVER_BASE_DIR="$work/base" ABX_SERVER_STATE_DIR="$work/state"
MCP_ADMIN_TOKEN="$(random_token admin)" MCP_READER_TOKEN="$(random_token reader)"
export MCP_ADMIN_TOKEN MCP_READER_TOKEN
abx_server_start mcp "$log" "$server" serve --host 127.0.0.1 --port 0 --pty-port 0 \
  --plugins "$manifest" --plugin-dir "$plugin_dir" --policy "$policy"
port=$abx_server_port

cd "$here"
MCP_BASE_URL="http://127.0.0.1:$port" MCP_BASE_DIR="$work/base" \
  node --test --test-force-exit --test-reporter=spec "$case_file"
rc=$?
if [ $rc -ne 0 ]; then echo "--- server log (last 60 lines) ---"; tail -60 "$log"; fi
exit $rc
