// The commands that start the plugins without serving: `check-config` (the
// configuration and the policy, --explain) and `openapi` (the document GET
// /openapi.json would serve). Both boot the server told to bind nothing.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/json.h"
#include "cli/cli_parts.h"
#include "core/core_endpoints.h"
#include "core/policy_decision.h"
#include "server/server.h"
#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

std::vector<std::string> splitScopes(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    auto s = text.substr(start, end - start);
    if (!s.empty()) out.push_back(s);
    start = end + 1;
  }
  return out;
}

const std::vector<sdk::ParamSpec>& declaredParamsOf(const std::vector<GroupRecord>& groups,
                                                    const std::string& group) {
  static const std::vector<sdk::ParamSpec> kNone;
  for (const auto& g : groups)
    if (g.spec.name == group) return g.spec.params;
  return kNone;
}

// check-config's and openapi's configuration: plugins start (their routes
// are what the policy is checked against), told to bind nothing, so a check
// beside a running server does not disturb it. nullopt: exit 2.
std::optional<ServerConfig> checkingConfig(const Parsed& p) {
  auto c = baseConfig(p);
  if (!c) return std::nullopt;
  applyPolicyOptions(p, *c);
  if (c->manifest_explicit && !std::filesystem::exists(c->manifest)) {
    std::fprintf(stderr, "agent-sandbox-server: %s: no such plugin manifest\n",
                 c->manifest.c_str());
    return std::nullopt;
  }
  c->checking = true;
  return c;
}

}  // namespace

int printOpenApi(const Parsed& p) {
  auto c = checkingConfig(p);
  if (!c) return 2;
  Server server(std::move(*c));
  if (auto error = server.boot()) {
    std::fprintf(stderr, "agent-sandbox-server: %s\n", error->c_str());
    return 2;
  }
  sdk::Identity caller;
  if (auto s = p.options.find("--scopes"); s != p.options.end())
    caller.scopes = splitScopes(s->second);
  std::printf("%s\n", openApiFor(server.core(), caller, "/").c_str());
  return 0;
}

int checkConfig(const Parsed& p) {
  bool json = p.flags.count("--json") > 0;
  auto c = checkingConfig(p);
  if (!c) return 2;
  Server server(std::move(*c));
  if (auto error = server.boot()) {
    if (json)
      std::printf("%s\n", sdk::JsonWriter()
                              .beginObject()
                              .member("ok", false)
                              .member("error", *error)
                              .endObject()
                              .text()
                              .c_str());
    else
      std::fprintf(stderr, "agent-sandbox-server: %s\n", error->c_str());
    return 2;
  }
  const std::shared_ptr<const Dispatch> held = server.pipeline().current();
  const Dispatch& dispatch = *held;
  const CompiledPolicy& policy = dispatch.admission->compiled();
  // The kernel's start-up warnings (an OpenAPI fragment's, ...), then the policy's.
  std::vector<std::string> warnings = server.core().warnings;
  warnings.insert(warnings.end(), policy.warnings.begin(), policy.warnings.end());
  std::string explained, explained_rule, declared_params;
  if (auto it = p.options.find("--explain"); it != p.options.end()) {
    const Route* route = dispatch.routes->findEndpoint(it->second);
    if (!route) {
      std::vector<std::string> ids;
      for (const auto& r : dispatch.routes->routes()) ids.push_back(r->spec.endpoint);
      std::fprintf(stderr, "agent-sandbox-server: unknown endpoint '%s'%s\n", it->second.c_str(),
                   didYouMean(it->second, ids).c_str());
      return 2;
    }
    sdk::Identity caller;
    caller.id = "explain";
    if (auto s = p.options.find("--scopes"); s != p.options.end())
      caller.scopes = splitScopes(s->second);
    auto op = parsePathOp(p.options.count("--op") ? p.options.at("--op") : "read");
    if (!op) {
      std::fprintf(stderr, "agent-sandbox-server: --op must be read, write, remove or list\n");
      return 2;
    }
    std::optional<std::string> path;
    if (auto s = p.options.find("--path"); s != p.options.end()) path = s->second;
    auto decision = decide(dispatch, *route, caller, path, *op);
    // The verdict, the effective rule (its params included) and the
    // parameters the endpoint's group declares.
    const std::string rule = endpointPolicyJson(dispatch.admission->policy(*route));
    sdk::JsonWriter declared;
    writeDeclaredParams(declared, declaredParamsOf(server.groups(), route->spec.group));
    explained = decisionJson(decision);
    explained_rule = rule;
    declared_params = declared.take();
    if (!json)
      std::printf("%s: %s (rule %s%s%s)\nrule: %s\ndeclared params: %s\n",
                  decision.endpoint.c_str(), decision.allowed ? "allowed" : "denied",
                  decision.rule.c_str(), decision.reason.empty() ? "" : ", reason ",
                  decision.reason.c_str(), rule.c_str(), declared_params.c_str());
  }
  if (json) {
    sdk::JsonWriter out;
    out.beginObject()
        .member("ok", true)
        .member("preset", policy.preset)
        .member("sources", policy.sources)
        .member("endpoints", dispatch.routes->size())
        .member("warnings", warnings);
    // "explain" stays last: it is POST /capabilities/check's body, byte for byte.
    if (!explained.empty())
      out.key("rule").raw(explained_rule).key("declared_params").raw(declared_params);
    if (!explained.empty()) out.key("explain").raw(explained);
    out.endObject();
    std::printf("%s\n", out.text().c_str());
  } else {
    for (const auto& w : warnings) std::printf("warning: %s\n", w.c_str());
    std::printf("configuration ok: %zu endpoints, preset %s, policy %s\n", dispatch.routes->size(),
                policy.preset.c_str(),
                policy.sources.empty() ? "none" : policy.sources.back().c_str());
  }
  return 0;
}
}  // namespace abx::kernel
