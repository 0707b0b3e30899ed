#!/usr/bin/env bash
# Installs every Debian package the build, the server and the test suite need,
# then the oracle suite's pinned npm packages (tests/oracle/install.sh), the
# package tests' (tests/package/install.sh) and the openapi suite's
# (tests/openapi/install.sh), and the mcp suite's (tests/plugins/mcp/install.sh).
# Idempotent: packages already present are skipped, and `apt-get update` runs
# at most once per invocation (and only when something is missing).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libpoco-dev libyaml-cpp-dev libboost-dev libboost-filesystem-dev libarchive-dev
  libssl-dev  # the agents plugin seals the secrets it keeps (OpenSSL libcrypto, AES-256-GCM)
  libicu-dev  # the browser plugin: UTS #46 (IDN) host mapping, as Chromium does
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format
  curl wrk hyperfine python3 procps
  chromium  # the browser group and its tests (label browser)
  busybox   # tests/security: `busybox sh -c ...` must not pass a command policy
  prometheus  # promtool: the /metrics test checks the exposition with `promtool check metrics`
  # The package tests (label package): Debian packages built with CPack and
  # checked by lintian, installed with apt into an mmdebstrap root; preset
  # images built with buildah/podman (--isolation chroot).
  dpkg-dev fakeroot file lintian mmdebstrap podman buildah
  systemd   # systemd-analyze verify of the packages' unit
)
# The benchmark installs its peer (rivet sandbox-agent) from npm; keep an
# existing Node.js/npm (a newer one may be installed outside Debian).
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]} (run as root)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "install-deps: all packages present"

# The test suites' pinned npm packages, each installed by its own
# install.sh from its package-lock.json. Idempotent like the step above: an
# install.sh exits at once when node_modules already holds the pinned
# versions, else installs offline from its .npm-cache, else online (filling
# the cache, so later runs need no network). Exit 77 means "could not
# install" outside CI: those tests then try again and skip. Under CI=true an
# install.sh exits 1, and so does this script.
#   npm_suite WHAT INSTALL_SH SKIP_VARIABLE
npm_suite() {
  [ "${!3:-0}" = 1 ] && return 0
  local rc=0
  bash "$(cd "$(dirname "$0")/.." && pwd)/$2" || rc=$?
  case "$rc" in
    0) echo "install-deps: $1 present" ;;
    77) echo "install-deps: $1 not installed; those tests will skip" >&2 ;;
    *) exit "$rc" ;;
  esac
}
# The oracle suite: openai@7.55.0, @openai/agents@0.20.0
# (tests/oracle/package-lock.json). ABX_SKIP_ORACLE_DEPS=1 leaves the install
# to the first oracle test run.
npm_suite "oracle SDKs" tests/oracle/install.sh ABX_SKIP_ORACLE_DEPS
# The package tests: ajv@8.20.0 and yaml@2.9.1
# (tests/package/package-lock.json), which validate packaging/k8s/ against the
# agent-sandbox CRDs. ABX_SKIP_PACKAGE_DEPS=1 leaves the install to the test.
npm_suite "package test npm packages" tests/package/install.sh ABX_SKIP_PACKAGE_DEPS
# The openapi suite: @apidevtools/swagger-parser@12.1.0,
# @redocly/openapi-core@1.34.24, openapi-typescript@7.13.0,
# openapi-fetch@0.17.0, typescript@5.9.3, ajv@8.20.0
# (tests/openapi/package-lock.json), which validate GET /openapi.json, check
# answers against it and build a typed client from it.
# ABX_SKIP_OPENAPI_DEPS=1 leaves the install to the first openapi test run.
npm_suite "openapi suite npm packages" tests/openapi/install.sh ABX_SKIP_OPENAPI_DEPS
# The mcp suite: @modelcontextprotocol/sdk@1.32.2
# (tests/plugins/mcp/package-lock.json), the official MCP client that drives
# /mcp. ABX_SKIP_MCP_DEPS=1 leaves the install to the first mcp test run.
npm_suite "mcp suite npm packages" tests/plugins/mcp/install.sh ABX_SKIP_MCP_DEPS
# The client examples (examples/package-lock.json: the same openai and
# @openai/agents as the oracle), which the examples tests run.
# ABX_SKIP_EXAMPLES_DEPS=1 leaves the install to the first examples test.
npm_suite "client examples" examples/install.sh ABX_SKIP_EXAMPLES_DEPS
