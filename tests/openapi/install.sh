#!/usr/bin/env bash
# Installs the openapi suite's pinned npm packages (package-lock.json here:
# @apidevtools/swagger-parser, @redocly/openapi-core, openapi-typescript,
# openapi-fetch, typescript, ajv) into node_modules here, from the npm cache
# ABX_OPENAPI_NPM_CACHE (default .npm-cache here) when it can.
# Exit 0 = ready, 77 = skip; under CI=true a failure instead.
exec bash "$(dirname "$0")/../support/npm_suite_install.sh" "$(dirname "$0")" openapi ABX_OPENAPI_NPM_CACHE
