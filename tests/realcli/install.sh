#!/usr/bin/env bash
# Installs the pinned real agent CLIs (package.json here) into a cache folder
# and prints that folder's bin directory on stdout. Exit 0 = ready, 77 = skip
# (no node/npm or no registry), except under CI=true where that fails.
#
#   ABX_REALCLI_CACHE  the cache folder (default: ~/.cache/abx-realcli)
#
# npm runs with --ignore-scripts where it can; codex and claude ship native
# binaries as optional platform packages, which need no install script.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cache="${ABX_REALCLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/abx-realcli}"
skip() { echo "realcli: $1" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
command -v node >/dev/null && command -v npm >/dev/null || skip "node/npm missing"
mkdir -p "$cache" || skip "cannot create $cache"
have() {
  node -e '
    const want = require(process.argv[1]).dependencies;
    for (const [name, version] of Object.entries(want)) {
      const got = require(process.argv[2] + "/node_modules/" + name + "/package.json").version;
      if (got !== version) process.exit(1);
    }' "$here/package.json" "$cache" 2>/dev/null
}
# One installer at a time: CTest runs the realcli cases in parallel.
exec 9>"$cache/.install.lock" && flock 9
if ! have; then
  cp "$here/package.json" "$cache/package.json"
  # Telemetry and update checks off for npm itself too.
  (cd "$cache" && NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false \
    npm install --no-save --prefer-offline --no-package-lock >&2) || skip "npm install of the pinned CLIs failed"
  have || skip "the installed CLIs do not match package.json"
fi
echo "$cache/node_modules/.bin"
