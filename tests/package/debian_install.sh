#!/usr/bin/env bash
# Installs the Debian packages that debian_packages.sh left in
# BUILD_DIR/debian-packages into a fresh minbase bookworm root (from
# base_rootfs.sh, cached in CACHE_DIR) with apt, and serves from the
# installed unit's command line there (debian_chroot.sh, in a mount
# namespace of its own).
#
#   debian_install.sh BUILD_DIR CACHE_DIR
#
# Exit codes: 0 pass, 1 fail, 77 skip (a tool missing or not root, and CI is
# not set; under CI=true that is a failure).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build=$(cd "${1:?usage: debian_install.sh BUILD_DIR CACHE_DIR}" && pwd)
cache=${2:?usage: debian_install.sh BUILD_DIR CACHE_DIR}
out="$build/debian-packages"
start_s=$(date +%s)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "debian_install: $*" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
step() { echo "[$(($(date +%s) - start_s))s] $*"; }

for tool in mmdebstrap unshare chroot curl python3; do
  command -v "$tool" > /dev/null || skip "$tool not installed (packaging/install-deps.sh)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root (a chroot with mounts)"
[ "$(ls "$out"/*.deb 2> /dev/null | wc -l)" -eq 9 ] || fail "no packages in $out (debian_packages.sh)"
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")

step "base root"
rc=0
tarball=$(bash "$here/base_rootfs.sh" "$cache") || rc=$?
[ "$rc" -eq 77 ] && skip "no base root"
[ "$rc" -eq 0 ] || fail "base_rootfs.sh: exit $rc"

step "install into a minbase root"
# An empty mount point: debian_chroot.sh mounts a tmpfs on it in its own
# mount namespace, so the root (and everything apt puts in it) is in memory
# and gone when that namespace ends.
root=$(mktemp -d "$build/debian-root.XXXXXX")
trap 'rmdir "$root" 2> /dev/null || echo "left $root" >&2' EXIT
unshare --mount --propagation private -- bash "$here/debian_chroot.sh" "$root" "$tarball" "$out" "$version"
step "done: installed, served, a plugin package removed and reinstalled, purged"
