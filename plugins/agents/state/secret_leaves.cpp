#include "state/secret_leaves.h"

#include <functional>

namespace abx::plugins::agents {
namespace {

std::string pointerToken(std::string_view key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

// Calls @p visit on every string of @p tree with its pointer and dotted path.
void eachString(
    ConfigValue& tree, const std::string& pointer, const std::string& path,
    const std::function<void(ConfigValue&, const std::string&, const std::string&)>& visit) {
  switch (tree.kind) {
    case ConfigValue::Kind::string:
      visit(tree, pointer, path);
      return;
    case ConfigValue::Kind::object:
      for (auto& [key, member] : tree.members)
        eachString(member, pointer + "/" + pointerToken(key), path.empty() ? key : path + "." + key,
                   visit);
      return;
    case ConfigValue::Kind::array:
      for (std::size_t i = 0; i < tree.items.size(); ++i)
        eachString(tree.items[i], pointer + "/" + std::to_string(i),
                   path + "[" + std::to_string(i) + "]", visit);
      return;
    default:
      return;
  }
}

void replaceAll(std::string& text, const std::string& from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::vector<SecretLeaf> takeSecretLeaves(ConfigValue& tree,
                                         const std::vector<std::string>& secrets) {
  std::vector<SecretLeaf> taken;
  eachString(tree, "", "", [&](ConfigValue& leaf, const std::string& pointer, const std::string&) {
    std::string original = leaf.text;
    for (const auto& secret : secrets)
      if (!secret.empty()) replaceAll(leaf.text, secret, kSecretNotKept);
    if (leaf.text != original) taken.push_back({pointer, std::move(original)});
  });
  return taken;
}

bool putSecretLeaf(ConfigValue& tree, std::string_view pointer, std::string value) {
  ConfigValue* at = &tree;
  while (!pointer.empty()) {
    if (pointer.front() != '/') return false;
    pointer.remove_prefix(1);
    const auto end = pointer.find('/');
    const auto segment = pointer.substr(0, end);
    std::string token;
    for (std::size_t i = 0; i < segment.size(); ++i)
      token += segment[i] != '~' || i + 1 == segment.size() ? segment[i]
               : segment[++i] == '0'                        ? '~'
                                                            : '/';
    pointer = end == std::string_view::npos ? std::string_view() : pointer.substr(end);
    ConfigValue* next = nullptr;
    if (at->kind == ConfigValue::Kind::object) {
      for (auto& [key, member] : at->members)
        if (key == token) next = &member;
    } else if (at->kind == ConfigValue::Kind::array) {
      std::size_t index = 0;
      for (char c : token) {
        if (c < '0' || c > '9') return false;
        index = index * 10 + static_cast<std::size_t>(c - '0');
      }
      if (!token.empty() && index < at->items.size()) next = &at->items[index];
    }
    if (!next) return false;
    at = next;
  }
  if (at->kind != ConfigValue::Kind::string) return false;
  at->text = std::move(value);
  return true;
}

std::vector<std::string> secretsNotKept(const ConfigValue& tree) {
  std::vector<std::string> paths;
  // eachString takes a mutable tree to serve both walks; this one only reads.
  eachString(const_cast<ConfigValue&>(tree), "", "",
             [&](ConfigValue& leaf, const std::string&, const std::string& path) {
               if (leaf.text.find(kSecretNotKept) != std::string::npos) paths.push_back(path);
             });
  return paths;
}

void writeConfigValue(sdk::JsonWriter& w, const ConfigValue& tree) {
  switch (tree.kind) {
    case ConfigValue::Kind::null:
      w.null();
      return;
    case ConfigValue::Kind::boolean:
      w.value(tree.boolean);
      return;
    case ConfigValue::Kind::integer:
      w.value(tree.integer);
      return;
    case ConfigValue::Kind::number:
      w.value(tree.number);
      return;
    case ConfigValue::Kind::string:
      w.value(tree.text);
      return;
    case ConfigValue::Kind::array:
      w.beginArray();
      for (const auto& item : tree.items) writeConfigValue(w, item);
      w.endArray();
      return;
    case ConfigValue::Kind::object:
      w.beginObject();
      for (const auto& [key, member] : tree.members) {
        w.key(key);
        writeConfigValue(w, member);
      }
      w.endObject();
      return;
  }
}

}  // namespace abx::plugins::agents
