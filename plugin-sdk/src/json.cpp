// Json: reads over the parsed tree (json_node.h). A value is a shared owner
// of the whole document plus a pointer to its node, so nested access and
// copies never copy a subtree.
#include "abx/sdk/json.h"

#include <cmath>

#include "json_node.h"

namespace abx::sdk {

using json_detail::Node;

// A value reached by get/at keeps its parent and the step from it, so its
// path is spelled only when a message needs it.
struct Json::Impl {
  std::shared_ptr<const Node> document;
  const Node* node = nullptr;  // nullptr: missing
  std::shared_ptr<const Impl> parent;
  std::string key;               // the step from parent: a member name...
  std::size_t index = kNoIndex;  // ...or an element index
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);

  void appendPath(std::string& out) const {
    if (!parent) return;
    parent->appendPath(out);
    if (index != kNoIndex) {
      out += '[';
      out += std::to_string(index);
      out += ']';
      return;
    }
    if (!out.empty()) out += '.';
    out += key;
  }
};

namespace {

const std::shared_ptr<const Node>& emptyObject() {
  static const auto kEmpty = [] {
    auto node = std::make_shared<Node>();
    node->kind = JsonKind::object;
    return std::shared_ptr<const Node>(std::move(node));
  }();
  return kEmpty;
}

std::string fieldName(const std::string& path) { return "'" + path + "'"; }

Status missingField(const std::string& path) {
  if (path.empty()) return Status::error("Missing required value", "ValueError");
  return Status::error("Missing required field " + fieldName(path), "ValueError");
}

Status wrongType(const std::string& path, std::string_view type) {
  if (path.empty()) return Status::error("Value must be " + std::string(type), "ValueError");
  return Status::error("Field " + fieldName(path) + " must be " + std::string(type), "ValueError");
}

const Node* memberOf(const Node* node, std::string_view key) {
  if (!node || node->kind != JsonKind::object) return nullptr;
  for (const auto& member : node->members)
    if (member.key == key) return &member.value;
  return nullptr;
}

}  // namespace

Json::Json() : impl_(std::make_shared<Impl>(Impl{emptyObject(), emptyObject().get(), {}, {}})) {}

Json Json::missing() { return Json().get({}); }
Json::~Json() = default;
Json::Json(const Json&) = default;
Json::Json(Json&&) noexcept = default;
Json& Json::operator=(const Json&) = default;
Json& Json::operator=(Json&&) noexcept = default;
Json::Json(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<Json> Json::parse(std::string_view text) {
  std::string error;
  auto document = json_detail::parseDocument(text, error);
  if (!document) return Status::error("Invalid JSON: " + error, "ValueError");
  const Node* root = document.get();
  return Json(std::make_shared<Impl>(Impl{std::move(document), root, {}, {}}));
}

JsonKind Json::kind() const { return impl_->node ? impl_->node->kind : JsonKind::missing; }
std::string Json::path() const {
  std::string out;
  impl_->appendPath(out);
  return out;
}

Json Json::get(std::string_view key) const {
  return Json(std::make_shared<Impl>(
      Impl{impl_->document, memberOf(impl_->node, key), impl_, std::string(key)}));
}

Json Json::at(std::size_t index) const {
  const Node* node = impl_->node;
  const Node* element = node && node->kind == JsonKind::array && index < node->elements.size()
                            ? &node->elements[index]
                            : nullptr;
  return Json(std::make_shared<Impl>(Impl{impl_->document, element, impl_, {}, index}));
}

std::size_t Json::size() const {
  const Node* node = impl_->node;
  if (!node) return 0;
  if (node->kind == JsonKind::array) return node->elements.size();
  if (node->kind == JsonKind::object) return node->members.size();
  return 0;
}

std::vector<Json> Json::elements() const {
  std::vector<Json> out;
  const Node* node = impl_->node;
  if (!node || node->kind != JsonKind::array) return out;
  out.reserve(node->elements.size());
  for (std::size_t i = 0; i < node->elements.size(); ++i) out.push_back(at(i));
  return out;
}

std::vector<std::pair<std::string, Json>> Json::members() const {
  std::vector<std::pair<std::string, Json>> out;
  const Node* node = impl_->node;
  if (!node || node->kind != JsonKind::object) return out;
  out.reserve(node->members.size());
  for (const auto& member : node->members)
    out.emplace_back(
        member.key,
        Json(std::make_shared<Impl>(Impl{impl_->document, &member.value, impl_, member.key})));
  return out;
}

std::vector<std::string> Json::keys() const {
  std::vector<std::string> out;
  if (const Node* node = impl_->node; node && node->kind == JsonKind::object)
    for (const auto& member : node->members) out.push_back(member.key);
  return out;
}

JsonKind Json::kind(std::string_view key) const {
  const Node* node = memberOf(impl_->node, key);
  return node ? node->kind : JsonKind::missing;
}

std::string_view Json::stringView() const {
  const Node* node = impl_->node;
  return node && node->kind == JsonKind::string ? std::string_view(node->text) : std::string_view();
}

Result<std::string> Json::asString(std::optional<std::string> fallback) const {
  if (isAbsent())
    return fallback ? Result<std::string>(*std::move(fallback)) : missingField(path());
  if (kind() != JsonKind::string) return wrongType(path(), "a string");
  return impl_->node->text;
}

Result<std::int64_t> Json::asInteger(std::optional<std::int64_t> fallback) const {
  if (isAbsent()) return fallback ? Result<std::int64_t>(*fallback) : missingField(path());
  if (kind() != JsonKind::integer) return wrongType(path(), "an integer");
  if (!impl_->node->in_range) return wrongType(path(), "an integer in the 64-bit range");
  return impl_->node->integer;
}

Result<double> Json::asNumber(std::optional<double> fallback) const {
  if (isAbsent()) return fallback ? Result<double>(*fallback) : missingField(path());
  if (kind() != JsonKind::integer && kind() != JsonKind::number)
    return wrongType(path(), "a number");
  return impl_->node->number;
}

Result<bool> Json::asBoolean(std::optional<bool> fallback) const {
  if (isAbsent()) return fallback ? Result<bool>(*fallback) : missingField(path());
  if (kind() != JsonKind::boolean) return wrongType(path(), "a boolean");
  return impl_->node->boolean;
}

Result<std::vector<std::string>> Json::asStringList(
    std::optional<std::vector<std::string>> fallback) const {
  using List = std::vector<std::string>;
  if (isAbsent()) return fallback ? Result<List>(*std::move(fallback)) : missingField(path());
  if (kind() != JsonKind::array) return wrongType(path(), "an array of strings");
  List out;
  out.reserve(impl_->node->elements.size());
  for (const auto& item : impl_->node->elements) {
    if (item.kind != JsonKind::string) return wrongType(path(), "an array of strings");
    out.push_back(item.text);
  }
  return out;
}

Result<JsonScalar> Json::asScalar() const {
  const Node* node = impl_->node;
  if (!node) return missingField(path());
  switch (node->kind) {
    case JsonKind::null:
      return JsonScalar{};
    case JsonKind::boolean:
      return JsonScalar{node->boolean};
    case JsonKind::integer:
      // Beyond int64 the value is still given, as a double.
      return node->in_range ? JsonScalar{node->integer} : JsonScalar{node->number};
    case JsonKind::number:
      return JsonScalar{node->number};
    case JsonKind::string:
      return JsonScalar{node->text};
    default:
      return wrongType(path(), "a string, number, boolean or null");
  }
}

Result<std::string> Json::string(std::string_view key, std::optional<std::string> fallback) const {
  return get(key).asString(std::move(fallback));
}
Result<std::int64_t> Json::integer(std::string_view key,
                                   std::optional<std::int64_t> fallback) const {
  return get(key).asInteger(fallback);
}
Result<double> Json::number(std::string_view key, std::optional<double> fallback) const {
  return get(key).asNumber(fallback);
}
Result<bool> Json::boolean(std::string_view key, std::optional<bool> fallback) const {
  return get(key).asBoolean(fallback);
}
Result<std::vector<std::string>> Json::stringList(
    std::string_view key, std::optional<std::vector<std::string>> fallback) const {
  return get(key).asStringList(std::move(fallback));
}
Result<JsonScalar> Json::scalar(std::string_view key) const { return get(key).asScalar(); }

Result<Json> Json::object(std::string_view key, bool required) const {
  Json member = get(key);
  if (member.isAbsent()) return required ? Result<Json>(missingField(member.path())) : Json();
  if (member.kind() != JsonKind::object) return wrongType(member.path(), "an object");
  // A document of its own: its fields are named from here.
  return Json(std::make_shared<Impl>(Impl{impl_->document, member.impl_->node, {}, {}}));
}

std::string Json::dump() const {
  std::string out;
  if (impl_->node) json_detail::appendNode(out, *impl_->node);
  return out;
}

std::string Json::dump(std::string_view key) const {
  std::string out;
  if (const Node* node = memberOf(impl_->node, key)) json_detail::appendNode(out, *node);
  return out;
}

}  // namespace abx::sdk
