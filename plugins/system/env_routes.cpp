#include "env_routes.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/json.h"
#include "env_rules.h"

namespace abx::plugins::system {
namespace {

int statusFor(const sdk::Status& status) {
  if (status.type() == "PermissionError") return 403;
  if (status.type() == "ValueError") return 400;
  return 500;
}

}  // namespace

sdk::Response getEnv(const EnvContext& context, const sdk::Request& request) {
  auto whitelist = parseFilter(request.queryParam("filter"));
  auto variables =
      visibleVariables(context.environment->snapshot(), whitelist, request.policyParams());
  sdk::JsonWriter body;
  body.beginObject().key("variables").beginObject();
  for (const auto& [name, value] : variables)
    body.member(name, context.redactor ? context.redactor->redact(value) : value);
  return sdk::Response::json(body.endObject().endObject().take());
}

sdk::Response setEnv(const EnvContext& context, const sdk::Request& request) {
  auto validated = validateEnvUpdate(request.json, context.host_refuses, request.policyParams());
  if (auto* refusal = std::get_if<EnvRefusal>(&validated))
    return sdk::Response::error(refusal->status, refusal->message, refusal->type, refusal->code);
  auto& updates = std::get<0>(validated);

  // Everything was checked; set() can still refuse if the host's protected
  // set grew meanwhile (a policy reload). Then restore what was overwritten.
  // (The SDK has no unset, so a variable that did not exist stays.)
  std::vector<std::pair<std::string, std::optional<std::string>>> applied;
  for (const auto& [name, value] : updates) {
    auto previous = context.environment->get(name);
    if (auto s = context.environment->set(name, value); !s) {
      for (auto it = applied.rbegin(); it != applied.rend(); ++it)
        if (it->second) (void)context.environment->set(it->first, *it->second);
      return sdk::Response::error(statusFor(s), s.message(),
                                  s.type().empty() ? "RuntimeError" : s.type());
    }
    applied.emplace_back(name, std::move(previous));
  }

  sdk::JsonWriter body;
  body.beginObject().key("updated").beginArray();
  for (const auto& update : updates) body.value(update.first);
  return sdk::Response::json(body.endArray().endObject().take());
}

}  // namespace abx::plugins::system
