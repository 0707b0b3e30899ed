#!/usr/bin/env bash
# Idle footprint of our server: VmRSS (and RssAnon / RssFile / RssShmem),
# the thread count and start-to-first-/ready-200, for the kernel alone (an
# empty manifest: the baseline) and for every plugin of the manifest, with
# the default groups and with the opt-in groups turned on. RSS is read
# 0.5 s after the first 200 of each of BENCH_RSS_RUNS fresh starts (the
# median is reported) and split by mapping kind from /proc/<pid>/smaps:
# the server binary, the SDK, the plugins, the system libraries, the brk
# heap, the other malloc arenas, the thread stacks and other anonymous
# memory. Loopback only; informational: it fails only if a server does not
# start.
#
# Environment:
#   ABX_SERVER_BIN   our server (default <repo>/build/bin/agent-sandbox-server)
#   ABX_PLUGINS      the manifest (default <repo>/config/plugins.yaml)
#   BENCH_STARTS     spawns for the start-to-first-200 median (default 5)
#   BENCH_RSS_RUNS   fresh starts whose idle RSS is measured (default 5)
#   BENCH_OPT_IN     the opt-in groups turned on in the last row
#                    (default dev_tools,browser,agents)
#   BENCH_CACHE      scratch space (default <repo>/build/bench-cache)
#   PYTHON           Python 3 interpreter

set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)

ABX_SERVER_BIN=${ABX_SERVER_BIN:-$ROOT/build/bin/agent-sandbox-server}
ABX_PLUGINS=${ABX_PLUGINS:-$ROOT/config/plugins.yaml}
BENCH_STARTS=${BENCH_STARTS:-5}
BENCH_RSS_RUNS=${BENCH_RSS_RUNS:-5}
BENCH_OPT_IN=${BENCH_OPT_IN:-dev_tools,browser,agents}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/build/bench-cache}
PYTHON=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)}
[ -n "$PYTHON" ] && [ -x "$PYTHON" ] || PYTHON=python3

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

[ -x "$ABX_SERVER_BIN" ] || die "server binary '$ABX_SERVER_BIN' not found (set ABX_SERVER_BIN)"
[ -f "$ABX_PLUGINS" ] || die "manifest '$ABX_PLUGINS' not found (set ABX_PLUGINS)"
case "$BENCH_STARTS$BENCH_RSS_RUNS" in *[!0-9]*) die "BENCH_STARTS and BENCH_RSS_RUNS are counts" ;; esac
[ "$BENCH_STARTS" -ge 1 ] && [ "$BENCH_RSS_RUNS" -ge 1 ] || die "counts must be >= 1"
mkdir -p "$BENCH_CACHE" || die "cannot create $BENCH_CACHE"
WORK=$(mktemp -d "$BENCH_CACHE/idle.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$WORK"' EXIT
printf 'plugins: []\n' >"$WORK/empty.yaml"

# The measuring is done by footprint.py: it spawns each server itself, so
# every process it starts is stopped by it (SIGTERM, then SIGKILL).
cat >"$WORK/footprint.py" <<'PY'
import os, re, signal, socket, statistics, subprocess, sys, time

server, plugin_dir, work, starts, rss_runs = sys.argv[1:6]
starts, rss_runs = int(starts), int(rss_runs)
rows = [tuple(r.split("|", 2)) for r in sys.argv[6:]]  # name|manifest|enabled groups

def freeport():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def ready(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False

def spawn(manifest, groups, n):
    port, state = freeport(), os.path.join(work, "state%d" % n)
    os.makedirs(state, exist_ok=True)
    env = dict(os.environ, ABX_SERVER_TOKEN="bench-token-0123456789abcdef",
               ABX_SERVER_STATE_DIR=state, ABX_PTY_PORT="0")
    env.pop("ABX_SERVER_ENABLED_GROUPS", None)
    if groups:
        env["ABX_SERVER_ENABLED_GROUPS"] = groups
    log = open(os.path.join(work, "server.log"), "ab")
    t0 = time.monotonic_ns()
    proc = subprocess.Popen([server, "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--plugins", manifest], stdin=subprocess.DEVNULL, stdout=log,
                            stderr=log, env=env)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and proc.poll() is None:
        if ready(port):
            return proc, (time.monotonic_ns() - t0) / 1e6
        time.sleep(0.0001)
    stop(proc)
    sys.exit("server did not answer /ready (see %s)" % os.path.join(work, "server.log"))

def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

def status(pid):
    out = {}
    for line in open("/proc/%d/status" % pid):
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "Threads"):
            out[key] = int(value.split()[0])
    return out

def stack_pointers(pid):
    """Each blocked thread's stack pointer (/proc/<pid>/task/<tid>/syscall)."""
    sps = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            fields = open("/proc/%d/task/%s/syscall" % (pid, tid)).read().split()
            if len(fields) >= 8:
                sps.append(int(fields[-2], 16))
        except (OSError, ValueError):
            pass
    return sps

def kind(path, lo, hi, sps):
    if path == "[heap]":
        return "heap (brk)"
    if path == "[stack]":
        return "thread stacks"
    if path.startswith("["):
        return "other anonymous"
    if path.startswith("/"):
        if os.path.realpath(path) == os.path.realpath(server):
            return "server binary"
        if os.path.dirname(os.path.realpath(path)) == os.path.realpath(plugin_dir):
            return "plugins"
        if "libabx_plugin_sdk" in path:
            return "plugin SDK"
        return "system libraries"
    if any(lo <= sp < hi for sp in sps):
        return "thread stacks"
    if lo % (64 << 20) == 0:  # glibc's per-thread heaps are 64 MiB aligned
        return "malloc arenas"
    return "other anonymous"

def breakdown(pid):
    """kB by kind, and by object for the files; COW pages of a file mapping
    (relocated data, .bss) count with the file."""
    sps = stack_pointers(pid)
    kinds, objects, stacks, cur = {}, {}, 0, None
    for line in open("/proc/%d/smaps" % pid):
        m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$", line)
        if m:
            lo, hi = int(m.group(1), 16), int(m.group(2), 16)
            cur = (kind(m.group(3), lo, hi, sps), m.group(3))
        elif line.startswith("Rss:") and cur:
            kb = int(line.split()[1])
            kinds[cur[0]] = kinds.get(cur[0], 0) + kb
            if cur[1].startswith("/"):
                name = os.path.basename(cur[1])
                objects[name] = objects.get(name, 0) + kb
            if cur[0] == "thread stacks" and kb:
                stacks += 1
    return kinds, objects, stacks

def measure(name, manifest, groups):
    times = []
    for n in range(starts):
        proc, ms = spawn(manifest, groups, n)
        stop(proc)
        times.append(ms)
    runs = []
    for n in range(rss_runs):
        proc, _ = spawn(manifest, groups, n)
        time.sleep(0.5)
        try:
            runs.append((status(proc.pid), breakdown(proc.pid)))
        finally:
            stop(proc)
    runs.sort(key=lambda r: r[0]["VmRSS"])
    med = runs[len(runs) // 2]
    return dict(name=name, times=sorted(times), rss=[r[0]["VmRSS"] for r in runs],
                status=med[0], kinds=med[1][0], objects=med[1][1], stacks=med[1][2])

mib = lambda kb: "%.2f" % (kb / 1024)
results = []
for name, manifest, groups in rows:
    print("[bench] %s: %d starts, %d RSS runs" % (name, starts, rss_runs), file=sys.stderr)
    results.append(measure(name, manifest, groups))

print("\nIdle footprint (%d CPUs, %s)" % (os.cpu_count(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
print("| server | VmRSS MiB (min … max) | RssAnon | RssFile | RssShmem | threads | start-to-/ready-200 ms, median (min … max) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for r in results:
    s, t = r["status"], r["times"]
    print("| %s | %s (%s … %s) | %s | %s | %s | %d | %.1f (%.1f … %.1f) |" % (
        r["name"], mib(s["VmRSS"]), mib(r["rss"][0]), mib(r["rss"][-1]), mib(s["RssAnon"]),
        mib(s["RssFile"]), mib(s["RssShmem"]), s["Threads"], statistics.median(t), t[0], t[-1]))

order = ["server binary", "plugin SDK", "plugins", "system libraries", "heap (brk)",
         "malloc arenas", "thread stacks", "other anonymous"]
print("\nBy mapping kind, MiB (the median run of each row; thread stacks: mappings with a stack)")
print("| kind | " + " | ".join(r["name"] for r in results) + " |")
print("|---|" + "---:|" * len(results))
for k in order:
    cells = [mib(r["kinds"].get(k, 0)) + (" (%d)" % r["stacks"] if k == "thread stacks" else "")
             for r in results]
    print("| %s | %s |" % (k, " | ".join(cells)))

last = results[-1]
print("\nBy object, KiB (%s, median run; files only, 64 KiB and up)" % last["name"])
for name, kb in sorted(last["objects"].items(), key=lambda x: -x[1]):
    if kb >= 64:
        print("  %6d  %s" % (kb, name))

base = results[0]["status"]["VmRSS"]
for r in results[1:]:
    print("%s: VmRSS %s MiB = %.2f x the kernel alone (+%s MiB)  (target < 10 MiB)  start %.1f ms (target < 30)" % (
        r["name"], mib(r["status"]["VmRSS"]), r["status"]["VmRSS"] / base,
        mib(r["status"]["VmRSS"] - base), statistics.median(r["times"])))
PY

PLUGIN_DIR=$(cd "$(dirname "$ABX_SERVER_BIN")/../lib/agent-sandbox/plugins" 2>/dev/null && pwd)
PLUGIN_DIR=${ABX_PLUGIN_DIR:-$PLUGIN_DIR}
log "server $ABX_SERVER_BIN, manifest $ABX_PLUGINS, plugin dir ${PLUGIN_DIR:-?}"
"$PYTHON" "$WORK/footprint.py" "$ABX_SERVER_BIN" "${PLUGIN_DIR:-/nonexistent}" "$WORK" \
  "$BENCH_STARTS" "$BENCH_RSS_RUNS" \
  "kernel alone (no plugins)|$WORK/empty.yaml|" \
  "all plugins, default groups|$ABX_PLUGINS|" \
  "all plugins, $BENCH_OPT_IN on|$ABX_PLUGINS|$BENCH_OPT_IN"
