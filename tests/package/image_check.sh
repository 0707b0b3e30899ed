#!/usr/bin/env bash
# Checks one preset image that images_build.sh built: its configuration
# (user, entrypoint behind tini, ports, healthcheck), the refusal of its
# default command without a token, then its server, started inside it with
# the image's own entrypoint on a free port of 127.0.0.1 (buildah run, chroot
# isolation, host network), by image_checks.mjs, and the image's healthcheck
# command against that server.
#
#   image_check.sh DEB_DIR CACHE_DIR PRESET
#
# Exit codes: 0 pass, 1 fail, 77 skip (a tool missing or not root, and CI
# is not set; under CI=true that is a failure).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib/images.sh
. "$here/lib/images.sh"
debs=${1:?usage: image_check.sh DEB_DIR CACHE_DIR PRESET}
cache=${2:?usage: image_check.sh DEB_DIR CACHE_DIR PRESET}
preset=${3:?usage: image_check.sh DEB_DIR CACHE_DIR PRESET}
images_require podman buildah node
images_setup "$debs" "$cache"
image="$IMAGE_REPO:$preset"
podman image exists "$image" || fail "no image $image (the test package_images_build makes it)"
ctr="${IMAGE_REPO##*/}-$preset-check"
work=$(mktemp -d "${TMPDIR:-/tmp}/abx-image-check-XXXXXX")
runner="" init=""
# The processes below PID (a chroot container shares this process table).
descendants() {
  cat /proc/[0-9]*/stat 2> /dev/null | sed 's/^\([0-9]*\) (.*) [A-Za-z] \([0-9]*\) .*/\1 \2/' |
    awk -v root="$1" '{ up[$1] = $2 }
      END { for (pid in up) { p = up[pid]; while (p > 1 && p != root) p = up[p]; if (p == root) print pid } }'
}
cleanup() {
  # tini forwards SIGTERM to the server, which drains and exits; tini follows.
  if [ -n "$init" ]; then
    kill -TERM "$init" 2> /dev/null || true
  elif [ -n "$runner" ]; then
    descendants "$runner" | xargs -r kill -TERM 2> /dev/null || true
  fi
  if [ -n "$runner" ]; then
    for _ in $(seq 100); do kill -0 "$runner" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$runner" 2> /dev/null || true
    wait "$runner" 2> /dev/null || true
  fi
  buildah rm "$ctr" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

step "$image: configuration"
cfg() { podman image inspect --format "{{json $1}}" "$image"; }
[ "$(cfg .Config.User)" = '"user"' ] || fail "User is $(cfg .Config.User), not user"
[ "$(cfg .Config.Entrypoint)" = '["/usr/bin/tini","-s","--","agent-sandbox-server"]' ] ||
  fail "Entrypoint $(cfg .Config.Entrypoint)"
[ "$(cfg .Config.Cmd)" = '["serve","--host","0.0.0.0","--port","9000","--pty-port","9001"]' ] ||
  fail "Cmd $(cfg .Config.Cmd)"
[ "$(cfg .Config.ExposedPorts)" = '{"9000/tcp":{},"9001/tcp":{}}' ] || fail "ExposedPorts $(cfg .Config.ExposedPorts)"
[ "$(cfg .Config.WorkingDir)" = '"/home/user"' ] || fail "WorkingDir $(cfg .Config.WorkingDir)"
healthcheck=$(podman image inspect --format '{{range .HealthCheck.Test}}{{.}} {{end}}' "$image")
[ "$healthcheck" = "CMD agent-sandbox-server healthcheck " ] || fail "HEALTHCHECK is '$healthcheck'"
mapfile -t entrypoint < <(podman image inspect --format '{{range .Config.Entrypoint}}{{println .}}{{end}}' "$image" | grep .)
mapfile -t command < <(podman image inspect --format '{{range .Config.Cmd}}{{println .}}{{end}}' "$image" | grep .)

buildah rm "$ctr" > /dev/null 2>&1 || true
buildah from --name "$ctr" "$image" > /dev/null

step "$image: the default command without a token"
# It must stop before binding 0.0.0.0:9000 (the timeout only guards the
# test). Its stderr goes to a file in the container: buildah can lose the
# last output of a process that exits at once when several run side by side.
rc=0
timeout 60 buildah run --isolation chroot --network host "$ctr" -- sh -c 'exec "$@" 2> /tmp/refusal.err' sh \
  "${entrypoint[@]}" "${command[@]}" > /dev/null 2>&1 || rc=$?
root=$(buildah mount "$ctr")
cp "$root/tmp/refusal.err" "$work/refusal.err"
buildah umount "$ctr" > /dev/null
grep -q 'refusing to bind 0.0.0.0 without a token: set ABX_SERVER_TOKEN' "$work/refusal.err" ||
  { cat "$work/refusal.err"; fail "no refusal message (exit $rc)"; }
[ "$rc" -eq 2 ] || { cat "$work/refusal.err"; fail "the refusal exits $rc, not 2"; }

step "$image: serve on 127.0.0.1 with a token"
# The token travels on stdin (never argv, env of this script, or disk).
token="image-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$token" | buildah_run "$ctr" -- sh -c \
  'IFS= read -r ABX_SERVER_TOKEN && export ABX_SERVER_TOKEN && exec "$@"' sh \
  "${entrypoint[@]}" serve --host 127.0.0.1 --port 0 --pty-port 0 > "$work/server.out" 2> "$work/server.err" &
runner=$!
port=""
for _ in $(seq 600); do # up to 60 s
  port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$work/server.out" | head -1)
  [ -n "$port" ] && break
  kill -0 "$runner" 2> /dev/null || { cat "$work/server.err"; fail "the server exited before listening"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.err"; fail "the server did not print 'listening on' in 60 s"; }
# The image's tini: the process named tini below this script's buildah run.
for pid in $(descendants "$runner"); do
  if [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = tini ]; then init=$pid; fi
done
[ -n "$init" ] || fail "no tini below the container's buildah run"

step "$image: checks against the server (port $port)"
rc=0
IMAGE_URL="http://127.0.0.1:$port" IMAGE_TOKEN="$token" node "$here/image_checks.mjs" "$preset" || rc=$?

step "$image: the HEALTHCHECK command"
buildah_run "$ctr" -- agent-sandbox-server healthcheck --port "$port" ||
  { rc=1; echo "not ok - healthcheck against the running server"; }
# It can fail: a port where nothing listens.
if buildah_run "$ctr" -- agent-sandbox-server healthcheck --port 1 > /dev/null 2>&1; then
  rc=1
  echo "not ok - healthcheck passed against a closed port"
fi
[ "$rc" -eq 0 ] && echo "ok - healthcheck: 0 against the server, non-zero against a closed port"
[ "$rc" -eq 0 ] || { echo "--- server log ---"; tail -40 "$work/server.err"; }
exit "$rc"
