#include "package_list.h"

#include <algorithm>

#include "abx/sdk/json.h"
#include "abx/sdk/policy_limits.h"
#include "abx/sdk/utf8.h"

namespace abx::plugins::system {
namespace {

// A string as it is; a number or anything else as its JSON text; null and absent as "".
std::string textOf(const sdk::Json& value) {
  if (value.isAbsent()) return {};
  return value.isString() ? std::string(value.stringView()) : value.dump();
}

// The message reads on after "<manager> printed ": "invalid JSON: <why>".
sdk::Result<sdk::Json> parse(std::string_view json) {
  auto parsed = sdk::Json::parse(json);
  if (parsed) return parsed;
  std::string why = parsed.status().message();
  if (constexpr std::string_view kSdk = "Invalid JSON: "; why.starts_with(kSdk))
    why.erase(0, kSdk.size());
  return sdk::Status::error("invalid JSON: " + why, "ValueError");
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
  if (!parsed->isArray())
    return sdk::Status::error("expected a JSON array of packages", "ValueError");
  std::vector<Package> out;
  for (const auto& item : parsed->elements()) {
    if (!item.isObject())
      return sdk::Status::error("expected package objects in the array", "ValueError");
    Package package{textOf(item.get("name")), textOf(item.get("version"))};
    if (!package.name.empty()) out.push_back(std::move(package));
  }
  return out;
}

sdk::Result<std::vector<Package>> parseNpmList(std::string_view json) {
  auto parsed = parse(json);
  if (!parsed) return parsed.status();
  if (!parsed->isObject()) return sdk::Status::error("expected a JSON object", "ValueError");
  std::vector<Package> out;
  // {"<name>": {"version": ...}}; a name whose value is no object has that value as version.
  for (const auto& [name, info] : parsed->get("dependencies").members())
    out.push_back(Package{name, textOf(info.isObject() ? info.get("version") : info)});
  std::sort(out.begin(), out.end(),
            [](const Package& a, const Package& b) { return a.name < b.name; });
  return out;
}

sdk::Result<std::vector<Package>> interpretPackageRun(std::string_view manager,
                                                      const sdk::Completed& run,
                                                      std::chrono::milliseconds timeout) {
  const std::string who(manager);
  if (run.timed_out)
    return sdk::Status::error(who + " timed out after " + sdk::secondsText(timeout) + " s",
                              "TimeoutError");
  if (run.truncated)
    return sdk::Status::error(who + " printed more than the output limit", "OutputLimitError");
  auto packages = manager == "npm" ? parseNpmList(run.out) : parsePipList(run.out);
  if (packages) return packages;
  if (run.exit_code != 0) {
    if (manager == "pip" && run.err.find("No module named pip") != std::string::npos)
      return std::vector<Package>{};
    std::string message = who + " exited with code " + std::to_string(run.exit_code);
    if (std::string err = sdk::messageTail(run.err, 2048); !err.empty()) message += ": " + err;
    return sdk::Status::error(std::move(message), "CommandError");
  }
  return sdk::Status::error(who + " printed " + packages.status().message(), "ValueError");
}

std::string packagesJson(std::string_view manager, const std::vector<Package>& packages) {
  sdk::JsonWriter out;
  out.beginObject().member("manager", manager).key("packages").beginArray();
  for (const auto& package : packages)
    out.beginObject().member("name", package.name).member("version", package.version).endObject();
  return out.endArray().endObject().take();
}

}  // namespace abx::plugins::system
