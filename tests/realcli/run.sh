#!/usr/bin/env bash
# Runs realcli case files: the pinned real agent CLIs (install.sh) behind a
# fresh agent-sandbox-server, each case providing its own scripted model stub
# on 127.0.0.1 (lib/). The server, the secret-canary scan and the SDKs are the
# oracle suite's (../oracle/run.sh); this script adds the CLIs to the server's
# PATH and keeps every CLI off the network: proxies point at a closed port
# and only loopback is exempt.
#
#   run.sh --server BIN [--plugin-dir DIR] [--manifest FILE] CASE.test.mjs...
#
# Exit codes as ../oracle/run.sh (77 = skip when the CLIs cannot be installed
# and CI is not set).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="$("$here/install.sh")" || exit $?
# Bare imports ('openai') from cases/ resolve through this link.
"$here/../oracle/install.sh" >&2 || exit $?
[ -e "$here/node_modules" ] || ln -s ../oracle/node_modules "$here/node_modules"
export REALCLI_BIN="$bin"
export REALCLI_SERVER_ENV="HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost \
no_proxy=127.0.0.1,localhost \
ABX_AGENTS_PASSTHROUGH_ENV=HTTP_PROXY,HTTPS_PROXY,http_proxy,https_proxy,NO_PROXY,no_proxy"
exec bash "$here/../oracle/run.sh" --agents "$here/agents.yaml" --path "$bin" "$@"
