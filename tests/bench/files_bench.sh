#!/usr/bin/env bash
# File streaming benchmark: POST /files/upload-stream and
# GET /files/download-stream of one random file through our server on
# 127.0.0.1 with curl, against the floor the wire's base64 sets: coreutils
# `base64` encoding and decoding the same file, in the same run.
#
# For each direction: wall time and throughput (MB/s of file bytes, 1 MB =
# 10^6 bytes), the server's peak RSS (VmHWM of a server started fresh for
# that transfer, plus the largest VmRSS sampled every 20 ms), and the ratio
# ours / base64. The round trip is checked (sha256 of the downloaded bytes).
#
# Environment:
#   BENCH_FILE_MB   file size in MiB (default 256; CTest uses 64)
#   ABX_SERVER_BIN  our server binary (default <repo>/build/bin/agent-sandbox-server)
#   BENCH_CACHE     scratch space (default <repo>/build/bench-cache); needs ~4x the file size
#
# Exit status: 0 unless the server fails to start or a transfer fails or
# the round trip does not match. The figures are informational.

set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
BENCH_FILE_MB=${BENCH_FILE_MB:-256}
ABX_SERVER_BIN=${ABX_SERVER_BIN:-$ROOT/build/bin/agent-sandbox-server}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/build/bench-cache}
HOST=127.0.0.1

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

for tool in curl base64 sha256sum awk sed; do
  command -v "$tool" >/dev/null 2>&1 || die "required tool '$tool' not found"
done
case "$BENCH_FILE_MB" in ''|*[!0-9]*|0) die "BENCH_FILE_MB must be a positive integer" ;; esac
[ -x "$ABX_SERVER_BIN" ] || die "server binary '$ABX_SERVER_BIN' not found (set ABX_SERVER_BIN)"

mkdir -p "$BENCH_CACHE" || die "cannot create $BENCH_CACHE"
WORK=$(mktemp -d "$BENCH_CACHE/files.XXXXXX") || die "mktemp failed"
BASE="$WORK/base"
mkdir -p "$BASE"

SERVER_PID=""
SAMPLER_PID=""
stop_server() {
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null && wait "$SAMPLER_PID" 2>/dev/null
  SAMPLER_PID=""
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  SERVER_PID=""
}
# shellcheck disable=SC2317  # invoked via trap
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b - a}'; }
mbps() { awk -v bytes="$1" -v s="$2" 'BEGIN { if (s + 0 == 0) print "n/a"; else printf "%.1f", bytes / 1e6 / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.2f", a / b }'; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
status_kib() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status" 2>/dev/null; }

# ------------------------------------------------------------------ input --
SIZE=$((BENCH_FILE_MB * 1024 * 1024))
INPUT="$WORK/input.bin"
log "writing $BENCH_FILE_MB MiB of random bytes"
head -c "$SIZE" /dev/urandom >"$INPUT" || die "cannot write $INPUT"
INPUT_SHA=$(sha256sum "$INPUT" | cut -d' ' -f1)
BODY="$WORK/upload.json"
{ printf '{"path":"upload.bin","content_base64":"'; base64 -w0 "$INPUT"; printf '"}'; } >"$BODY"

# ------------------------------------------------------------- the floor --
# Warm the page cache, then time coreutils over the same bytes, file to file.
cat "$INPUT" >/dev/null
t0=$(now); base64 -w0 "$INPUT" >"$WORK/floor.b64"; t1=$(now)
ENC_S=$(elapsed "$t0" "$t1")
t0=$(now); base64 -d "$WORK/floor.b64" >"$WORK/floor.bin"; t1=$(now)
DEC_S=$(elapsed "$t0" "$t1")
cmp -s "$INPUT" "$WORK/floor.bin" || die "coreutils base64 round trip differs"
rm -f "$WORK/floor.b64" "$WORK/floor.bin"

# ---------------------------------------------------------------- server --
cat >"$WORK/plugins.yaml" <<'YAML'
plugins:
  - name: files
    file: abx_files.so
    id: abx.files
YAML

PORT=""
start_server() {
  local logf="$WORK/server.log" i
  : >"$logf"
  ABX_SERVER_BASE_DIR="$BASE" ABX_AGENTS_STATE_DIR="$WORK/state" \
    ABX_MAX_UPLOAD_SIZE=$((SIZE + 1)) \
    "$ABX_SERVER_BIN" serve --host "$HOST" --port 0 --pty-port 0 --plugins "$WORK/plugins.yaml" \
    >"$logf" 2>&1 </dev/null &
  SERVER_PID=$!
  for ((i = 0; i < 200; i++)); do
    PORT=$(sed -n 's/^listening on [0-9.]*:\([0-9]*\)$/\1/p' "$logf" | head -n1)
    [ -n "$PORT" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$PORT" ]; then
    log "server did not start; log:"; cat "$logf" >&2
    die "server start failed"
  fi
  # Largest VmRSS seen while the transfer runs (VmHWM is the exact peak).
  ( peak=0
    while kill -0 "$SERVER_PID" 2>/dev/null; do
      r=$(status_kib "$SERVER_PID" VmRSS); [ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
      echo "$peak" >"$WORK/rss.peak"
      sleep 0.02
    done ) &
  SAMPLER_PID=$!
}

# Runs curl; prints "http_code seconds".
transfer() { curl -s -S -o "$1" -w '%{http_code} %{time_total}' "${@:2}"; }

declare -A SECS HWM SAMPLED IDLE

log "upload-stream: $BENCH_FILE_MB MiB ($(stat -c %s "$BODY") bytes of JSON)"
start_server
IDLE[up]=$(status_kib "$SERVER_PID" VmRSS)
read -r code secs < <(transfer "$WORK/up.out" -H 'Content-Type: application/json' -H 'Expect:' \
  --data-binary @"$BODY" "http://$HOST:$PORT/files/upload-stream")
[ "$code" = 200 ] || { cat "$WORK/up.out" >&2; die "upload-stream answered $code"; }
SECS[up]=$secs
HWM[up]=$(status_kib "$SERVER_PID" VmHWM)
sleep 0.05; SAMPLED[up]=$(cat "$WORK/rss.peak" 2>/dev/null || echo 0)
stop_server
[ "$(sha256sum "$BASE/upload.bin" | cut -d' ' -f1)" = "$INPUT_SHA" ] || die "uploaded file differs"
rm -f "$BODY"

log "download-stream: $BENCH_FILE_MB MiB"
start_server
IDLE[down]=$(status_kib "$SERVER_PID" VmRSS)
read -r code secs < <(transfer "$WORK/down.json" "http://$HOST:$PORT/files/download-stream?path=upload.bin")
[ "$code" = 200 ] || { head -c 500 "$WORK/down.json" >&2; die "download-stream answered $code"; }
SECS[down]=$secs
HWM[down]=$(status_kib "$SERVER_PID" VmHWM)
sleep 0.05; SAMPLED[down]=$(cat "$WORK/rss.peak" 2>/dev/null || echo 0)
stop_server
DOWN_SHA=$(sed -e 's/^.*"content_base64":"//' -e 's/".*$//' "$WORK/down.json" | base64 -d | sha256sum | cut -d' ' -f1)
[ "$DOWN_SHA" = "$INPUT_SHA" ] || die "downloaded bytes differ"

# ---------------------------------------------------------------- report --
UP_MBS=$(mbps "$SIZE" "${SECS[up]}")
DOWN_MBS=$(mbps "$SIZE" "${SECS[down]}")
ENC_MBS=$(mbps "$SIZE" "$ENC_S")
DEC_MBS=$(mbps "$SIZE" "$DEC_S")
echo
echo "File streaming, $BENCH_FILE_MB MiB random file ($SIZE bytes), 127.0.0.1, curl  ($(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
printf '| %-36s | %8s | %8s | %14s | %18s | %13s |\n' what seconds 'MB/s' 'peak RSS MiB' 'max sampled RSS MiB' 'idle RSS MiB'
printf '|%s|%s|%s|%s|%s|%s|\n' -------------------------------------- ---------- ---------- ---------------- -------------------- ---------------
printf '| %-36s | %8s | %8s | %14s | %18s | %13s |\n' 'ours POST /files/upload-stream' "${SECS[up]}" "$UP_MBS" \
  "$(mib "${HWM[up]}")" "$(mib "${SAMPLED[up]}")" "$(mib "${IDLE[up]}")"
printf '| %-36s | %8s | %8s | %14s | %18s | %13s |\n' 'ours GET /files/download-stream' "${SECS[down]}" "$DOWN_MBS" \
  "$(mib "${HWM[down]}")" "$(mib "${SAMPLED[down]}")" "$(mib "${IDLE[down]}")"
printf '| %-36s | %8s | %8s | %14s | %18s | %13s |\n' 'coreutils base64 -d (file to file)' "$DEC_S" "$DEC_MBS" - - -
printf '| %-36s | %8s | %8s | %14s | %18s | %13s |\n' 'coreutils base64 -w0 (file to file)' "$ENC_S" "$ENC_MBS" - - -
echo
echo "ratios: upload-stream / base64 -d = $(ratio "$UP_MBS" "$DEC_MBS")  download-stream / base64 -w0 = $(ratio "$DOWN_MBS" "$ENC_MBS")  (target >= 0.5)"
echo "peak RSS: upload $(mib "${HWM[up]}") MiB, download $(mib "${HWM[down]}") MiB (target < 64)"
echo "round trip: sha256 matches ($INPUT_SHA)"
exit 0
