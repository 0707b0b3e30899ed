// Parsed with POCO JSON: the SDK's Json reads objects only, and these
// outputs are arrays and objects of objects.
#include "package_list.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "abx/sdk/json.h"
#include "json_text.h"

namespace abx::plugins::system {
namespace {

std::string textOf(const Poco::Dynamic::Var& value) {
  if (value.isEmpty()) return {};
  try {
    return value.isString() ? value.extract<std::string>() : value.convert<std::string>();
  } catch (const Poco::Exception&) {
    return {};
  }
}

std::string tail(std::string_view text, std::size_t max = 2048) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.size() <= max) return std::string(text);
  text = text.substr(text.size() - max);
  while (!text.empty() && (static_cast<unsigned char>(text.front()) & 0xC0) == 0x80)
    text.remove_prefix(1);
  return "..." + std::string(text);
}

sdk::Result<Poco::Dynamic::Var> parse(std::string_view json) {
  try {
    Poco::JSON::Parser parser;
    return parser.parse(std::string(json));
  } catch (const Poco::Exception& e) {
    return sdk::Status::error("invalid JSON: " + e.displayText(), "ValueError");
  } catch (const std::exception& e) {
    return sdk::Status::error(std::string("invalid JSON: ") + e.what(), "ValueError");
  }
}

std::string secondsText(double seconds) {
  std::string text = roundedNumber(seconds, 3);
  if (text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

}  // namespace

std::optional<std::vector<std::string>> packageListArgv(std::string_view manager) {
  if (manager == "pip")
    // -I: no PYTHON* variables, no user site-packages, no current directory
    // on sys.path — only the interpreter's own pip can answer.
    return std::vector<std::string>{"python3", "-I", "-m", "pip", "list", "--format=json"};
  if (manager == "npm") return std::vector<std::string>{"npm", "ls", "-g", "--json", "--depth=0"};
  return std::nullopt;
}

sdk::Result<std::vector<Package>> parsePipList(std::string_view json) {
  auto parsed = parse(json);
  if (!parsed) return parsed.status();
  auto array = parsed->type() == typeid(Poco::JSON::Array::Ptr)
                   ? parsed->extract<Poco::JSON::Array::Ptr>()
                   : Poco::JSON::Array::Ptr();
  if (!array) return sdk::Status::error("expected a JSON array of packages", "ValueError");
  std::vector<Package> out;
  for (std::size_t i = 0; i < array->size(); ++i) {
    auto item = array->getObject(static_cast<unsigned>(i));
    if (!item) return sdk::Status::error("expected package objects in the array", "ValueError");
    Package package{textOf(item->get("name")), textOf(item->get("version"))};
    if (!package.name.empty()) out.push_back(std::move(package));
  }
  return out;
}

sdk::Result<std::vector<Package>> parseNpmList(std::string_view json) {
  auto parsed = parse(json);
  if (!parsed) return parsed.status();
  auto root = parsed->type() == typeid(Poco::JSON::Object::Ptr)
                  ? parsed->extract<Poco::JSON::Object::Ptr>()
                  : Poco::JSON::Object::Ptr();
  if (!root) return sdk::Status::error("expected a JSON object", "ValueError");
  std::vector<Package> out;
  auto dependencies = root->getObject("dependencies");
  if (!dependencies) return out;
  std::vector<std::string> names;
  dependencies->getNames(names);  // sorted
  for (const auto& name : names) {
    Package package{name, {}};
    if (auto info = dependencies->getObject(name))
      package.version = textOf(info->get("version"));
    else
      package.version = textOf(dependencies->get(name));
    out.push_back(std::move(package));
  }
  return out;
}

sdk::Result<std::vector<Package>> interpretPackageRun(std::string_view manager,
                                                      const sdk::Completed& run,
                                                      double timeout_seconds) {
  const std::string who(manager);
  if (run.timed_out)
    return sdk::Status::error(who + " timed out after " + secondsText(timeout_seconds) + " s",
                              "TimeoutError");
  if (run.truncated)
    return sdk::Status::error(who + " printed more than the output limit", "OutputLimitError");
  auto packages = manager == "npm" ? parseNpmList(run.out) : parsePipList(run.out);
  if (packages) return packages;
  if (run.exit_code != 0) {
    if (manager == "pip" && run.err.find("No module named pip") != std::string::npos)
      return std::vector<Package>{};
    std::string message = who + " exited with code " + std::to_string(run.exit_code);
    if (std::string err = tail(run.err); !err.empty()) message += ": " + err;
    return sdk::Status::error(std::move(message), "CommandError");
  }
  return sdk::Status::error(who + " printed " + packages.status().message(), "ValueError");
}

std::string packagesJson(std::string_view manager, const std::vector<Package>& packages) {
  std::string list = "[";
  for (const auto& package : packages) {
    if (list.size() > 1) list += ',';
    list += JsonObject().str("name", package.name).str("version", package.version).done();
  }
  list += ']';
  return JsonObject().str("manager", manager).raw("packages", list).done();
}

}  // namespace abx::plugins::system
