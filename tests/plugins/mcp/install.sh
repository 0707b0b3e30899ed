#!/usr/bin/env bash
# Installs the mcp suite's pinned npm packages (package-lock.json here:
# @modelcontextprotocol/sdk) into node_modules here, from the npm cache
# ABX_MCP_NPM_CACHE (default .npm-cache here) when it can.
# Exit 0 = ready, 77 = skip; under CI=true a failure instead.
exec bash "$(dirname "$0")/../../support/npm_suite_install.sh" "$(dirname "$0")" mcp ABX_MCP_NPM_CACHE
