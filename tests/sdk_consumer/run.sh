#!/usr/bin/env bash
# Installs the SDK to a temporary prefix, builds plugin-sdk/examples/hello_plugin
# against it with find_package(AgentSandboxPluginSDK), loads the result into
# the freshly built server, and calls its route over HTTP. Then builds the
# third-party adapter in shout_adapter/ the same way, drops it in through
# ABX_AGENTS_ADAPTER_MODULES next to the installed agents plugin, and runs a
# turn through /v1/responses and GET /v1/agents/runtimes.
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

# Sets $port once the server started in the background says where it listens.
wait_for_port() {
  port=""
  for _ in $(seq 1 100); do
    port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/out.txt")
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  echo "$1:"; cat "$work/err.txt"; exit 1
}

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
# Created before the server starts: the loop below must not race the
# redirection (a missing file would end the script under set -e).
: > "$work/out.txt"
"$work/prefix/bin/agent-sandbox-server" serve --host 127.0.0.1 --port 0 \
  --plugins "$work/plugins.yaml" > "$work/out.txt" 2> "$work/err.txt" &
server_pid=$!
wait_for_port "server did not start"
body=$(curl -sS "http://127.0.0.1:$port/example/hello/world")
expected='{"greeting":"Howdy, world!"}'
if [ "$body" != "$expected" ]; then
  echo "unexpected body: $body (expected $expected)"; exit 1
fi
# The plugin's own counter reaches GET /metrics (no token: the caller holds *).
if ! curl -sS "http://127.0.0.1:$port/metrics" | grep -x 'abx_example_greetings_total 1' >/dev/null; then
  echo "GET /metrics lacks the plugin's abx_example_greetings_total 1"; exit 1
fi
echo "sdk consumer: out-of-tree plugin built against the installed SDK answered $body"
# Its OpenAPI fragment, copied beside the module by abx_add_plugin, is merged.
test -f "$work/build/com_example_hello.openapi.json"
case "$(curl -sS "http://127.0.0.1:$port/openapi.json")" in
  *'"operationId":"example_hello"'*'"ExampleHelloGreeting":{'*) ;;
  *) echo "GET /openapi.json lacks the plugin's fragment"; exit 1 ;;
esac
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# Installed as a third party's package would: abx_add_plugin() puts the
# plugin in the server's plugin dir (ABX_PLUGIN_INSTALL_DIR from the SDK),
# a drop-in in ABX_MANIFEST_DROP_IN_DIR lists it, and the installed server
# loads it with no --plugins or --plugin-dir.
cmake --install "$work/build" > "$work/plugin-install.log"
test -f "$work/prefix/lib/agent-sandbox/plugins/com_example_hello.so"
test -f "$work/prefix/lib/agent-sandbox/plugins/com_example_hello.openapi.json"
drop_ins="$work/prefix/etc/agent-sandbox/plugins.d"
test -d "$drop_ins"
printf 'plugins:\n  - name: hello\n    file: com_example_hello.so\n    id: com.example.hello\n' \
  > "$drop_ins/90-hello.yaml"
: > "$work/out.txt"
HOME="$work" ABX_SERVER_STATE_DIR="$work/default-state" \
  "$work/prefix/bin/agent-sandbox-server" serve --host 127.0.0.1 --port 0 --pty-port 0 \
  > "$work/out.txt" 2> "$work/err.txt" &
server_pid=$!
wait_for_port "server with the plugin's drop-in did not start"
body=$(curl -sS "http://127.0.0.1:$port/example/hello/world")
if [ "$body" != '{"greeting":"Hello, world!"}' ]; then
  echo "the drop-in's plugin did not answer: $body"; exit 1
fi
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
rm "$drop_ins/90-hello.yaml"
echo "sdk consumer: installed into the server's plugin dir and loaded through a drop-in"

# Its own policy parameter and its setting from the environment
# (ABX_HELLO_GREETING beats the manifest's greeting).
cat > "$work/policy.yaml" <<YAML
endpoints:
  example_hello: {params: {max_name_length: 3}}
YAML
bad_policy=$(printf 'endpoints:\n  example_hello: {params: {max_name_lenght: 3}}\n')
if out=$(ABX_SERVER_POLICY="$bad_policy" "$work/prefix/bin/agent-sandbox-server" check-config \
    --plugins "$work/plugins.yaml" 2>&1); then
  echo "check-config accepted an unknown parameter: $out"; exit 1
fi
case "$out" in
  *"unknown key 'max_name_lenght' (did you mean 'max_name_length'?)"*) ;;
  *) echo "check-config did not name the declared parameter: $out"; exit 1 ;;
esac
: > "$work/out.txt"
ABX_HELLO_GREETING=Hi "$work/prefix/bin/agent-sandbox-server" serve --host 127.0.0.1 --port 0 \
  --plugins "$work/plugins.yaml" --policy "$work/policy.yaml" > "$work/out.txt" 2> "$work/err.txt" &
server_pid=$!
wait_for_port "server with the policy did not start"
body=$(curl -sS "http://127.0.0.1:$port/example/hello/bob")
if [ "$body" != '{"greeting":"Hi, bob!"}' ]; then
  echo "the environment did not set the greeting: $body"; exit 1
fi
status=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/example/hello/world")
if [ "$status" != 403 ]; then
  echo "max_name_length 3 let a 5-letter name through ($status)"; exit 1
fi
caps=$(curl -sS "http://127.0.0.1:$port/capabilities")
case "$caps" in
  *'"example_hello":{'*'"params":{"max_name_length":3}'*) ;;
  *) echo "/capabilities does not show the parameter: $caps"; exit 1 ;;
esac
case "$caps" in
  *'"example":{'*'"params":[{"key":"max_name_length","type":"integer","description":"longest name greeted (403 beyond it)","default":64,"min":1,"max":1024}]'*) ;;
  *) echo "/capabilities does not show the declared parameter: $caps"; exit 1 ;;
esac
explain=$("$work/prefix/bin/agent-sandbox-server" check-config --plugins "$work/plugins.yaml" \
  --policy "$work/policy.yaml" --explain example_hello --json)
case "$explain" in
  *'"params":{"max_name_length":3}'*'"declared_params":[{"key":"max_name_length"'*) ;;
  *) echo "check-config --explain does not show the parameter: $explain"; exit 1 ;;
esac
echo "sdk consumer: its own policy parameter and environment setting took effect"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# A third-party agent adapter.
cmake -S "$src/tests/sdk_consumer/shout_adapter" -B "$work/adapter" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/adapter-configure.log"
cmake --build "$work/adapter" > "$work/adapter-build.log"
adapter="$work/adapter/com_acme_shout.so"
test -f "$adapter"
cat > "$work/agents-plugins.yaml" <<YAML
plugins:
  - name: agents
    file: abx_agents.so
    id: abx.agents
YAML
mkdir -p "$work/state" "$work/home"
: > "$work/out.txt"
HOME="$work/home" ABX_SERVER_ENABLED_GROUPS=agents ABX_AGENTS_STATE_DIR="$work/state" \
ABX_AGENTS_ADAPTER_MODULES="$adapter" \
  "$work/prefix/bin/agent-sandbox-server" serve --host 127.0.0.1 --port 0 --pty-port 0 \
  --plugin-dir "$work/prefix/lib/agent-sandbox/plugins" \
  --plugins "$work/agents-plugins.yaml" > "$work/out.txt" 2> "$work/err.txt" &
server_pid=$!
wait_for_port "server with the adapter did not start"
runtimes=$(curl -sS "http://127.0.0.1:$port/v1/agents/runtimes")
case "$runtimes" in
  *'"name":"acme-shout"'*'"experimental":true'*) ;;
  *) echo "runtimes does not list the adapter: $runtimes"; exit 1 ;;
esac
reply=$(curl -sS -H 'Content-Type: application/json' \
  -d '{"model":"acme-shout","input":"hello from a third party"}' "http://127.0.0.1:$port/v1/responses")
case "$reply" in
  *'"status":"completed"'*'"text":"HELLO FROM A THIRD PARTY"'*) ;;
  *) echo "the adapter's turn did not complete as expected: $reply"; cat "$work/err.txt"; exit 1 ;;
esac
echo "sdk consumer: out-of-tree adapter ran a turn: HELLO FROM A THIRD PARTY"
