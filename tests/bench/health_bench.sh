#!/usr/bin/env bash
# GET /health benchmark: our server vs rivet sandbox-agent 0.4.2 vs a Python
# stdlib ThreadingHTTPServer, side by side in one run, loopback only, with
# the machine's floor (abx_floor_server: one epoll loop answering a fixed 200)
# as the reference for latency.
#
# For each server: wrk req/s and p99 latency (-t<CPUs-1> -c32 --latency), idle RSS
# (VmRSS after start, before load), and start-to-first-200 (median of
# BENCH_STARTS spawns). Prints a table and the ratios the design targets.
#
# Environment:
#   BENCH_SECONDS   wrk duration per server (default 10)
#   BENCH_WARMUP    wrk warm-up seconds before each measurement (default 1, 0 = none)
#   BENCH_STARTS    spawns for the start-to-first-200 median (default 5)
#   ABX_SERVER_BIN  our server binary (default <repo>/build/bin/agent-sandbox-server);
#                   if missing, our server is skipped with a message
#   ABX_FLOOR_SERVER  the floor server (default abx_floor_server beside ABX_SERVER_BIN;
#                   skipped with a message when missing)
#   BENCH_WRK_THREADS  wrk threads (default: the CPUs less one, at least 1)
#   BENCH_CACHE     cache dir for the npm install (default <repo>/build/bench-cache)
#   RIVET_BIN       use this sandbox-agent binary instead of installing the npm package
#   PYTHON          Python 3 interpreter (default: sys.executable of python3)
#
# Exit status: 0 unless a server fails to start (or a required tool/peer is
# missing). The figures are informational; this is not a pass/fail test.

set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)

BENCH_SECONDS=${BENCH_SECONDS:-10}
BENCH_WARMUP=${BENCH_WARMUP:-1}
BENCH_STARTS=${BENCH_STARTS:-5}
# The load generator takes every CPU but one, so the server under test always
# has a CPU of its own: with wrk on every CPU, the server's loop and wrk's
# threads take turns and the tail is the scheduler's (see docs/performance.md).
WRK_THREADS=${BENCH_WRK_THREADS:-$(( $(nproc) > 1 ? $(nproc) - 1 : 1 ))}
WRK_CONNS=32
ABX_SERVER_BIN=${ABX_SERVER_BIN:-$ROOT/build/bin/agent-sandbox-server}
ABX_FLOOR_SERVER=${ABX_FLOOR_SERVER:-$(dirname "$ABX_SERVER_BIN")/abx_floor_server}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/build/bench-cache}
RIVET_PKG=@sandbox-agent/cli-linux-x64
RIVET_VERSION=0.4.2
RIVET_BIN=${RIVET_BIN:-}
TOKEN=bench-token-0123456789abcdef
HOST=127.0.0.1

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

# The real interpreter, not a version-manager shim (a pyenv shim adds ~300 ms
# to every spawn, which would be charged to the Python server's start time).
PYTHON=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)}
[ -n "$PYTHON" ] && [ -x "$PYTHON" ] || PYTHON=python3
for tool in wrk "$PYTHON" curl; do
  command -v "$tool" >/dev/null 2>&1 || die "required tool '$tool' not found"
done
case "$BENCH_SECONDS" in ''|*[!0-9]*) die "BENCH_SECONDS must be a positive integer" ;; esac
case "$BENCH_WARMUP" in ''|*[!0-9]*) die "BENCH_WARMUP must be an integer" ;; esac
case "$BENCH_STARTS" in ''|*[!0-9]*) die "BENCH_STARTS must be a positive integer" ;; esac
case "$WRK_THREADS" in ''|*[!0-9]*|0) die "BENCH_WRK_THREADS must be a positive integer" ;; esac
[ "$BENCH_SECONDS" -ge 1 ] || die "BENCH_SECONDS must be >= 1"
[ "$BENCH_STARTS" -ge 1 ] || die "BENCH_STARTS must be >= 1"

mkdir -p "$BENCH_CACHE" || die "cannot create $BENCH_CACHE"
WORK=$(mktemp -d "$BENCH_CACHE/run.XXXXXX") || die "mktemp failed"

# ---------------------------------------------------------------- cleanup --
PIDS=()
stop_pid() {
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 30; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}
# shellcheck disable=SC2317  # invoked via trap
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  PIDS=()
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------ probe helper --
# freeport | wait | starts. Raw sockets, so the probe itself costs ~nothing.
cat >"$WORK/probe.py" <<'PY'
import os, signal, socket, subprocess, sys, time

def freeport():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p

def probe(port, path, header):
    req = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    if header:
        req += header + "\r\n"
    req += "Connection: close\r\n\r\n"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(req.encode())
            data = s.recv(64)
            return data.startswith(b"HTTP/1.1 200") or data.startswith(b"HTTP/1.0 200")
    except OSError:
        return False

def wait_ready(port, path, header, deadline, proc=None, pid=None):
    """Tight loop until a 200; returns monotonic ns of success or None."""
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return None
        if pid is not None:
            try:
                os.kill(pid, 0)
            except OSError:
                return None
        if probe(port, path, header):
            return time.monotonic_ns()
        time.sleep(0.0001)
    return None

def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(3)

def main():
    cmd = sys.argv[1]
    if cmd == "freeport":
        print(freeport())
        return 0
    if cmd == "wait":  # wait PORT PATH HEADER TIMEOUT PID
        port, path, header, timeout, pid = sys.argv[2:7]
        t = wait_ready(int(port), path, header, time.monotonic() + float(timeout), pid=int(pid))
        return 0 if t else 1
    if cmd == "starts":  # starts RUNS PATH HEADER TIMEOUT LOG -- argv with {port} {port2}
        runs, path, header, timeout, logf = sys.argv[2:7]
        assert sys.argv[7] == "--"
        argv_t = sys.argv[8:]
        samples = []
        for _ in range(int(runs)):
            port, port2 = freeport(), freeport()
            argv = [a.replace("{port}", str(port)).replace("{port2}", str(port2)) for a in argv_t]
            with open(logf, "ab") as lf:
                t0 = time.monotonic_ns()
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=lf, stderr=lf)
                t1 = wait_ready(port, path, header, time.monotonic() + float(timeout), proc=proc)
                stop(proc)
            if t1 is None:
                print(f"start failed (exit={proc.returncode})", file=sys.stderr)
                return 1
            samples.append((t1 - t0) / 1e6)
        samples.sort()
        print(" ".join(f"{s:.1f}" for s in samples), file=sys.stderr)
        print(f"{samples[len(samples) // 2]:.1f}")
        return 0
    return 2

sys.exit(main())
PY
PROBE=("$PYTHON" "$WORK/probe.py")

freeport() { "${PROBE[@]}" freeport; }

# ------------------------------------------------------------ rivet binary --
find_rivet() {
  local d="$BENCH_CACHE/npm/node_modules/$RIVET_PKG"
  [ -d "$d" ] || return 1
  find "$d" -type f -name 'sandbox-agent*' -path '*/bin/*' 2>/dev/null | head -n1
}
if [ -z "$RIVET_BIN" ]; then
  RIVET_BIN=$(find_rivet || true)
  if [ -z "$RIVET_BIN" ]; then
    command -v npm >/dev/null 2>&1 || die "npm not found and RIVET_BIN not set"
    log "installing $RIVET_PKG@$RIVET_VERSION into $BENCH_CACHE/npm"
    mkdir -p "$BENCH_CACHE/npm"
    timeout 300 npm install --no-save --no-audit --no-fund --loglevel=error \
      --prefix "$BENCH_CACHE/npm" "$RIVET_PKG@$RIVET_VERSION" >&2 \
      || die "npm install $RIVET_PKG@$RIVET_VERSION failed"
    RIVET_BIN=$(find_rivet || true)
    [ -n "$RIVET_BIN" ] || die "no sandbox-agent binary inside $RIVET_PKG"
  fi
fi
chmod +x "$RIVET_BIN" 2>/dev/null || true  # the package's postinstall does this
RIVET_VER=$(timeout 10 "$RIVET_BIN" --version 2>/dev/null | head -n1)
log "rivet binary: $RIVET_BIN (${RIVET_VER:-unknown version})"
# sandbox-agent writes logs under $XDG_DATA_HOME; keep them out of $HOME.
RIVET_HOME="$WORK/rivet-home"
mkdir -p "$RIVET_HOME"

# ------------------------------------------------------------ server table --
# add_server NAME HEALTH_PATH PROBE_HEADER ARGV... ({port}, {port2} are
# substituted per spawn). ARGV is stored joined by \x1f so paths may hold spaces.
US=$'\x1f'
NAMES=()
declare -A ARGV PATHS HDR
add_server() {
  local name=$1 path=$2 hdr=$3; shift 3
  local IFS=$US
  NAMES+=("$name"); PATHS[$name]=$path; HDR[$name]=$hdr; ARGV[$name]="$*"
}

HAVE_OURS=0
if [ -x "$ABX_SERVER_BIN" ]; then
  HAVE_OURS=1
  mkdir -p "$WORK/ours-state"
  add_server ours /health "X-Access-Token: $TOKEN" \
    env "ABX_SERVER_TOKEN=$TOKEN" "ABX_PTY_PORT={port2}" "ABX_AGENTS_STATE_DIR=$WORK/ours-state" \
    "$ABX_SERVER_BIN" serve --host "$HOST" --port "{port}"
else
  log "SKIP ours: server binary '$ABX_SERVER_BIN' not found (set ABX_SERVER_BIN)"
fi
add_server rivet /v1/health "" \
  env "HOME=$RIVET_HOME" "XDG_DATA_HOME=$RIVET_HOME/.local/share" \
  "$RIVET_BIN" server --host "$HOST" --port "{port}" --no-token --no-telemetry
add_server python /health "" \
  env "$PYTHON" "$SCRIPT_DIR/python_health_server.py" --host "$HOST" --port "{port}"
if [ -x "$ABX_FLOOR_SERVER" ]; then
  add_server floor /health "" "$ABX_FLOOR_SERVER" "{port}"
else
  log "SKIP floor: '$ABX_FLOOR_SERVER' not found (set ABX_FLOOR_SERVER)"
fi

# ------------------------------------------------------------------- runs --
to_ms() {  # wrk latency value like 812.00us / 1.23ms / 2.00s -> ms
  awk -v v="$1" 'BEGIN {
    n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "us") n /= 1000; else if (u == "s") n *= 1000;
    else if (u == "m") n *= 60000; else if (u == "h") n *= 3600000;
    printf "%.3f", n }'
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }

declare -A RPS P99 P50 RSS RSS_LOAD START ERRS
FAILED=()

run_one() {
  local name=$1 path=${PATHS[$1]} hdr=${HDR[$1]} port port2 pid argv_s logf out
  local -a argv wrk_hdr=()
  [ -n "$hdr" ] && wrk_hdr=(-H "$hdr")
  logf="$WORK/$name.log"

  log "$name: start-to-first-200 x$BENCH_STARTS"
  IFS=$US read -r -a argv <<<"${ARGV[$name]}"
  if ! START[$name]=$("${PROBE[@]}" starts "$BENCH_STARTS" "$path" "$hdr" 15 "$logf" -- "${argv[@]}"); then
    log "$name: failed to start; log tail:"; tail -n 20 "$logf" >&2
    FAILED+=("$name"); return 1
  fi

  port=$(freeport); port2=$(freeport)
  argv_s=${ARGV[$name]//\{port\}/$port}
  argv_s=${argv_s//\{port2\}/$port2}
  IFS=$US read -r -a argv <<<"$argv_s"
  "${argv[@]}" </dev/null >>"$logf" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  if ! "${PROBE[@]}" wait "$port" "$path" "$hdr" 15 "$pid"; then
    log "$name: failed to answer $path on port $port; log tail:"; tail -n 20 "$logf" >&2
    stop_pid "$pid"; FAILED+=("$name"); return 1
  fi
  sleep 0.5
  RSS[$name]=$(rss_kib "$pid")
  log "$name: pid $pid port $port: $(curl -s -m 5 "${wrk_hdr[@]}" -w ' [%{http_code}]' "http://$HOST:$port$path")"

  local url="http://$HOST:$port$path"
  if [ "$BENCH_WARMUP" -gt 0 ]; then
    timeout $((BENCH_WARMUP + 30)) wrk -t"$WRK_THREADS" -c"$WRK_CONNS" -d"${BENCH_WARMUP}s" \
      "${wrk_hdr[@]}" "$url" >/dev/null 2>&1
  fi
  log "$name: wrk -t$WRK_THREADS -c$WRK_CONNS -d${BENCH_SECONDS}s --latency $url"
  out=$(timeout $((BENCH_SECONDS + 60)) wrk -t"$WRK_THREADS" -c"$WRK_CONNS" -d"${BENCH_SECONDS}s" \
    --latency "${wrk_hdr[@]}" "$url" 2>&1)
  printf '%s\n' "$out" >"$WORK/$name.wrk"
  printf '%s\n' "$out" | sed 's/^/    /' >&2
  RPS[$name]=$(printf '%s\n' "$out" | awk '/^Requests\/sec:/ {print $2}')
  P50[$name]=$(to_ms "$(printf '%s\n' "$out" | awk '$1 == "50%" {print $2}')")
  P99[$name]=$(to_ms "$(printf '%s\n' "$out" | awk '$1 == "99%" {print $2}')")
  ERRS[$name]=$(printf '%s\n' "$out" | awk '
    /Non-2xx or 3xx responses:/ {e += $NF}
    /Socket errors:/ {gsub(/,/, ""); e += $4 + $6 + $8 + $10}
    END {print e + 0}')
  RSS_LOAD[$name]=$(rss_kib "$pid")
  stop_pid "$pid"
  return 0
}

for name in "${NAMES[@]}"; do
  run_one "$name" || true
done

# ------------------------------------------------------------------ report --
mib() { [ -n "${1:-}" ] && awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}' || printf 'n/a'; }
ratio() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2f", a / b }'; }

echo
echo "GET /health  wrk -t$WRK_THREADS -c$WRK_CONNS -d${BENCH_SECONDS}s --latency  ($(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
printf '| %-7s | %10s | %8s | %8s | %7s | %13s | %13s | %17s |\n' \
  server 'req/s' 'p50 ms' 'p99 ms' errors 'idle RSS MiB' 'RSS load MiB' 'start-to-200 ms'
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ---------  ------------ ---------- ---------- --------- --------------- --------------- -------------------
[ "$HAVE_OURS" = 1 ] || printf '| %-7s | %10s | %8s | %8s | %7s | %13s | %13s | %17s |\n' ours pending pending pending - pending pending pending
for name in "${NAMES[@]}"; do
  printf '| %-7s | %10s | %8s | %8s | %7s | %13s | %13s | %17s |\n' "$name" \
    "${RPS[$name]:-failed}" "${P50[$name]:-n/a}" "${P99[$name]:-n/a}" "${ERRS[$name]:-n/a}" \
    "$(mib "${RSS[$name]:-}")" "$(mib "${RSS_LOAD[$name]:-}")" "${START[$name]:-n/a}"
done
echo
echo "ratios (req/s):  ours/rivet = $(ratio "${RPS[ours]:-}" "${RPS[rivet]:-}")  (target >= 1.2)" \
     "  ours/python = $(ratio "${RPS[ours]:-}" "${RPS[python]:-}")  (target >= 20)" \
     "  rivet/python = $(ratio "${RPS[rivet]:-}" "${RPS[python]:-}")"
echo "p99 ms:          ours = ${P99[ours]:-n/a} (target < 2)  rivet = ${P99[rivet]:-n/a}  python = ${P99[python]:-n/a}" \
     "  floor = ${P99[floor]:-n/a}  ours/rivet = $(ratio "${P99[ours]:-}" "${P99[rivet]:-}")" \
     "  ours/floor = $(ratio "${P99[ours]:-}" "${P99[floor]:-}")"
echo "ours:            idle RSS = $(mib "${RSS[ours]:-}") MiB (target < 10)  start-to-first-200 = ${START[ours]:-n/a} ms (target < 30)"
for name in "${NAMES[@]}"; do
  if [ "${ERRS[$name]:-0}" != 0 ]; then
    echo "WARNING: $name had ${ERRS[$name]} non-2xx/socket errors under load (see wrk output above)"
  fi
done

if [ "${#FAILED[@]}" -gt 0 ]; then
  echo "FAILED to start: ${FAILED[*]}"
  exit 1
fi
exit 0
