#!/usr/bin/env bash
# The chroot half of debian_install.sh, run in a mount namespace of its own
# (unshare --mount): TARBALL (a minbase bookworm) is unpacked into a tmpfs
# mounted on ROOT, with /proc, all of which vanish with the namespace. There
# apt installs the .debs of DEB_DIR, resolving their Depends from the root's
# apt sources; the server is started the way the installed unit starts it
# (its ExecStartPre and ExecStart, as its User, with its EnvironmentFile,
# Environment and WorkingDirectory; the ports set to 0); then `apt-get
# remove agent-sandbox-files` must take the files group away, a reinstall
# bring it back, and a purge remove the service's state.
#
#   debian_chroot.sh ROOT TARBALL DEB_DIR VERSION
set -euo pipefail
root=$1 tarball=$2 debs=$3 version=$4
start_s=$(date +%s)
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "[chroot $(($(date +%s) - start_s))s] $*"; }
unit_file=/usr/lib/systemd/system/agent-sandbox-server.service
work=$(mktemp -d /tmp/abx-debian-chroot-XXXXXX)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2> /dev/null || true; wait "$server_pid" 2> /dev/null || true; fi
  umount "$root/proc" 2> /dev/null || true
  umount "$root" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

mount -t tmpfs -o mode=0755,size=4g abx-debian-root "$root"
tar -C "$root" -xpf "$tarball"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/tmp/debs"
cp "$debs"/*.deb "$root/tmp/debs/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
# A throwaway root: dpkg need not fsync what it unpacks.
apt_get() { in_root apt-get -q -y -o Dpkg::Use-Pty=0 -o Acquire::Languages=none -o Dpkg::Options::=--force-unsafe-io "$@" >> "$work/apt.log" 2>&1 || { tail -30 "$work/apt.log"; fail "apt-get $*"; }; }

step "apt-get install (dependencies from the root's apt sources)"
apt_get update
# A package's .deb as the chroot sees it.
deb() { echo "/tmp/debs/$(basename "$(ls "$debs/${1}_"*.deb)")"; }
every=("$(deb agent-sandbox-server)" "$(deb agent-sandbox-files)" "$(deb agent-sandbox-agents)"
  "$(deb agent-sandbox-dev-tools)" "$(deb agent-sandbox-browser)" "$(deb agent-sandbox-inspector)"
  "$(deb agent-sandbox-mcp)" "$(deb libabx-plugin-sdk2)" "$(deb libabx-plugin-sdk-dev)")
apt_get install --no-install-recommends --download-only "${every[@]}"
step "downloaded $(du -sh "$root/var/cache/apt/archives" | cut -f1)"
apt_get install --no-install-recommends "${every[@]}"
for p in agent-sandbox-server agent-sandbox-files agent-sandbox-agents agent-sandbox-dev-tools \
  agent-sandbox-browser agent-sandbox-inspector agent-sandbox-mcp libabx-plugin-sdk2 \
  libabx-plugin-sdk-dev; do
  in_root dpkg-query -W -f '${Status} ${Version}\n' "$p" | grep "^install ok installed $version-" >/dev/null ||
    fail "$p is not installed at $version"
done

step "postinst: the system user and its directories"
in_root getent passwd agent-sandbox | grep ':/var/lib/agent-sandbox:/usr/sbin/nologin$' >/dev/null ||
  fail "no system user agent-sandbox with home /var/lib/agent-sandbox: $(in_root getent passwd agent-sandbox)"
perms() { in_root stat -c '%a %U:%G' "$1"; }
[ "$(perms /var/lib/agent-sandbox/state)" = "700 agent-sandbox:agent-sandbox" ] || fail "state dir: $(perms /var/lib/agent-sandbox/state)"
[ "$(perms /var/lib/agent-sandbox/work)" = "750 agent-sandbox:agent-sandbox" ] || fail "work dir: $(perms /var/lib/agent-sandbox/work)"
[ "$(perms /etc/default/agent-sandbox-server)" = "600 root:root" ] || fail "env file: $(perms /etc/default/agent-sandbox-server)"

# The unit's settings, as systemd would apply them.
unit() { sed -n "s/^$1=//p" "$root$unit_file"; }
user=$(unit User) group=$(unit Group) cwd=$(unit WorkingDirectory) umask_=$(unit UMask)
env_file=$(unit EnvironmentFile | sed 's/^-//')
environment=$(unit Environment)
exec_start=$(unit ExecStart)
# ExecStartPre: the one shell command of the unit, `$$` being systemd's `$`.
pre=$(unit ExecStartPre | sed "s/^\/bin\/sh -c '\(.*\)'$/\1/; s/\\\$\\\$/\$/g")
if [ -z "$user" ] || [ -z "$exec_start" ] || [ -z "$env_file" ] || [ -z "$pre" ]; then
  fail "unit lacks User, ExecStart, EnvironmentFile or ExecStartPre"
fi
case "$exec_start$environment$cwd" in *[\$%\"\']*) fail "ExecStart uses quoting or specifiers this test does not expand: $exec_start" ;; esac
# The ports: 0 (free ones), the rest as the unit says.
read -r -a argv <<< "$exec_start"
for i in "${!argv[@]}"; do
  case "${argv[$i]}" in --port | --pty-port) argv[i + 1]=0 ;; esac
done
# Root reads the env file (0600) and drops to the unit's user, as systemd
# does: the token is in the environment only, never on a command line. It
# execs (the server keeps the PID of `as_service ... &`): call it in a
# subshell or in the background.
as_service() {
  exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME="$(in_root getent passwd "$user" | cut -d: -f6)" USER="$user" LOGNAME="$user" $environment \
    /bin/sh -c 'abx_env=$1 abx_umask=$2 abx_cwd=$3 abx_group=$4; shift 4
      set -a; [ ! -r "$abx_env" ] || . "$abx_env"; set +a
      umask "$abx_umask"; cd "$abx_cwd"
      exec setpriv --reuid="$USER" --regid="$abx_group" --init-groups -- "$@"' \
    sh "$env_file" "$umask_" "$cwd" "$group" "$@"
}

step "ExecStartPre refuses to start without a token"
rc=0
(as_service /bin/sh -c "$pre") 2> "$work/pre.err" || rc=$?
[ "$rc" -eq 2 ] || fail "ExecStartPre without a token: exit $rc, want 2"
grep -q ABX_SERVER_TOKEN "$work/pre.err" || fail "ExecStartPre says nothing of the token: $(cat "$work/pre.err")"
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf 'ABX_SERVER_TOKEN=%s\n' "$token" >> "$root$env_file"
(as_service /bin/sh -c "$pre") || fail "ExecStartPre with a token: exit $?"

start() {
  : > "$work/out.txt"
  as_service "${argv[@]}" > "$work/out.txt" 2> "$work/err.txt" &
  server_pid=$!
  port=""
  for _ in $(seq 1 150); do
    port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/out.txt")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2> /dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$work/err.txt"; fail "the installed server did not start"; }
}
stop() {
  kill -TERM "$server_pid"
  local rc=0
  wait "$server_pid" || rc=$?
  server_pid=""
  [ "$rc" -eq 0 ] || fail "the server exited $rc on SIGTERM, want 0 (a clean drain)"
}
status() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "http://127.0.0.1:$port$1"; }
plugins() {
  curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$port/capabilities" |
    python3 -c 'import json, sys; print(" ".join(sorted(p["name"] + "=" + p["state"] for p in json.load(sys.stdin)["plugins"])))'
}
expect_plugins() {
  local loaded want=$1
  loaded=$(plugins)
  [ "$loaded" = "$want" ] || fail "plugins: got [$loaded], want [$want]"
}
core="commands=started process=started system=started terminal=started"
agents="adapter_claude_code=started adapter_codex=started adapter_command=started adapter_cursor=started adapter_qwen_code=started agents=started"
sorted() { echo "$@" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'; }
all=$(sorted "$core" "$agents" browser=started dev_tools=started files=started inspector=started mcp=started)
without_files=$(sorted "$core" "$agents" browser=started dev_tools=started inspector=started mcp=started)

step "serve with every package: /ready, the plugins of each package, reload"
start
[ "$(status /ready)" = 200 ] || fail "/ready answered $(status /ready)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/capabilities")" = 401 ] ||
  fail "/capabilities without the token was not refused"
expect_plugins "$all"
# The inspector page, its files built into the installed plugin, needs no token.
for path in /ui /ui/inspector.js; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")
  [ "$code" = 200 ] || fail "$path answered $code"
done
uid=$(in_root id -u "$user")
[ "$(stat -c %u "/proc/$server_pid")" = "$uid" ] || fail "the server runs as uid $(stat -c %u "/proc/$server_pid"), want $user ($uid)"
tr '\0' ' ' < "/proc/$server_pid/cmdline" | grep "$token" >/dev/null && fail "the token is on the server's command line"
code=$(status "/files/stat?path=/var/lib/agent-sandbox/work")
[ "$code" = 200 ] || fail "/files/stat of the base dir answered $code"
# ExecReload (SIGHUP to $MAINPID) reloads the policy: its revision goes up.
revision() {
  curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$port/capabilities" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["policy"]["revision"])'
}
before=$(revision)
read -r -a reload <<< "$(unit ExecReload | sed "s/\\\$MAINPID/$server_pid/")"
in_root "${reload[@]}" || fail "ExecReload: ${reload[*]}"
for _ in $(seq 1 50); do [ "$(revision)" != "$before" ] && break; sleep 0.1; done
[ "$(revision)" != "$before" ] || fail "ExecReload did not reload the policy (revision $before)"
stop

step "apt-get remove agent-sandbox-files: its group is gone"
lines=$(wc -l < "$work/apt.log")
apt_get remove agent-sandbox-files
# The server's dpkg trigger (a running service would be restarted).
tail -n +"$((lines + 1))" "$work/apt.log" | grep '^Processing triggers for agent-sandbox-server' > /dev/null ||
  fail "removing a plugin package did not trigger agent-sandbox-server"
[ ! -e "$root/etc/agent-sandbox/plugins.d/10-files.yaml" ] || fail "the files drop-in is still active after remove"
[ -e "$root/etc/agent-sandbox/plugins.d/10-files.yaml.dpkg-removed" ] || fail "the files drop-in was not set aside"
start
[ "$(status /ready)" = 200 ] || fail "/ready answered $(status /ready) without the files package"
expect_plugins "$without_files"
code=$(status "/files/stat?path=/var/lib/agent-sandbox/work")
[ "$code" = 404 ] || fail "without the files package /files/stat answered $code"
stop

step "reinstall agent-sandbox-files: its group is back"
apt_get install --no-install-recommends "$(deb agent-sandbox-files)"
[ -e "$root/etc/agent-sandbox/plugins.d/10-files.yaml" ] || fail "reinstalling did not bring the drop-in back"
start
expect_plugins "$all"
stop

step "apt-get purge: the service's state is gone, its config too"
apt_get purge agent-sandbox-server libabx-plugin-sdk2
[ ! -e "$root/var/lib/agent-sandbox" ] || fail "/var/lib/agent-sandbox survived the purge"
left=$(find "$root/etc/agent-sandbox" "$root/etc/default/agent-sandbox-server" 2> /dev/null || true)
[ -z "$left" ] || fail "left after the purge: $left"
step "ok"
