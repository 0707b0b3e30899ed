// Json: a parsed JSON value with typed reads whose failures are ready to be
// sent as a 400 message. The parser (POCO JSON) stays behind the pimpl, so
// this header crosses the plugin boundary with the standard library only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::sdk {

enum class JsonKind { missing, null, boolean, integer, number, string, array, object };

/** A JSON scalar as read from a document; monostate is null. */
using JsonScalar = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

/**
 * An immutable JSON value (usually an object: a request body).
 * THREAD: const methods are safe to call concurrently.
 */
class ABX_SDK_API Json {
 public:
  /** An empty object. */
  Json();
  ~Json();
  Json(const Json&);
  Json(Json&&) noexcept;
  Json& operator=(const Json&);
  Json& operator=(Json&&) noexcept;

  /** Parses @p text. Failure type is ValueError, message "Invalid JSON: ...". */
  static Result<Json> parse(std::string_view text);

  JsonKind kind() const;
  bool isObject() const { return kind() == JsonKind::object; }

  /** Object members; on a non-object these see no members. */
  JsonKind kind(std::string_view key) const;
  bool has(std::string_view key) const { return kind(key) != JsonKind::missing; }
  std::vector<std::string> keys() const;

  /**
   * Typed reads. A missing or null member yields @p fallback when given, else
   * "Missing required field '<key>'"; a member of the wrong type yields
   * "Field '<key>' must be a <type>". Both have type ValueError.
   */
  Result<std::string> string(std::string_view key,
                             std::optional<std::string> fallback = std::nullopt) const;
  Result<std::int64_t> integer(std::string_view key,
                               std::optional<std::int64_t> fallback = std::nullopt) const;
  /** Accepts integers and floating-point numbers. */
  Result<double> number(std::string_view key, std::optional<double> fallback = std::nullopt) const;
  Result<bool> boolean(std::string_view key, std::optional<bool> fallback = std::nullopt) const;
  Result<std::vector<std::string>> stringList(
      std::string_view key, std::optional<std::vector<std::string>> fallback = std::nullopt) const;
  /** A nested object member (missing -> empty object unless required). */
  Result<Json> object(std::string_view key, bool required = false) const;
  /** A scalar member as it is; arrays and objects are a ValueError. */
  Result<JsonScalar> scalar(std::string_view key) const;

  /** Compact JSON text of the whole value, or of one member ("" if missing). */
  std::string dump() const;
  std::string dump(std::string_view key) const;

 private:
  struct Impl;
  explicit Json(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

/** @return @p text as a JSON string literal, quotes included. */
ABX_SDK_API std::string jsonQuote(std::string_view text);

}  // namespace abx::sdk
