// The binary contract between the kernel and a plugin .so: one C-linkage
// entry symbol returning a versioned, size-tagged descriptor. Read this file
// before changing anything in plugin-sdk/: what may change in a minor version
// is listed at the bottom.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abx/sdk/version.h"

namespace abx::sdk {
class Plugin;
class HostContext;
}  // namespace abx::sdk

#define ABX_SDK_STR2(x) #x
#define ABX_SDK_STR(x) ABX_SDK_STR2(x)

#if defined(_LIBCPP_VERSION)
#define ABX_SDK_FP_STDLIB "libc++-" ABX_SDK_STR(_LIBCPP_VERSION)
#define ABX_SDK_FP_DUALABI "0"
#elif defined(__GLIBCXX__)
#define ABX_SDK_FP_STDLIB "libstdc++-" ABX_SDK_STR(_GLIBCXX_RELEASE)
#define ABX_SDK_FP_DUALABI ABX_SDK_STR(_GLIBCXX_USE_CXX11_ABI)
#else
#define ABX_SDK_FP_STDLIB "unknown"
#define ABX_SDK_FP_DUALABI "0"
#endif

#if defined(_GLIBCXX_DEBUG) || defined(_LIBCPP_DEBUG)
#define ABX_SDK_FP_DEBUG "1"
#else
#define ABX_SDK_FP_DEBUG "0"
#endif

#if defined(__clang__)
#define ABX_SDK_FP_CC "clang-" ABX_SDK_STR(__clang_major__)
#elif defined(__GNUC__)
#define ABX_SDK_FP_CC "gcc-" ABX_SDK_STR(__GNUC__)
#else
#define ABX_SDK_FP_CC "unknown"
#endif

/**
 * Build fingerprint: every field but `cc` must equal the kernel's, because
 * std::string, std::function and vtables cross the boundary. A different
 * compiler major only warns.
 */
#define ABX_BUILD_FINGERPRINT                                                            \
  "stdlib=" ABX_SDK_FP_STDLIB ";cxx11abi=" ABX_SDK_FP_DUALABI ";debug=" ABX_SDK_FP_DEBUG \
  ";ptr=" ABX_SDK_STR(__SIZEOF_POINTER__) ";cc=" ABX_SDK_FP_CC

#define ABX_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
#define ABX_PLUGIN_ENTRY_SYMBOL "abx_plugin_entry"

extern "C" {

/** What a plugin is; the kernel treats both alike, discovery reports it. */
enum abx_plugin_kind : std::uint32_t {
  ABX_KIND_CAPABILITY = 1, /**< serves routes and/or commands */
  ABX_KIND_ADAPTER = 2,    /**< provides abx.agent_adapter.v1 */
};

/**
 * The descriptor a plugin returns from abx_plugin_entry().
 * LIFETIME: static storage in the plugin; valid while the library is mapped.
 * The first three fields never move. The kernel reads min(struct_size,
 * sizeof(abx_plugin_info)) bytes.
 */
struct abx_plugin_info {
  std::uint32_t struct_size;
  std::uint16_t abi_major;
  std::uint16_t abi_minor;
  const char* build_fingerprint; /**< ABX_BUILD_FINGERPRINT of the plugin */
  const char* id;                /**< "abx.commands", "com.acme.adapter.foo" */
  const char* version;           /**< the plugin's own semver */
  std::uint32_t kind;            /**< abx_plugin_kind */
  const char* config_schema;     /**< JSON Schema of `settings`, or nullptr */
  /** Creates the instance; nullptr on failure. OWNERSHIP: caller, released
   *  only through destroy. Never throws. */
  abx::sdk::Plugin* (*create)(abx::sdk::HostContext* host);
  /** Destroys what create returned, inside the plugin's own heap. */
  void (*destroy)(abx::sdk::Plugin* plugin);
};

typedef const abx_plugin_info* (*abx_plugin_entry_fn)(void);
}

// Minor-version rules (append-only): a trailing field in abx_plugin_info, a
// new interface, a trailing virtual on an interface plugins never
// implement (HostContext and its parts), or a trailing field of a struct the
// host creates and plugins only read by reference (TurnContext). Everything
// else bumps the major.
//
// History: 1.0 — the first contract. 1.1 — agent_adapter.h (AgentAdapter,
// EventParser, abx.agent_adapter.v1). 1.2 — TurnContext::session_usage.
// 1.3 — HostContext::admit (admission.h), privateDirectory, takeSecretEnv;
// Subprocess's child user (setChildUser, childUser, giveToChildUser) and
// spawnOnTerminal (gone in 2.0); randomHex (random.h); identifyProgramFile
// (program_identity.h). 1.4 — detached streams: SseStream::detach and
// frames (trailing virtuals; only the kernel implements SseStream), SseFeed,
// SseWaker, appendSseFrame; SseStream::defer and DeferredAnswer;
// Subprocess::readinessFds. 1.5 — the one JSON layer: Json's nested
// access, iteration and own typed reads (get, at, size, elements, members,
// as*), JsonWriter, appendJsonQuoted; the parser is the SDK's own (no JSON
// library is loaded with the SDK).
//
// 2.0 — the one deliberate break: plugins own their vocabulary. GroupSpec
// gains `params` (ParamSpec: key, type, description, default, bounds) and
// sdk::Params becomes a typed view of the declared keys (boolean, integer,
// number, string, strings, integers) instead of a struct naming fourteen keys
// of five groups; the kernel checks policy documents against the
// declarations. Settings: the kernel maps ABX_<PLUGIN>_<KEY> (and a
// property's "x-env" names) onto the schema's properties and applies its
// "default"s; Settings gains integer/number/boolean/list reads. The unused
// EventBus and HostContext::events() are gone (events.h). One route-table
// helper, addRoutes (route_table.h). One redactor: SecretRedactor
// (secret_redactor.h, redaction_patterns.h, secret_spellings.h) behind
// HostContext::redactor() and the log, with token shapes.
//
// 2.0, also: one spawner: SpawnOptions::terminal (TerminalSize) starts a child on a new
// pseudo-terminal (setsid, TIOCSCTTY, window size, IUTF8, the child user,
// cwd and env like any spawn), with Subprocess::terminalFd() and
// resizeTerminal(); spawnOnTerminal is gone. One keeper of the protected
// environment names: ChildEnvironment::isProtected (a new pure virtual) and
// a snapshot() that never holds one; the process-global
// Subprocess::protectEnvironment / isProtectedEnvName are gone, and spawn()
// passes SpawnOptions::env as given.
// 2.0, also: helpers several groups wrote alike: utf8.h (utf8SafeCut,
// completeUtf8Length, leadingContinuationBytes, messageTail) and
// policy_limits.h (policyTimeout, policyOutputCap, requestTimeout,
// secondsToMilliseconds, secondsText).
// 2.1 — additions: HostInfo::checking (check-config starts plugins to check
// them; they bind no port and start no child) and Subprocess::reapOrphans
// (the kernel, a child subreaper, reaps the children no Subprocess owns).
// 2.2 — additions: HostContext::metrics() and metrics.h (counters, gauges,
// histograms and callback gauges GET /metrics exports; the cells' layout is
// part of the contract, the families and the registry are interfaces only
// the host implements).
// 2.3 — additions: ProcessLimits (RLIMIT_CPU set in the child before its
// exec) and the Subprocess::spawn overload taking it — a new struct rather
// than a SpawnOptions member, because plugins create SpawnOptions;
// policyMaxDuration (policy_limits.h), and policyTimeout bounded by
// limits.max_duration_seconds too; SseStream::header() (a trailing virtual
// on an interface only the host implements).
// 2.4 — additions: http_head.h, the one strict HTTP/1.x request-head
// parser (RequestHead, HeadError, headEnd, parseRequestHead, reasonPhrase,
// equalsIgnoreCase) for the kernel's event loop and a plugin serving a port
// of its own, which before each carried a copy; HostContext::call
// (local_call.h: a route served in-process for a caller the plugin
// authenticated, through admission, limits, handler and audit) and
// HostContext::openApiFor (the operations and schemas a caller is offered),
// for plugins that front other plugins' routes (the MCP server).
// 2.5 — additions: text_codecs.h (base64Encode/base64Decode, percentEncode,
// percentDecode, decodeQuery) and digest.h (sha1, sha256): the
// one copy of each, where the kernel, the terminal's port, the browser and
// the agents each had their own or linked a library for one function;
// lazy_library.h (LazyLibrary: a library opened by soname on first use, as
// the files, browser and agents plugins each did by hand);
// Request::policyParams (the rule's params, which four plugins each read
// through a helper of their own).
