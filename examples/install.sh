#!/usr/bin/env bash
# Installs the examples' pinned npm packages (package-lock.json) into this
# folder, from the npm cache EXAMPLES_NPM_CACHE (default .npm-cache here)
# when it can. Exit 0 = ready, 77 = could not install (a failure under CI=true).
exec bash "$(dirname "$0")/../tests/support/npm_suite_install.sh" "$(dirname "$0")" examples EXAMPLES_NPM_CACHE
