#!/usr/bin/env bash
# Builds the four preset images (packaging/images/build.sh) from the .debs
# of package_debian, on a base imported from the minbase bookworm root of
# base_rootfs.sh (this machine's Debian mirror, no registry needed).
# image_check.sh then checks each image. Layers are cached in the machine's
# container storage: a rebuild with new .debs installs only the .debs again.
# The layers of earlier runs that no image uses any more are removed once
# the new images are built.
#
#   images_build.sh DEB_DIR CACHE_DIR   (CACHE_DIR: base_rootfs.sh's)
#
# Exit codes: 0 pass, 1 fail, 77 skip (podman, buildah or mmdebstrap
# missing, or not root, and CI is not set; under CI=true that is a failure).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=lib/images.sh
. "$here/lib/images.sh"
debs=${1:?usage: images_build.sh DEB_DIR CACHE_DIR}
cache=${2:?usage: images_build.sh DEB_DIR CACHE_DIR}
images_require podman buildah mmdebstrap sha256sum
ls "$debs"/agent-sandbox-server_*.deb > /dev/null 2>&1 || fail "no agent-sandbox-server .deb in $debs"
images_setup "$debs" "$cache"
log="$cache/images-build.log"
: > "$log"

step "base root"
rc=0
root=$(bash "$here/base_rootfs.sh" "$cache") || rc=$?
[ "$rc" -eq 77 ] && skip "no base root"
[ "$rc" -eq 0 ] || fail "base_rootfs.sh: exit $rc"
# One base image per root: the root is rebuilt once a day, and so is the base.
base="localhost/abx-test-base:bookworm-$(stat -c %Y "$root")"
if ! podman image exists "$base"; then
  step "import $root as $base"
  # base_rootfs.sh's root is a tarball or an unpacked tree.
  if [ -d "$root" ]; then
    tar -C "$root" -cf - . | podman import - "$base" >> "$log" 2>&1
  else
    podman import "$root" "$base" >> "$log" 2>&1
  fi
fi
# Older bases are unused once every image is rebuilt (removal fails while an
# image of another checkout still uses one: it stays).
for old in $(podman images --format '{{.Repository}}:{{.Tag}}' localhost/abx-test-base); do
  [ "$old" = "$base" ] || podman rmi "$old" > /dev/null 2>&1 || true
done

# This machine's CA bundle for the downloads inside the build, when it names
# one for Node.js (a TLS-inspecting proxy between it and the npm registry).
ca_args=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  ca_args=(--volume "$NODE_EXTRA_CA_CERTS:/run/build-ca.crt:ro" --build-arg BUILD_CA_BUNDLE=/run/build-ca.crt)
fi

# Every image and build step of the tests carries this label: what no tag
# reaches any more is theirs to remove.
label=io.agent-sandbox.test=images
for preset in minimal browser agents full; do
  image="$IMAGE_REPO:$preset"
  step "build $preset"
  start=$(date +%s)
  bash "$repo/packaging/images/build.sh" "$preset" "$debs" -t "$image" --label "$label" \
    --isolation chroot --build-arg BASE="$base" "${ca_args[@]}" >> "$log" 2>&1 ||
    { tail -40 "$log"; fail "building $preset (log: $log)"; }
  echo "  $image: $(($(date +%s) - start)) s, $(podman image inspect --format '{{.Size}}' "$image" |
    awk '{printf "%d MB", $1 / 1e6}')"
done
# What earlier runs built and no tag reaches any more (their layers for older
# .debs, a failed build's steps): removed. Images in use stay.
podman image prune -f --filter "label=$label" > /dev/null
step "done: 4 images built"
