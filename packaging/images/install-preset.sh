#!/bin/sh
# The steps of packaging/images/Containerfile that install a preset's Debian
# packages; run inside the image build, never on the host.
#
#   install-preset.sh select DEB_DIR POLICY_DIR OUT   (the `presets` stage)
#     for each preset, OUT/<preset>/ gets the preset's .debs from DEB_DIR,
#     `depends` (the third-party packages those .debs depend on, from their
#     Pre-Depends and Depends, the project's own packages left out), its
#     policy as policy.json, and this script
#   install-preset.sh depends DIR    apt-get install the packages DIR/depends names
#   install-preset.sh packages DIR   apt-get install DIR/*.deb, then DIR/policy.json
#                                    as /etc/agent-sandbox/server-policy.json
set -eu
export DEBIAN_FRONTEND=noninteractive

# The project's packages each preset installs.
packages_of() {
  case "$1" in
    minimal) echo libabx-plugin-sdk2 agent-sandbox-server agent-sandbox-files agent-sandbox-inspector ;;
    agents) echo "$(packages_of minimal) agent-sandbox-agents" ;;
    browser) echo "$(packages_of minimal) agent-sandbox-browser" ;;
    full) echo "$(packages_of minimal) agent-sandbox-agents agent-sandbox-browser agent-sandbox-dev-tools agent-sandbox-mcp" ;;
    *) echo "install-preset.sh: unknown preset $1" >&2 && exit 2 ;;
  esac
}

select_presets() {
  debs=$1 policies=$2 out=$3
  for deb in "$debs"/*.deb; do dpkg-deb -f "$deb" Package; done > /tmp/own-packages
  for preset in minimal agents browser full; do
    mkdir -p "$out/$preset"
    for package in $(packages_of "$preset"); do
      cp "$debs/${package}_"*.deb "$out/$preset/" || { echo "no $package .deb in the build context" >&2 && exit 1; }
    done
    for deb in "$out/$preset"/*.deb; do
      dpkg-deb -f "$deb" Pre-Depends
      dpkg-deb -f "$deb" Depends
    done | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/:any//' -e 's/[[:space:]]//g' |
      grep -vxF -f /tmp/own-packages | grep . | sort -u > "$out/$preset/depends" || true
    cp "$policies/$preset.json" "$out/$preset/policy.json"
    cp "$0" "$out/$preset/install-preset.sh"
  done
}

case "$1" in
  select) select_presets "$2" "$3" "$4" ;;
  depends)
    apt-get update -qq
    xargs -r apt-get install -y -qq --no-install-recommends < "$2/depends"
    apt-get clean
    rm -rf /var/lib/apt/lists/* "$2"
    ;;
  packages)
    # The dependencies are in already: no package lists needed.
    apt-get install -y -qq --no-install-recommends "$2"/*.deb
    install -m 0644 "$2/policy.json" /etc/agent-sandbox/server-policy.json
    rm -rf "$2"
    ;;
  *) echo "usage: install-preset.sh select|depends|packages ..." >&2 && exit 2 ;;
esac
