#!/usr/bin/env bash
# Builds and runs one libFuzzer target:
#   policy  tests/fuzz/policy_fuzz.cpp (policy parser, path checker), seeds in
#           tests/fuzz/corpus/
#   base64  tests/fuzz/base64_fuzz.cpp (the files plugin's base64 coder),
#           seeds in tests/fuzz/corpus-base64/
#   json    tests/fuzz/json_fuzz.cpp (the SDK's JSON parser and writer),
#           seeds in tests/fuzz/corpus-json/
#   agent_parsers  tests/fuzz/agent_parsers_fuzz.cpp (the agent CLIs' stdout
#           parsers), seeds in tests/fuzz/corpus-agent-parsers/
#   redaction  tests/fuzz/redaction_fuzz.cpp (secret redaction, one-shot and
#           streamed), seeds in tests/fuzz/corpus-redaction/
#   kernel  tests/fuzz/kernel_fuzz.cpp (one binary, the first input byte
#           picks: routing and percent-decoding, request head + pipeline
#           over an in-memory exchange, plugin manifest), seeds in
#           tests/fuzz/corpus-kernel/
#   plugins tests/fuzz/plugins_fuzz.cpp (one binary, the first input byte
#           picks: upload body scanner, PTY WebSocket frames, commands
#           file, browser URL policy, SSE resume position, agent
#           definitions and agents files), seeds in tests/fuzz/corpus-plugins/
#
#   tests/fuzz/run.sh <source dir> <build dir> [seconds] [target, default policy]
#
# Compiles the fuzzer and the few sources it exercises directly with
# clang++ -fsanitize=fuzzer,address,undefined (UB is fatal), into
# <build dir>, separate from the main (GCC) build (one build dir per target);
# an object newer than every file it was built from is kept, so a re-run
# recompiles only what changed. Related parsers share one binary (kernel,
# plugins) so that their common sources compile once: the clang compile is
# most of a fuzz test's time on a 2-core CI machine.
# Then fuzzes for [seconds] (default 60) starting from the target's seeds;
# new inputs go to <build dir>/corpus, crashes to <build dir>/artifacts/.
#
# Environment: CLANGXX (default clang++), FUZZ_JOBS (parallel compiles,
# default 2), FUZZ_ARGS (extra libFuzzer flags).
#
# Exit status: 0 when the time ran out with no finding; non-zero when the
# fuzzer found a crash, leak, UB, timeout or invariant violation, or when
# clang++ (packaging/install-deps.sh installs clang and libclang-rt-14-dev) or
# the build fails.

set -euo pipefail

log() { printf '[fuzz] %s\n' "$*" >&2; }
die() { printf '[fuzz] ERROR: %s\n' "$*" >&2; exit 2; }

[ $# -ge 2 ] || die "usage: $0 <source dir> <build dir> [seconds]"
SRC=$(cd "$1" && pwd) || die "no source dir '$1'"
mkdir -p "$2" || die "cannot create build dir '$2'"
BUILD=$(cd "$2" && pwd)
SECONDS_TO_RUN=${3:-60}
case "$SECONDS_TO_RUN" in '' | *[!0-9]*) die "seconds must be a positive integer" ;; esac
TARGET=${4:-policy}
INCLUDES=()
SDK_JSON=(plugin-sdk/src/json.cpp plugin-sdk/src/json_parse.cpp plugin-sdk/src/json_writer.cpp)
CLANGXX=${CLANGXX:-clang++}
FUZZ_JOBS=${FUZZ_JOBS:-2}

command -v "$CLANGXX" >/dev/null 2>&1 ||
  die "'$CLANGXX' not found: install clang and libclang-rt-14-dev (packaging/install-deps.sh)"

case "$TARGET" in
  policy)
    SOURCES=(
      tests/fuzz/policy_fuzz.cpp
      kernel/src/policy/policy_document.cpp
      kernel/src/policy/yaml_reads.cpp
      kernel/src/policy/path_rules_guard.cpp
      kernel/src/support/did_you_mean.cpp
    )
    LIBS=(-lyaml-cpp)
    SEEDS="$SRC/tests/fuzz/corpus"
    MAX_LEN=4096
    ;;
  base64)
    SOURCES=(
      tests/fuzz/base64_fuzz.cpp
      plugins/files/base64_codec.cpp
      plugins/files/base64_codec_avx2.cpp
      plugins/files/base64_stream.cpp
    )
    LIBS=(-lPocoFoundation)
    SEEDS="$SRC/tests/fuzz/corpus-base64"
    MAX_LEN=8192
    ;;
  json)
    SOURCES=(
      tests/fuzz/json_fuzz.cpp
      "${SDK_JSON[@]}"
    )
    LIBS=()
    SEEDS="$SRC/tests/fuzz/corpus-json"
    MAX_LEN=4096
    ;;
  agent_parsers)
    SOURCES=(
      tests/fuzz/agent_parsers_fuzz.cpp
      "${SDK_JSON[@]}"
      plugin-sdk/src/agent_adapter.cpp
      plugins/adapters/parsers/agent_parsers.cpp
      plugins/adapters/parsers/claude_stream_parser.cpp
      plugins/adapters/parsers/codex_jsonl_parser.cpp
      plugins/adapters/parsers/json_reads.cpp
      plugins/adapters/parsers/mcp_names.cpp
      plugins/adapters/parsers/stream_delta_scan.cpp
      plugins/adapters/parsers/stream_json_parser.cpp
      plugins/adapters/parsers/text_parser.cpp
      plugins/adapters/parsers/tool_kinds.cpp
      plugins/adapters/qwen_code/qwen_stream_parser.cpp
      plugins/adapters/cursor/cursor_stream_parser.cpp
    )
    LIBS=()
    INCLUDES=(-I"$SRC/plugins/adapters" -I"$SRC/plugins/adapters/parsers")
    SEEDS="$SRC/tests/fuzz/corpus-agent-parsers"
    MAX_LEN=4096
    ;;
  redaction)
    SOURCES=(
      tests/fuzz/redaction_fuzz.cpp
      plugin-sdk/src/key_functions.cpp
      plugin-sdk/src/redaction_patterns.cpp
      plugin-sdk/src/secret_redactor.cpp
      plugin-sdk/src/secret_spellings.cpp
      plugins/agents/secrets/stream_redactor.cpp
    )
    LIBS=()
    INCLUDES=(-I"$SRC/plugins/agents")
    SEEDS="$SRC/tests/fuzz/corpus-redaction"
    MAX_LEN=2048
    ;;
  kernel)
    SOURCES=(
      tests/fuzz/kernel_fuzz.cpp
      tests/fuzz/kernel_routing_fuzz.cpp
      tests/fuzz/kernel_pipeline_fuzz.cpp
      tests/fuzz/kernel_manifest_fuzz.cpp
      "${SDK_JSON[@]}"
      plugin-sdk/src/http.cpp
      plugin-sdk/src/http_error.cpp
      plugin-sdk/src/http_head.cpp
      plugin-sdk/src/key_functions.cpp
      plugin-sdk/src/params.cpp
      plugin-sdk/src/random_hex.cpp
      plugin-sdk/src/digest.cpp
      plugin-sdk/src/text_codecs.cpp
      kernel/src/environment/secret_environment.cpp
      kernel/src/loader/manifest.cpp
      kernel/src/metrics/exposition.cpp
      kernel/src/metrics/kernel_metrics.cpp
      kernel/src/metrics/metrics_registry.cpp
      kernel/src/metrics/series_table.cpp
      kernel/src/pipeline/access_log.cpp
      kernel/src/pipeline/admission.cpp
      kernel/src/pipeline/audit_log.cpp
      kernel/src/pipeline/audit_ring.cpp
      kernel/src/pipeline/browser_callers.cpp
      kernel/src/pipeline/origin_policy.cpp
      kernel/src/pipeline/outside_admission.cpp
      kernel/src/pipeline/pipeline.cpp
      kernel/src/policy/authenticator.cpp
      kernel/src/policy/param_rules.cpp
      kernel/src/policy/policy_document.cpp
      kernel/src/policy/policy_engine.cpp
      kernel/src/policy/yaml_reads.cpp
      kernel/src/routing/route_table.cpp
      kernel/src/server/policy_sources.cpp
      kernel/src/support/api_error.cpp
      kernel/src/support/did_you_mean.cpp
      kernel/src/support/request_id.cpp
      kernel/src/support/token_digest.cpp
      kernel/src/support/utc_time.cpp
    )
    LIBS=(-lyaml-cpp)
    SEEDS="$SRC/tests/fuzz/corpus-kernel"
    MAX_LEN=4096
    ;;
  plugins)
    SOURCES=(
      tests/fuzz/plugins_fuzz.cpp
      tests/fuzz/upload_body_fuzz.cpp
      tests/fuzz/ws_frames_fuzz.cpp
      tests/fuzz/commands_file_fuzz.cpp
      tests/fuzz/url_policy_fuzz.cpp
      tests/fuzz/resume_position_fuzz.cpp
      tests/fuzz/agent_definitions_fuzz.cpp
      "${SDK_JSON[@]}"
      plugin-sdk/src/agent_adapter.cpp
      plugin-sdk/src/http_head.cpp
      plugin-sdk/src/lazy_library.cpp
      plugin-sdk/src/params.cpp
      plugins/files/json_body_scanner.cpp
      plugins/terminal/ws_frame.cpp
      plugins/terminal/ws_protocol.cpp
      plugins/commands/argv_template.cpp
      plugins/commands/command_args.cpp
      plugins/commands/commands_file.cpp
      plugins/browser/icu_idna.cpp
      plugins/browser/net_address.cpp
      plugins/browser/url_policy.cpp
      plugins/browser/whatwg_host.cpp
      plugins/browser/whatwg_url.cpp
      plugins/agents/wire/event_position.cpp
      plugins/agents/definition/agent_definition.cpp
      plugins/agents/definition/agents_config_file.cpp
      plugins/agents/definition/config_tree.cpp
      plugins/agents/definition/credential_ref.cpp
      plugins/agents/definition/definition_reader.cpp
      plugins/agents/definition/definition_rules.cpp
      plugins/agents/definition/env_expansion.cpp
      plugins/agents/definition/mcp_definition.cpp
      plugins/agents/definition/public_view.cpp
      plugins/agents/secrets/secret_bag.cpp
      plugins/agents/state/secret_leaves.cpp
    )
    LIBS=(-lyaml-cpp -ldl)
    # The ICU soname icu_idna.cpp dlopens, as plugins/browser/CMakeLists.txt sets it.
    ICU_MAJOR=$(printf '#include <unicode/uvernum.h>\nU_ICU_VERSION_MAJOR_NUM\n' |
      "$CLANGXX" -E -P -x c++ - | tail -n1)
    INCLUDES=(-I"$SRC/plugins/terminal" -I"$SRC/plugins/commands" -I"$SRC/plugins/browser"
      -I"$SRC/plugins/agents" "-DABX_ICU_UC_SONAME=\"libicuuc.so.$ICU_MAJOR\"")
    SEEDS="$SRC/tests/fuzz/corpus-plugins"
    MAX_LEN=4096
    ;;
  *) die "unknown target '$TARGET' (policy, base64, json, agent_parsers, redaction, kernel, plugins)" ;;
esac
SAN=("-fsanitize=fuzzer,address,undefined" -fno-sanitize-recover=all)
CXXFLAGS=(-std=c++20 -O1 -g -fno-omit-frame-pointer -Wall -Wextra
  -I"$SRC/kernel/src" -I"$SRC/plugin-sdk/include" -I"$SRC/plugins/files"
  -I"$SRC/plugin-sdk/src" ${INCLUDES[@]+"${INCLUDES[@]}"})
FUZZER="$BUILD/${TARGET}_fuzz"

# ------------------------------------------------------------------ build --
OBJ="$BUILD/obj"
mkdir -p "$OBJ" "$BUILD/corpus" "$BUILD/artifacts"
log "compiling with $("$CLANGXX" --version | head -n1)"
export SRC OBJ CLANGXX
# One object per source, FUZZ_JOBS at a time. An object newer than every
# file its -MMD list names is kept (a re-run after an edit recompiles only
# what the edit touched); other flags than last time start afresh.
FLAGS_TEXT="${SAN[*]} ${CXXFLAGS[*]}"
if [ "$(cat "$OBJ/flags" 2>/dev/null)" != "$FLAGS_TEXT" ]; then
  rm -f "$OBJ"/*.o "$OBJ"/*.d
  printf '%s' "$FLAGS_TEXT" >"$OBJ/flags"
fi
# shellcheck disable=SC2016  # the inner script expands its own variables
printf '%s\n' "${SOURCES[@]}" |
  xargs -P "$FUZZ_JOBS" -I{} bash -c '
    src="$1"; shift
    obj="$OBJ/$(echo "$src" | tr / _).o"
    dep="${obj%.o}.d"
    if [ -f "$obj" ] && [ -f "$dep" ]; then
      # shellcheck disable=SC2046  # the dependency list splits on purpose
      newer=$(find $(sed -e "s/^[^:]*://" -e "s/\\\\$//" "$dep") -newer "$obj" 2>&1 | head -n1)
      [ -z "$newer" ] && exit 0
    fi
    exec "$CLANGXX" "$@" -MMD -c "$SRC/$src" -o "$obj"' _ {} "${SAN[@]}" "${CXXFLAGS[@]}" ||
  die "compile failed"
OBJECTS=()
for s in "${SOURCES[@]}"; do OBJECTS+=("$OBJ/$(echo "$s" | tr / _).o"); done
"$CLANGXX" "${SAN[@]}" "${OBJECTS[@]}" -o "$FUZZER" ${LIBS[@]+"${LIBS[@]}"} ||
  die "link failed"
log "built $FUZZER"

# -------------------------------------------------------------------- run --
# The fuzzer's base dir goes under here; a crash (abort) leaves it behind.
rm -rf "$BUILD/tmp" && mkdir -p "$BUILD/tmp"
export TMPDIR="$BUILD/tmp"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# shellcheck disable=SC2206  # FUZZ_ARGS is a flag list on purpose
EXTRA=(${FUZZ_ARGS:-})
log "fuzzing $TARGET for ${SECONDS_TO_RUN}s (seeds: $SEEDS)"
set +e
"$FUZZER" \
  -max_total_time="$SECONDS_TO_RUN" -timeout=25 -max_len="$MAX_LEN" -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/" "${EXTRA[@]}" \
  "$BUILD/corpus" "$SEEDS"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
  log "FAILED (exit $rc): the fuzzer found a problem; reproduce with"
  log "  $FUZZER <artifact>   (artifacts in $BUILD/artifacts/)"
  ls -1 "$BUILD/artifacts" >&2 || true
  exit "$rc"
fi
log "no crash in ${SECONDS_TO_RUN}s"
