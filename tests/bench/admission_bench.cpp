// PolicyAdmission::admit() cost: the default policy (no document) against a
// 50-rule policy, on a 120-route table of 8 groups. See docs/performance.md
// ("Policy admission"); the target is < 2 us added per request with 50 rules.
//
//   build/bin/abx_admission_bench [--benchmark_min_time=1]
//
// Benchmarks (the suffix is the policy: default | policy50):
//   Admit/<p>          admit() for GET /files/{id}/op4 (scopes, paths, limits
//                      and params in the 50-rule policy; no rate/concurrency)
//   AdmitLimited/<p>   admit() for POST /process/{id}/op1, which the 50-rule
//                      policy gives rate_per_minute and max_concurrency
//   MatchAdmit/<p>     RouteTable::match("GET", "/files/abc/op4") + admit()
//   MatchAdmitLiteral/<p>  the same for the literal route GET /files/item6
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/routes.h"
#include "pipeline/admission.h"
#include "policy/policy_document.h"
#include "policy/policy_engine.h"
#include "routing/route_table.h"

namespace {

using abx::kernel::GroupRecord;
using abx::kernel::PolicyAdmission;
using abx::kernel::Route;
using abx::kernel::RouteTable;

constexpr const char* kGroups[] = {"core",   "files", "process", "commands",
                                   "search", "git",   "network", "browser"};
constexpr int kRoutesPerGroup = 15;  // 8 x 15 = 120 routes

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "admission_bench: %s\n", message.c_str());
  std::exit(2);
}

/** Route i of a group: a third literal, two thirds with a `{param}` segment. */
abx::sdk::RouteSpec makeRoute(const std::string& group, int i) {
  abx::sdk::RouteSpec spec;
  spec.group = group;
  spec.endpoint = group + "_op" + std::to_string(i);
  const bool get = i % 2 == 0;
  spec.method = get ? "GET" : "POST";
  switch (i % 3) {
    case 0:
      spec.path = "/" + group + "/item" + std::to_string(i);
      break;
    case 1:
      spec.path = "/" + group + "/{id}/op" + std::to_string(i);
      break;
    default:
      spec.path = "/" + group + "/op" + std::to_string(i) + "/{name}";
      break;
  }
  if (group != "core") spec.scopes = {group + (get ? ":read" : ":write")};
  spec.handler = [](const abx::sdk::Request&) { return abx::sdk::Response::json("{}"); };
  return spec;
}

/**
 * 50 selectors under `endpoints:` — 30 exact ids, 10 globs, 6 group:
 * selectors, @defaults and 3 selectors for what the exact ids leave — plus a
 * `defaults:` rule and `groups:`, with scopes, paths, limits, params, audit.
 */
std::string policy50() {
  std::string y =
      "groups:\n"
      "  browser: true\n"
      "  search: true\n"
      "defaults:\n"
      "  paths:\n"
      "    deny: ['**/.git/**', '**/.ssh/**', '**/.env']\n"
      "  limits:\n"
      "    max_request_bytes: 10MiB\n"
      "    timeout_seconds: 60\n"
      "  params:\n"
      "    block_private_networks: true\n"
      "  audit: deny\n"
      "endpoints:\n";
  int n = 0;
  auto rule = [&](const std::string& selector, const std::string& body) {
    y += "  '" + selector + "':\n" + body;
    ++n;
  };
  // 30 exact ids: files, process, commands and git endpoints.
  for (const char* g : {"files", "process", "commands", "git"}) {
    for (int i = 0; i < (std::string(g) == "git" ? 3 : 9); ++i) {
      std::string id = std::string(g) + "_op" + std::to_string(i);
      std::string body;
      if (id == "files_op4") {  // the measured endpoint: everything but rate/concurrency
        body =
            "    scopes: [files:read]\n"
            "    paths:\n"
            "      allow: [/home/user/**, /tmp/**]\n"
            "      deny: ['**/*.key', '**/secrets/**']\n"
            "      read_only: [/home/user/ro/**]\n"
            "      symlinks: deny\n"
            "    limits: {max_bytes: 5MB, max_entries: 10000, timeout_seconds: 30}\n"
            "    params: {overwrite: false, allow_extensions: [.txt, .md, .json]}\n"
            "    audit: deny\n";
      } else if (id == "process_op1") {  // the rate- and concurrency-limited one
        body =
            "    scopes: [process:write]\n"
            "    limits: {rate_per_minute: 4000000000, max_concurrency: 1000}\n"
            "    params: {allow_commands: [ls, cat, git], deny_commands: [rm]}\n";
      } else if (i % 3 == 0) {
        body = "    limits: {max_bytes: " + std::to_string(1 + i) + "MiB, max_output_bytes: 1MB}\n";
      } else if (i % 3 == 1) {
        body = "    scopes: [" + std::string(g) + ":admin]\n    audit: all\n";
      } else {
        body = "    params: {url_deny: ['*.internal', '169.254.*'], languages: [python, bash]}\n";
      }
      rule(id, body);
    }
  }
  // 10 globs.
  for (const char* glob :
       {"files_op1?", "process_op1*", "commands_op1[0-4]", "git_*", "search_*", "network_op?",
        "network_op1*", "browser_op[0-9]", "*_op14", "core_op*"}) {
    rule(glob, "    limits: {timeout_seconds: 120}\n    audit: deny\n");
  }
  // 6 group selectors.
  for (const char* g : {"files", "process", "commands", "git", "network", "browser"}) {
    rule(std::string("group:") + g,
         "    scopes: [" + std::string(g) + ":read]\n    paths: {symlinks: follow}\n");
  }
  rule("@defaults", "    params: {env_deny: [AWS_*, '*_TOKEN']}\n");
  // 3 more exact ids, to make 50.
  for (const char* id : {"search_op3", "network_op5", "browser_op7"})
    rule(id, "    limits: {max_duration_seconds: 10}\n");
  if (n != 50) die("policy50 has " + std::to_string(n) + " selectors, expected 50");
  return y;
}

/** Every bench group declares the keys the 50-rule policy sets (plugins own
 *  their parameters: undeclared keys are refused). */
std::vector<abx::sdk::ParamSpec> benchParams() {
  using abx::sdk::ParamType;
  std::vector<abx::sdk::ParamSpec> out;
  for (const char* key : {"block_private_networks", "overwrite"})
    out.push_back({key, ParamType::boolean, "bench"});
  for (const char* key :
       {"allow_extensions", "allow_commands", "deny_commands", "url_deny", "languages", "env_deny"})
    out.push_back({key, ParamType::string_list, "bench"});
  return out;
}

struct Fixture {
  RouteTable routes;
  std::vector<GroupRecord> groups;
  std::unique_ptr<PolicyAdmission> admission;
  abx::sdk::Identity caller;
  const Route* files_op4 = nullptr;
  const Route* files_item6 = nullptr;
  const Route* process_op1 = nullptr;

  explicit Fixture(bool with_policy) {
    for (const char* g : kGroups) {
      groups.push_back({{g, std::string(g) == "browser", "bench group", benchParams()}, "bench"});
      for (int i = 0; i < kRoutesPerGroup; ++i)
        if (auto s = routes.add(makeRoute(g, i), "bench"); !s) die(s.message());
    }
    // A caller with a few scopes; the one admit() needs comes last.
    caller.id = "ci";
    caller.scopes = {"commands:run", "git:read", "process:*", "files:*"};

    abx::kernel::PolicyInputs in;
    in.routes = &routes;
    in.groups = groups;
    if (with_policy) {
      auto doc = abx::kernel::parsePolicy(policy50(), "bench:policy50");
      if (!doc) die(doc.status().message());
      in.policy = std::move(*doc);
    }
    auto compiled = abx::kernel::compilePolicy(in, 1);
    if (!compiled) die(compiled.status().message());
    admission = std::make_unique<PolicyAdmission>(routes, *compiled);

    files_op4 = routes.findEndpoint("files_op4");
    files_item6 = routes.findEndpoint("files_op6");
    process_op1 = routes.findEndpoint("process_op1");
    if (!files_op4 || !files_item6 || !process_op1) die("a measured route is missing");
    for (const Route* r : {files_op4, files_item6, process_op1}) {
      if (auto v = admission->admit(*r, caller); v.error)
        die("admit(" + r->spec.endpoint + ") was refused: " + v.error->message);
    }
    if (with_policy) {
      const auto& p = admission->policy(*files_op4);
      if (p.scopes != std::vector<std::string>{"files:read"} || !p.limits.max_bytes ||
          p.limits.rate_per_minute || p.paths.symlinks != "deny")
        die("the 50-rule policy did not reach files_op4");
      if (!admission->policy(*process_op1).limits.max_concurrency)
        die("the 50-rule policy did not reach process_op1");
    }
  }
};

const Fixture& fixture(bool with_policy) {
  static const Fixture plain(false), fifty(true);
  return with_policy ? fifty : plain;
}

void admitLoop(benchmark::State& state, const Fixture& f, const Route& route) {
  std::size_t refused = 0;
  for (auto _ : state) {
    auto verdict = f.admission->admit(route, f.caller);
    refused += verdict.error.has_value();
    benchmark::DoNotOptimize(verdict);
  }
  if (refused) state.SkipWithError("admit() refused the request");
}

void Admit(benchmark::State& state, bool with_policy) {
  const auto& f = fixture(with_policy);
  admitLoop(state, f, *f.files_op4);
}

void AdmitLimited(benchmark::State& state, bool with_policy) {
  const auto& f = fixture(with_policy);
  admitLoop(state, f, *f.process_op1);
}

void matchAdmitLoop(benchmark::State& state, const Fixture& f, const char* path) {
  std::size_t refused = 0;
  for (auto _ : state) {
    auto match = f.routes.match("GET", path);
    if (!match) {
      state.SkipWithError("no route matched");
      break;
    }
    auto verdict = f.admission->admit(*match->route, f.caller);
    refused += verdict.error.has_value();
    benchmark::DoNotOptimize(match);
    benchmark::DoNotOptimize(verdict);
  }
  if (refused) state.SkipWithError("admit() refused the request");
}

void MatchAdmit(benchmark::State& state, bool with_policy) {
  matchAdmitLoop(state, fixture(with_policy), "/files/abc/op4");
}

void MatchAdmitLiteral(benchmark::State& state, bool with_policy) {
  matchAdmitLoop(state, fixture(with_policy), "/files/item6");
}

}  // namespace

BENCHMARK_CAPTURE(Admit, default, false);
BENCHMARK_CAPTURE(Admit, policy50, true);
BENCHMARK_CAPTURE(AdmitLimited, default, false);
BENCHMARK_CAPTURE(AdmitLimited, policy50, true);
BENCHMARK_CAPTURE(MatchAdmit, default, false);
BENCHMARK_CAPTURE(MatchAdmit, policy50, true);
BENCHMARK_CAPTURE(MatchAdmitLiteral, default, false);
BENCHMARK_CAPTURE(MatchAdmitLiteral, policy50, true);

BENCHMARK_MAIN();
