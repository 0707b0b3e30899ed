#!/usr/bin/env bash
# The Debian packages of a /usr build (made by build_prefix.sh), for the
# tests that install them (the preset images): cpack into OUT_DIR, replacing
# what an earlier run left there, and a check that all seven are there.
#
#   debs.sh BUILD_DIR OUT_DIR
#
# Exit codes: 0 pass, 1 fail, 77 skip (dpkg-deb or dpkg-shlibdeps missing
# and CI is not set; under CI=true that is a failure).
set -euo pipefail
build=$(cd "${1:?usage: debs.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: debs.sh BUILD_DIR OUT_DIR}
skip() { echo "debs: $*" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" > /dev/null || skip "$tool not installed (packaging/install-deps.sh)"
done
[ -f "$build/CPackConfig.cmake" ] || { echo "FAIL: no CPack configuration in $build" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
(cd "$build" && cpack -G DEB -B "$out" > "$out/cpack.log" 2>&1) ||
  { tail -30 "$out/cpack.log"; echo "FAIL: cpack" >&2; exit 1; }
rm -rf "$out/_CPack_Packages"
for p in agent-sandbox-server agent-sandbox-files agent-sandbox-agents agent-sandbox-dev-tools \
  agent-sandbox-browser libabx-plugin-sdk2 libabx-plugin-sdk-dev; do
  ls "$out/${p}_"*.deb > /dev/null 2>&1 || { echo "FAIL: no $p .deb in $out" >&2; exit 1; }
done
echo "$(ls "$out"/*.deb | wc -l) packages in $out in $(($(date +%s) - start)) s"
