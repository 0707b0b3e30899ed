// The SDK's one JSON layer. Json: a parsed JSON value (the pipeline's parsed
// request body, a child's output, a file) with nested access, iteration and
// typed reads whose failures are ready to be sent as a 400 message; each
// value knows its path ("input[2].content") so a message names the exact
// field. JsonWriter: the one way to write JSON text (escaping, numbers,
// commas and nesting done once). Both are std-only: the parser is the SDK's
// own (bounded depth, RFC 8259), so no JSON library crosses or loads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

  /** A missing value (what get() gives for an absent member), for "none" results. */
  static Json missing();
  /** Parses @p text. Failure type is ValueError, message "Invalid JSON: ...". */
  static Result<Json> parse(std::string_view text);

  JsonKind kind() const;
  bool isObject() const { return kind() == JsonKind::object; }
  bool isArray() const { return kind() == JsonKind::array; }
  bool isString() const { return kind() == JsonKind::string; }
  /** Absent (a member not there, an index past the end): not the same as null. */
  bool isMissing() const { return kind() == JsonKind::missing; }
  /** Missing or null: what the typed reads treat as "not given". */
  bool isAbsent() const { return kind() == JsonKind::missing || kind() == JsonKind::null; }
  /** Where this value sits in the parsed document ("" for the root, "a.b[2]");
   *  spelled only when asked (an error message), so walking costs no strings. */
  std::string path() const;

  // Nested access: never fails; an absent member or element is a missing
  // value that remembers its path, so the typed reads below name it.
  /** Member @p key of an object. */
  Json get(std::string_view key) const;
  /** Element @p index of an array. */
  Json at(std::size_t index) const;
  /** Elements of an array or members of an object; 0 for anything else. */
  std::size_t size() const;
  /** The elements of an array, in order (empty for anything else). */
  std::vector<Json> elements() const;
  /** The members of an object, in document order (empty for anything else). */
  std::vector<std::pair<std::string, Json>> members() const;

  // This value's own typed reads, with the rules of the keyed reads below
  // ("Missing required field '<path>'", "Field '<path>' must be ...").
  Result<std::string> asString(std::optional<std::string> fallback = std::nullopt) const;
  Result<std::int64_t> asInteger(std::optional<std::int64_t> fallback = std::nullopt) const;
  Result<double> asNumber(std::optional<double> fallback = std::nullopt) const;
  Result<bool> asBoolean(std::optional<bool> fallback = std::nullopt) const;
  Result<std::vector<std::string>> asStringList(
      std::optional<std::vector<std::string>> fallback = std::nullopt) const;
  Result<JsonScalar> asScalar() const;
  /** The string's text without a copy ("" when this is not a string). */
  std::string_view stringView() const;

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
  /** A nested object member (missing -> empty object unless required), as a
   *  document of its own: its reads name fields from itself ("k", not "a.k"). */
  Result<Json> object(std::string_view key, bool required = false) const;
  /** A scalar member as it is; arrays and objects are a ValueError. */
  Result<JsonScalar> scalar(std::string_view key) const;

  /** Compact JSON text of the whole value, or of one member ("" if missing).
   *  Numbers keep their spelling in the document. */
  std::string dump() const;
  std::string dump(std::string_view key) const;

 private:
  struct Impl;
  explicit Json(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

/**
 * @return @p text as a JSON string literal, quotes included. Invalid UTF-8
 * becomes U+FFFD, so the output is always valid JSON whatever the input.
 */
ABX_SDK_API std::string jsonQuote(std::string_view text);
/** Appends jsonQuote(@p text) to @p out without a temporary. */
ABX_SDK_API void appendJsonQuoted(std::string& out, std::string_view text);

/**
 * Writes JSON text: commas, nesting and escaping are its job, so a caller
 * names keys and values only. Values inside an object need a key() first
 * (member() does both). Numbers: integers exactly; doubles in the shortest
 * form that reads back the same, non-finite ones as null.
 *
 *   JsonWriter w;
 *   w.beginObject().member("id", id).member("n", 3).key("tags").beginArray();
 *   for (auto& t : tags) w.value(t);
 *   w.endArray().endObject();
 *   return w.take();
 *
 * THREAD: one writer per thread.
 */
class ABX_SDK_API JsonWriter {
 public:
  JsonWriter() = default;
  /** Reserves @p bytes of output up front. */
  explicit JsonWriter(std::size_t bytes);

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(unsigned number) { return value(static_cast<std::uint64_t>(number)); }
  JsonWriter& value(std::uint64_t number);
  JsonWriter& value(double number);
  JsonWriter& value(const JsonScalar& scalar);
  /** An array of strings (header-only: no new symbol). */
  JsonWriter& value(const std::vector<std::string>& items) {
    beginArray();
    for (const auto& item : items) value(item);
    return endArray();
  }
  /** The held value, or null (header-only). */
  template <class T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  /** A parsed value as it was (its dump()). */
  JsonWriter& value(const Json& json);
  JsonWriter& null();
  /** An already-encoded JSON value, written as it is (the caller vouches for it). */
  JsonWriter& raw(std::string_view json);
  /** The members of an already-encoded compact JSON object (its whole text,
   *  braces included), written into the object being written (header-only). */
  JsonWriter& members(std::string_view object) {
    return object.size() > 2 ? raw(object.substr(1, object.size() - 2)) : *this;
  }

  template <class T>
  JsonWriter& member(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  /** A member only when @p v holds a value. */
  template <class T>
  JsonWriter& optionalMember(std::string_view name, const std::optional<T>& v) {
    return v ? member(name, *v) : *this;
  }

  /** The text so far. */
  const std::string& text() const { return out_; }
  /** Moves the text out; the writer starts again empty. */
  std::string take();

 private:
  void separate();
  std::string out_;
  std::vector<bool> has_items_;  // per open container: a comma goes before the next item
  bool after_key_ = false;
};

}  // namespace abx::sdk
