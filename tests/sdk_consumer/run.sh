#!/usr/bin/env bash
# Installs the SDK to a temporary prefix, builds plugin-sdk/examples/hello_plugin
# against it with find_package(AgentSandboxPluginSDK), loads the result into
# the freshly built server, and calls its route over HTTP.
# usage: run.sh <build dir> <source dir>
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/abx-sdk-consumer-XXXXXX)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/lib/cmake/AgentSandboxPluginSDK/AgentSandboxPluginSDKConfig.cmake"
test -f "$work/prefix/include/abx/sdk/sdk.h"

cmake -S "$src/plugin-sdk/examples/hello_plugin" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
plugin="$work/build/com_example_hello.so"
test -f "$plugin"

cat > "$work/plugins.yaml" <<YAML
plugins:
  - name: hello
    file: $plugin
    id: com.example.hello
    settings:
      greeting: Howdy
YAML
"$work/prefix/bin/agent-sandbox-server" serve --host 127.0.0.1 --port 0 \
  --plugins "$work/plugins.yaml" > "$work/out.txt" 2> "$work/err.txt" &
server_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/out.txt")
  [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "server did not start:"; cat "$work/err.txt"; exit 1
fi
body=$(curl -sS "http://127.0.0.1:$port/example/hello/world")
expected='{"greeting":"Howdy, world!"}'
if [ "$body" != "$expected" ]; then
  echo "unexpected body: $body (expected $expected)"; exit 1
fi
echo "sdk consumer: out-of-tree plugin built against the installed SDK answered $body"
