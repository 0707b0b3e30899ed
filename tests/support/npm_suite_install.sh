#!/usr/bin/env bash
# Installs a test suite's pinned npm packages (its package.json and
# package-lock.json) into node_modules of its folder. Each suite's
# install.sh calls it. Exit 0 = ready, 77 = skip (no node/npm or no
# registry), except under CI=true, where that fails. Tries, in order: the
# versions already installed; an offline install from the npm cache (the
# variable CACHE_VARIABLE names, default .npm-cache in the folder); an
# online one (which fills the cache, so later runs need no network).
#
#   npm_suite_install.sh FOLDER LABEL CACHE_VARIABLE
set -u
here="$(cd "${1:?usage: npm_suite_install.sh FOLDER LABEL CACHE_VARIABLE}" && pwd)"
label="${2:?}" cache_variable="${3:?}"
cd "$here"
skip() { echo "$label: $1" >&2; [ "${CI:-}" = true ] && exit 1; exit 77; }
command -v node >/dev/null && command -v npm >/dev/null || skip "node/npm missing"
# Every dependency of package.json, at exactly its pinned version.
have() {
  node -e '
    const want = require(process.argv[1] + "/package.json").dependencies;
    for (const [name, version] of Object.entries(want)) {
      const got = require(process.argv[1] + "/node_modules/" + name + "/package.json").version;
      if (got !== version) process.exit(1);
    }' "$here" 2>/dev/null
}
# One installer at a time: CTest may start several tests of a suite at once.
exec 9>"$here/.install.lock" && flock 9
have && exit 0
cache="${!cache_variable:-$here/.npm-cache}"
flags=(--ignore-scripts --no-audit --no-fund --cache "$cache")
npm ci --offline "${flags[@]}" >/dev/null 2>&1 && have && exit 0
npm ci --prefer-offline "${flags[@]}" >&2 && have && exit 0
skip "cannot install the pinned packages of $here/package.json"
