#!/usr/bin/env bash
# Builds a minimal Debian bookworm root (mmdebstrap --variant=minbase) as
# CACHE_DIR/bookworm-minbase.tar, once: a tarball younger than a day is
# reused, so the package tests of one ctest run (and the image builds)
# download it once. Prints the tarball's path on stdout.
#
#   base_rootfs.sh CACHE_DIR
#
# Its apt sources are the machine's own: ABX_DEBIAN_SOURCES (a sources file
# or a mirror URL) if set, else /etc/apt/sources.list.d/debian.sources or
# /etc/apt/sources.list, else deb.debian.org. Needs root (mmdebstrap's root
# mode). Exit 77 when mmdebstrap is missing or this is not root, except
# under CI=true, where that is a failure.
set -euo pipefail
cache=${1:?usage: base_rootfs.sh CACHE_DIR}
tarball="$cache/bookworm-minbase.tar"

unavailable() {
  echo "base_rootfs: $*" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
}
command -v mmdebstrap > /dev/null || unavailable "mmdebstrap not installed (packaging/install-deps.sh)"
[ "$(id -u)" -eq 0 ] || unavailable "needs root"

mkdir -p "$cache"
# One builder at a time; a second caller waits and reuses the first's tarball.
exec 9> "$cache/.bookworm-minbase.lock"
flock 9
if [ -s "$tarball" ] && [ -n "$(find "$tarball" -mmin -1440)" ]; then
  echo "$tarball"
  exit 0
fi

sources=${ABX_DEBIAN_SOURCES:-}
if [ -z "$sources" ]; then
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
    if [ -s "$f" ]; then
      sources=$f
      break
    fi
  done
fi
sources=${sources:-http://deb.debian.org/debian}

partial="$cache/.bookworm-minbase.partial.tar"
rm -f "$partial"
if ! mmdebstrap --quiet --variant=minbase --format=tar bookworm "$partial" "$sources" \
  > "$cache/mmdebstrap.log" 2>&1; then
  tail -20 "$cache/mmdebstrap.log" >&2
  rm -f "$partial"
  echo "base_rootfs: mmdebstrap failed (log: $cache/mmdebstrap.log)" >&2
  exit 1
fi
mv "$partial" "$tarball"
echo "$tarball"
