#!/usr/bin/env bash
# One curl call (or a few) for every route group the server has enabled:
# core, commands, files, process, system, terminal, dev tools, browser and
# agents. Groups that are off (see GET /capabilities) are skipped.
#
#   ABX_URL=http://127.0.0.1:9000 ABX_TOKEN=... bash curl.sh
#
# Each call prints its answer; the script stops at the first answer that is
# not what the example expects.
set -euo pipefail
url="${ABX_URL:-http://127.0.0.1:9000}"
url="${url%/}"
model="${ABX_MODEL:-codex}"
# token_header: the token as a header file for `curl -H @file`, so it never
# shows on a command line (visible to every user of the machine in ps).
token_header() { printf 'X-Access-Token: %s\n' "${ABX_TOKEN:-}"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# call METHOD PATH [JSON] — prints the body; fails on a status >= 400.
call() {
  local method="$1" path="$2" body="${3:-}" status
  local args=(-sS -o "$work/body" -w '%{http_code}' -X "$method")
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  status="$(curl "${args[@]}" -H @<(token_header) "$url$path")"
  printf '%s %s -> %s %s\n' "$method" "$path" "$status" "$(head -c 300 "$work/body")"
  [ "$status" -lt 400 ] || { echo "curl.sh: $method $path answered $status" >&2; exit 1; }
}
# json FIELD — a field of the last answer (node is there for the SDK examples).
json() { node -e "const v=JSON.parse(require('fs').readFileSync('$work/body','utf8'))$1;console.log(typeof v==='string'?v:JSON.stringify(v))"; }
enabled() { grep -q "\"$1\":true" "$work/groups"; }

# core: liveness (no token needed) and what this caller may do.
call GET /health
call GET /capabilities
json '.groups' > "$work/groups"
echo "groups: $(cat "$work/groups")"

if enabled commands; then
  call GET /commands
fi

if enabled file_ops; then
  call POST /upload "{\"path\":\"examples/hello.txt\",\"content_base64\":\"$(printf 'hello\n' | base64)\"}"
  call GET '/download?path=examples/hello.txt'
  [ "$(json '.content_base64' | base64 -d)" = hello ]
  call GET '/files/list?path=examples'
  call GET '/files/stat?path=examples/hello.txt'
  call POST /files/search '{"path":"examples","pattern":"*.txt"}'
  call POST /files/move '{"source":"examples/hello.txt","destination":"examples/hi.txt"}'
  call DELETE '/files?path=examples'
fi

if enabled process; then
  call POST /shell '{"command":"echo hi"}'
  [ "$(json '.stdout')" = hi ]
  # SSE: -N prints each line as it comes.
  curl -sS -N -H @<(token_header) -X POST "$url/shell/stream" -d '{"command":["sh","-c","echo one; echo two >&2"]}'
  call POST /process/start '{"command":"sleep 30"}'
  pid="$(json '.pid')"
  call GET /process/list
  call GET "/process/$pid/output?after=0"
  call POST "/process/$pid/signal" '{"signal":15}'
fi

if enabled system; then
  call GET /system/info
  call GET /env
  call GET /system/metrics
fi

if enabled terminal; then
  # A PTY session: the answer's ws_url (with a one-use ticket) is what a
  # WebSocket client connects to.
  call POST /pty/sessions '{"cols":80,"rows":24}'
  id="$(json '.session_id')"
  call GET /pty/sessions
  call POST "/pty/sessions/$id/resize" '{"cols":120,"rows":40}'
  call DELETE "/pty/sessions/$id"
fi

if enabled dev_tools; then
  call POST /code/run '{"language":"bash","code":"echo $((6*7))"}'
  [ "$(json '.stdout')" = 42 ]
fi

if enabled browser; then
  call POST /browser/navigate '{"url":"about:blank"}'
  call POST /browser/evaluate '{"script":"1 + 1"}'
  [ "$(json '.result')" = 2 ]
fi

if enabled agents; then
  # /v1 takes the token as a Bearer key too, which is what the OpenAI SDKs send.
  call GET /v1/models
  call POST /v1/responses "{\"model\":\"$model\",\"input\":\"Say hello.\"}"
  echo "reply: $(json '.output.filter(o=>o.type==="message").map(o=>o.content.map(c=>c.text).join("")).join("")')"
fi
echo "curl.sh: done"
