// Small text helpers shared by the /proc parsers: reading a pseudo-file
// (which reports size 0, so it is read to EOF), splitting on whitespace and
// strict number parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abx::plugins::system {

/** The whole file, or nullopt when it cannot be opened or read. */
std::optional<std::string> readTextFile(const std::string& path);

/** Fields separated by runs of spaces or tabs. */
std::vector<std::string_view> splitFields(std::string_view line);

/** The lines of @p text without their '\n' (a trailing '\r' is kept). */
std::vector<std::string_view> splitLines(std::string_view text);

/** A whole-field unsigned decimal or hexadecimal number; nullopt on any junk. */
std::optional<std::uint64_t> parseUnsigned(std::string_view text, int base = 10);

/** A whole-field non-negative decimal such as "0.15"; nullopt on any junk. */
std::optional<double> parseDecimal(std::string_view text);

}  // namespace abx::plugins::system
