// Json on POCO JSON, and jsonQuote.
#include "abx/sdk/json.h"

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/JSONException.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <sstream>

namespace abx::sdk {

struct Json::Impl {
  Poco::Dynamic::Var root;
};

namespace {

using Poco::Dynamic::Var;

JsonKind kindOf(const Var& v) {
  if (v.isEmpty()) return JsonKind::null;
  if (v.type() == typeid(Poco::JSON::Object::Ptr)) return JsonKind::object;
  if (v.type() == typeid(Poco::JSON::Array::Ptr)) return JsonKind::array;
  if (v.isBoolean()) return JsonKind::boolean;
  if (v.isInteger()) return JsonKind::integer;
  if (v.isNumeric()) return JsonKind::number;
  if (v.isString()) return JsonKind::string;
  return JsonKind::null;
}

const Poco::JSON::Object* asObject(const Var& v) {
  if (v.type() != typeid(Poco::JSON::Object::Ptr)) return nullptr;
  return v.extract<Poco::JSON::Object::Ptr>().get();
}

Status missing(std::string_view key) {
  return Status::error("Missing required field '" + std::string(key) + "'", "ValueError");
}

Status wrongType(std::string_view key, std::string_view type) {
  return Status::error("Field '" + std::string(key) + "' must be " + std::string(type),
                       "ValueError");
}

std::string stringify(const Var& v) {
  std::ostringstream out;
  Poco::JSON::Stringifier::stringify(v, out, 0, -1, Poco::JSON_WRAP_STRINGS);
  return out.str();
}

}  // namespace

Json::Json()
    : impl_(std::make_shared<Impl>(Impl{
          Var(Poco::JSON::Object::Ptr(new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER)))})) {}
Json::~Json() = default;
Json::Json(const Json&) = default;
Json::Json(Json&&) noexcept = default;
Json& Json::operator=(const Json&) = default;
Json& Json::operator=(Json&&) noexcept = default;
Json::Json(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<Json> Json::parse(std::string_view text) {
  try {
    Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
    auto impl = std::make_shared<Impl>();
    // POCO's ParseHandler refuses a top-level scalar ("Attempt to set value
    // on an empty stack"), which RFC 8259 allows: parse it as the one element
    // of an array. POCO rejects text after the end, so the wrapper cannot
    // smuggle in a second value.
    auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] != '{' && text[first] != '[') {
      auto wrapped = parser.parse("[" + std::string(text) + "]");
      const auto& array = wrapped.extract<Poco::JSON::Array::Ptr>();
      if (array->size() != 1)
        return Status::error("Invalid JSON: more than one value", "ValueError");
      impl->root = array->get(0);
    } else {
      impl->root = parser.parse(std::string(text));
    }
    return Json(std::move(impl));
  } catch (const Poco::Exception& e) {
    return Status::error("Invalid JSON: " + e.message(), "ValueError");
  } catch (const std::exception& e) {
    return Status::error(std::string("Invalid JSON: ") + e.what(), "ValueError");
  }
}

JsonKind Json::kind() const { return kindOf(impl_->root); }

namespace {
std::optional<Var> member(const Var& root, std::string_view key) {
  const auto* object = asObject(root);
  if (!object) return std::nullopt;
  std::string k(key);
  if (!object->has(k)) return std::nullopt;
  return object->get(k);
}
}  // namespace

JsonKind Json::kind(std::string_view key) const {
  const auto v = member(impl_->root, key);
  return v ? kindOf(*v) : JsonKind::missing;
}

std::vector<std::string> Json::keys() const {
  std::vector<std::string> out;
  if (const auto* object = asObject(impl_->root)) object->getNames(out);
  return out;
}

Result<std::string> Json::string(std::string_view key, std::optional<std::string> fallback) const {
  const auto v = member(impl_->root, key);
  if (!v || v->isEmpty()) {
    if (fallback) return *std::move(fallback);
    return missing(key);
  }
  if (kindOf(*v) != JsonKind::string) return wrongType(key, "a string");
  return v->extract<std::string>();
}

Result<std::int64_t> Json::integer(std::string_view key,
                                   std::optional<std::int64_t> fallback) const {
  const auto v = member(impl_->root, key);
  if (!v || v->isEmpty()) {
    if (fallback) return *fallback;
    return missing(key);
  }
  if (kindOf(*v) != JsonKind::integer) return wrongType(key, "an integer");
  try {
    return v->convert<Poco::Int64>();
  } catch (const Poco::Exception&) {
    return wrongType(key, "an integer in the 64-bit range");
  }
}

Result<double> Json::number(std::string_view key, std::optional<double> fallback) const {
  const auto v = member(impl_->root, key);
  if (!v || v->isEmpty()) {
    if (fallback) return *fallback;
    return missing(key);
  }
  auto k = kindOf(*v);
  if (k != JsonKind::integer && k != JsonKind::number) return wrongType(key, "a number");
  return v->convert<double>();
}

Result<bool> Json::boolean(std::string_view key, std::optional<bool> fallback) const {
  const auto v = member(impl_->root, key);
  if (!v || v->isEmpty()) {
    if (fallback) return *fallback;
    return missing(key);
  }
  if (kindOf(*v) != JsonKind::boolean) return wrongType(key, "a boolean");
  return v->extract<bool>();
}

Result<std::vector<std::string>> Json::stringList(
    std::string_view key, std::optional<std::vector<std::string>> fallback) const {
  const auto v = member(impl_->root, key);
  if (!v || v->isEmpty()) {
    if (fallback) return *std::move(fallback);
    return missing(key);
  }
  if (kindOf(*v) != JsonKind::array) return wrongType(key, "an array of strings");
  const auto& array = v->extract<Poco::JSON::Array::Ptr>();
  std::vector<std::string> out;
  out.reserve(array->size());
  for (std::size_t i = 0; i < array->size(); ++i) {
    const Var& item = array->get(static_cast<unsigned>(i));
    if (kindOf(item) != JsonKind::string) return wrongType(key, "an array of strings");
    out.push_back(item.extract<std::string>());
  }
  return out;
}

Result<Json> Json::object(std::string_view key, bool required) const {
  const auto v = member(impl_->root, key);
  if (!v || v->isEmpty()) {
    if (required) return missing(key);
    return Json();
  }
  if (kindOf(*v) != JsonKind::object) return wrongType(key, "an object");
  auto impl = std::make_shared<Impl>();
  impl->root = *v;  // shares the Object::Ptr: no copy of the subtree
  return Json(std::move(impl));
}

Result<JsonScalar> Json::scalar(std::string_view key) const {
  const auto v = member(impl_->root, key);
  if (!v) return missing(key);
  switch (kindOf(*v)) {
    case JsonKind::null:
      return JsonScalar{};
    case JsonKind::boolean:
      return JsonScalar{v->extract<bool>()};
    case JsonKind::integer:
      try {
        return JsonScalar{v->convert<Poco::Int64>()};
      } catch (const Poco::Exception&) {
        return JsonScalar{v->convert<double>()};
      }
    case JsonKind::number:
      return JsonScalar{v->convert<double>()};
    case JsonKind::string:
      return JsonScalar{v->extract<std::string>()};
    default:
      return wrongType(key, "a string, number, boolean or null");
  }
}

std::string Json::dump() const { return stringify(impl_->root); }

std::string Json::dump(std::string_view key) const {
  const auto v = member(impl_->root, key);
  return v ? stringify(*v) : std::string();
}

// Hand-written rather than Poco::UTF8::escape: output of child processes is
// arbitrary bytes, and every response must still be valid JSON, so invalid
// UTF-8 becomes U+FFFD here instead of passing through or throwing.
std::string jsonQuote(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    std::size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = len != 0 && i + len <= n;
    for (std::size_t k = 1; valid && k < len; ++k) valid = (s[i + k] & 0xC0) == 0x80;
    if (valid) {
      unsigned cp = c & (0x7F >> len);
      for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
      // Reject overlong forms, surrogates and values past U+10FFFF.
      static constexpr unsigned kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      valid = cp >= kMin[len] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (valid) {
      out.append(text.data() + i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  out += '"';
  return out;
}

}  // namespace abx::sdk
