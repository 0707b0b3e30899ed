#!/usr/bin/env bash
# Checks an install made by build_prefix.sh: the FHS layout for PREFIX, then
# starts the installed server with no --plugins, --plugin-dir or config flag
# (it finds its plugins and its manifest relative to its own binary) and
# expects /ready 200 and every plugin of the manifest and its drop-ins
# started. Then the drop-in directory: removing a drop-in removes its group.
#
#   install_layout.sh BUILD_DIR PREFIX
set -euo pipefail
build=$1 prefix=$2
root="$build/destdir"
work=$(mktemp -d /tmp/abx-install-layout-XXXXXX)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The layout GNUInstallDirs gives each kind of prefix.
multiarch=$(gcc -print-multiarch)
case "$prefix" in
  /usr) bindir=/usr/bin libdir=/usr/lib/$multiarch confdir=/etc/agent-sandbox ;;
  /opt/*) bindir=$prefix/bin libdir=$prefix/lib confdir=/etc$prefix/agent-sandbox ;;
  *) bindir=$prefix/bin libdir=$prefix/lib confdir=$prefix/etc/agent-sandbox ;;
esac
server="$root$bindir/agent-sandbox-server"
[ -x "$server" ] || fail "no server at $bindir"
plugins=$(ls "$root$libdir/agent-sandbox/plugins" | grep -c '\.so$' || true)
[ "$plugins" -ge 13 ] || fail "$plugins plugins in $libdir/agent-sandbox/plugins"
for f in plugins.yaml commands.yaml presets/locked.yaml plugins.d/10-files.yaml; do
  [ -f "$root$confdir/$f" ] || fail "no $confdir/$f"
done
[ ! -e "$root$prefix/etc/agent-sandbox" ] || [ "$confdir" = "$prefix/etc/agent-sandbox" ] ||
  fail "config also under $prefix/etc"
[ -f "$root$libdir/cmake/AgentSandboxPluginSDK/AgentSandboxPluginSDKConfig.cmake" ] ||
  fail "no SDK package config"

# The plugins the manifest and its drop-ins name, as `plugins --json` sees them.
"$server" plugins --json > "$work/plugins.json" || fail "plugins --json: exit $?"
expected=$(cat "$root$confdir/plugins.yaml" "$root$confdir"/plugins.d/*.yaml | grep -c '^  - name:')
ok=$(grep -o '"state":"ok"' "$work/plugins.json" | wc -l)
[ "$ok" -eq "$expected" ] || { cat "$work/plugins.json"; fail "$ok of $expected plugins ok"; }

# Serves with no flag but the address: HOME and the state dir stay in $work.
start() {
  : > "$work/out.txt"
  HOME="$work" ABX_SERVER_STATE_DIR="$work/state" "$server" serve --host 127.0.0.1 --port 0 \
    --pty-port 0 > "$work/out.txt" 2> "$work/err.txt" &
  server_pid=$!
  port=""
  for _ in $(seq 1 100); do
    port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/out.txt")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$work/err.txt"; fail "the installed server did not start"; }
}
stop() { kill "$server_pid"; wait "$server_pid" || true; server_pid=""; }
status() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$1"; }

plugin_state() {
  curl -s "http://127.0.0.1:$port/capabilities" |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(" ".join(p["name"] + "=" + p["state"] for p in d["plugins"]))'
}
start
[ "$(status /ready)" = 200 ] || fail "/ready answered $(status /ready)"
loaded=$(plugin_state)
started=$(echo "$loaded" | tr ' ' '\n' | grep -c '=started$' || true)
[ "$started" -eq "$expected" ] || fail "$started of $expected plugins started: $loaded"
grep -q 'files=started' <<<"$loaded" || fail "no files plugin: $loaded"
# The plugins' OpenAPI fragments are installed beside them and found there.
curl -s "http://127.0.0.1:$port/openapi.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert "FilesStat" in d["components"]["schemas"], "no FilesStat: abx_files.openapi.json not found"
assert "ProcessRecord" in d["components"]["schemas"], "no ProcessRecord"
assert not [w for w in json.load(open(sys.argv[1]))["warnings"] if "openapi" in w], "fragment warnings"
' <(curl -s "http://127.0.0.1:$port/capabilities") || fail "GET /openapi.json lacks the installed fragments"
stop

# A drop-in removed (as removing its package does): its group is gone.
mv "$root$confdir/plugins.d/10-files.yaml" "$work/"
start
loaded=$(plugin_state)
code=$(status /files/stat?path=/tmp)
mv "$work/10-files.yaml" "$root$confdir/plugins.d/"
! grep -q 'files=' <<<"$loaded" || fail "the files plugin without its drop-in: $loaded"
[ "$code" = 404 ] || fail "without its drop-in /files/stat answered $code"
stop
echo "install layout for $prefix: ok ($expected plugins)"
