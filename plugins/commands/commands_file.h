// The declarative commands file (YAML): commands that run a fixed argv with
// `{param}` placeholders, for template authors who do not compile C++.
// This file only parses and validates; command_runner.h turns an entry into
// a runnable CommandSpec.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/commands.h"
#include "abx/sdk/status.h"

namespace abx::plugins::commands {

enum class OutputMode { text, json };

inline constexpr std::chrono::milliseconds kDefaultTimeout{30000};
inline constexpr std::size_t kDefaultMaxOutputBytes = 1u << 20;

/** One validated entry of the file. */
struct DeclarativeCommand {
  std::string name;
  std::string description;
  /** argv[0] is fixed; later elements may hold `{param}` placeholders. */
  std::vector<std::string> argv;
  std::vector<sdk::CommandArg> args;
  /** Args declared `allow_dash: true`: their text may start an argv element with '-'. */
  std::vector<std::string> allow_dash;
  OutputMode output = OutputMode::text;
  std::chrono::milliseconds timeout = kDefaultTimeout;
  std::size_t max_output_bytes = kDefaultMaxOutputBytes;
  bool hidden = false;
  std::vector<std::string> scopes;
  /** Extra "NAME", "value" pairs, in file order, over the base environment. */
  std::vector<std::pair<std::string, std::string>> env;
  /** Absolute (a relative cwd was resolved against the file's directory), or empty. */
  std::string cwd;
};

/**
 * Parses commands YAML text. @p source names the file in every error
 * ("<source>: command 'x': <problem>"); @p base_dir resolves relative cwds.
 * Errors have type ValueError.
 */
sdk::Result<std::vector<DeclarativeCommand>> parseCommandsYaml(std::string_view text,
                                                               std::string_view source,
                                                               std::string_view base_dir = {});

/** Reads and parses the file at @p path (a read failure has type OSError). */
sdk::Result<std::vector<DeclarativeCommand>> loadCommandsFile(const std::string& path);

/**
 * "1048576", "512KiB", "1MiB", "2MB" (KB/MB/GB are powers of 1000, KiB/MiB/GiB
 * of 1024). @return nullopt when not a positive size.
 */
std::optional<std::size_t> parseByteSize(std::string_view text);

}  // namespace abx::plugins::commands
