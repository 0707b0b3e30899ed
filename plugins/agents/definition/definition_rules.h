// The input validation rules of agents spec §9.11, one predicate each, so the
// definition parser and its tests share a single statement of every rule.
// A "problem" function returns nullopt when the value is acceptable and a
// message (without the field path) when it is not.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace abx::plugins::agents {

/** [A-Za-z0-9._-]{1,64}, and not "." or ".." (names become URL path segments). */
bool isValidAgentName(std::string_view name);
/** Same alphabet as agent names; registry membership is checked by a caller-given predicate. */
bool isValidRuntimeName(std::string_view name);
/** [A-Za-z0-9_-]{1,40}. */
bool isValidMcpServerName(std::string_view name);
/**
 * An MCP tool name (allowed_tools entries): [A-Za-z0-9_-]{1,64}. Adapters join
 * tool names into argv and config (Claude Code's comma-separated
 * --allowedTools), so a ',' or ' ' in one would name another tool.
 */
bool isValidMcpToolName(std::string_view name);
/** [A-Za-z_][A-Za-z0-9_]*. */
bool isValidEnvName(std::string_view name);
/** An HTTP header field name (RFC 9110 token). */
bool isValidHeaderName(std::string_view name);

enum class EnvKind { env, secret };

/**
 * Syntax plus the deny list: LD_* and DYLD_* (dynamic loader), ABX_* (server
 * variables, never passed to children), shell start-up hooks (BASH_ENV, ENV,
 * SHELLOPTS, BASHOPTS, IFS), GCONV_PATH; PATH only as EnvKind::env.
 */
std::optional<std::string> envNameProblem(std::string_view name, EnvKind kind);

/**
 * workspace.git.url: scheme https://, ssh:// or git:// with a host, or the
 * scp-like ssh form user@host:path; never starting with '-' (it would be read
 * as an option by git) and no whitespace or control characters.
 */
std::optional<std::string> gitUrlProblem(std::string_view url);

/** workspace.git.ref: non-empty, no leading '-', no whitespace or control characters. */
std::optional<std::string> gitRefProblem(std::string_view ref);

/** workspace.path: absolute, no ".." component, no control characters. */
std::optional<std::string> workspacePathProblem(std::string_view path);

/** provider.base_url and MCP urls: http:// or https:// with a host, no whitespace. */
std::optional<std::string> httpUrlProblem(std::string_view url);

/** An MCP header value: no CR, LF or NUL (header injection). */
std::optional<std::string> headerValueProblem(std::string_view value);

}  // namespace abx::plugins::agents
