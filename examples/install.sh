#!/usr/bin/env bash
# Installs the examples' pinned npm packages (package-lock.json) into this
# folder. Exit 0 = ready, 77 = could not install (a failure under CI=true).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
have() { node -e "const o=require('$here/node_modules/openai/package.json'),a=require('$here/node_modules/@openai/agents/package.json');process.exit(o.version==='7.55.0'&&a.version==='0.20.0'?0:1)" 2>/dev/null; }
skip() { echo "examples: $1"; [ "${CI:-}" = true ] && exit 1; exit 77; }
command -v node >/dev/null && command -v npm >/dev/null || skip "node/npm missing"
have && exit 0
flags=(--ignore-scripts --no-audit --no-fund --cache "${EXAMPLES_NPM_CACHE:-$here/.npm-cache}")
npm ci --offline "${flags[@]}" >/dev/null 2>&1 && have && exit 0
npm ci --prefer-offline "${flags[@]}" && have && exit 0
skip "cannot install the pinned packages of package-lock.json"
