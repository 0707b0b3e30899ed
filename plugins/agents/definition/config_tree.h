// ConfigTree: the one neutral document tree that agent definitions are read
// from. YAML files, JSON files and HTTP JSON bodies are each converted into a
// ConfigValue first, so a single parser (agent_definition.h) sees one shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/json.h"
#include "abx/sdk/status.h"

namespace abx::plugins::agents {

/** One node of a parsed YAML or JSON document. Object members keep document order. */
struct ConfigValue {
  enum class Kind { null, boolean, integer, number, string, array, object };

  // Declared here, defaulted in the .cpp: clang 14 with libstdc++ 12 cannot
  // otherwise tell whether std::pair<std::string, ConfigValue> (members,
  // below) is default-constructible while it defines that pair.
  ConfigValue();

  Kind kind = Kind::null;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0; /**< also set for integers */
  /** The string, or the scalar's source spelling (YAML text, JSON number text, true/false). */
  std::string text;
  std::vector<ConfigValue> items;
  std::vector<std::pair<std::string, ConfigValue>> members;

  bool isScalar() const { return kind != Kind::array && kind != Kind::object; }
  /** The member named @p key, or nullptr. */
  const ConfigValue* find(std::string_view key) const;
};

/** "null", "boolean", "integer", "number", "string", "array", "object". */
std::string_view kindName(ConfigValue::Kind kind);

/**
 * Parses YAML text. Plain (unquoted) scalars are typed by the YAML core
 * schema (null/~/empty, true/false, integers, floats); quoted scalars are
 * strings. Errors have type ValueError and carry the line number.
 */
sdk::Result<ConfigValue> configFromYaml(std::string_view text);

/** Parses JSON text (sdk::Json). Errors have type ValueError ("Invalid JSON: ..."). */
sdk::Result<ConfigValue> configFromJson(std::string_view text);

/** An already parsed JSON value (a request body): numbers keep their spelling as text. */
ConfigValue configFromJson(const sdk::Json& json);

}  // namespace abx::plugins::agents
