#!/usr/bin/env bash
# Builds one preset image of agent-sandbox-server from the project's Debian
# packages: packaging/images/Containerfile, target PRESET, with the folder of
# .debs as the build context `debs` and tests/realcli (whose package.json pins
# the agent CLIs) as the build context `realcli`.
#
#   build.sh PRESET DEB_DIR [podman build options...]
#
# PRESET is minimal, agents, browser or full. The image is tagged
# ${IMAGE:-agent-sandbox-server}:PRESET unless the options carry their own -t.
# Options go to `podman build` as they are, e.g. --build-arg BASE=IMAGE or
# --isolation chroot. Needs podman (buildah's `buildah bud` takes the same
# options: PODMAN=buildah).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
usage() { sed -n 2,13p "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
preset="$1" debs="$2"
shift 2
case "$preset" in minimal | agents | browser | full) ;; *) echo "build.sh: unknown preset '$preset'" >&2; usage ;; esac
[ -d "$debs" ] || { echo "build.sh: $debs is not a folder of .debs" >&2; exit 2; }
tag=(-t "${IMAGE:-agent-sandbox-server}:$preset")
for arg in "$@"; do case "$arg" in -t | --tag | -t=* | --tag=*) tag=() ;; esac; done
exec "${PODMAN:-podman}" build --format docker --target "$preset" \
  --build-context debs="$(cd "$debs" && pwd)" \
  --build-context realcli="$repo/tests/realcli" \
  "${tag[@]}" "$@" "$here"
