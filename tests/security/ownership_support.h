// Shared pieces of the ownership attacks (ownership_test.cpp,
// ownership_agents_test.cpp): one server with every plugin and a policy of
// three identities — alice and bob with the ordinary scopes of the process,
// terminal and agents groups, root with `admin` as well — and the check that
// a refused answer is the answer for an id that never existed.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "security/security_support.h"

namespace abx::testing::security {

inline const std::string kAliceToken = "alice-token-5b1f0c";
inline const std::string kBobToken = "bob-token-9e27d4";
inline const std::string kRootToken = "root-token-c803aa";

inline const std::string kOwnershipPolicy = R"(base_dir: "{dir}"
groups: {agents: true}
auth:
  tokens:
    - id: alice
      token_env: ALICE_TOKEN
      scopes: [process:run, process:manage, terminal:use, agents:run, agents:admin]
    - id: bob
      token_env: BOB_TOKEN
      scopes: [process:run, process:manage, terminal:use, agents:run, agents:admin]
    - id: root
      token_env: ROOT_TOKEN
      scopes: [admin, process:run, process:manage, terminal:use, agents:run, agents:admin]
)";

/** Command-runtime agents on the fake CLI (fake_agents/README.md). */
inline const std::string kOwnershipAgents = R"(agents:
  - name: fake
    runtime: command
    command:
      argv: ["fake-agent", "--format", "jsonl-codex"]
      parser: jsonl-codex
      resume_argv: ["fake-agent", "--format", "jsonl-codex", "--resume", "{session_id}"]
    workspace: {path: "{dir}/work"}
  - name: hang
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: hang}
    workspace: {path: "{dir}/work"}
)";

/**
 * The three-identity server. @p state_dir: where sessions.json lives (empty:
 * inside the server's own temporary directory).
 */
inline ServerOptions ownershipServer(const std::string& state_dir = {}) {
  auto o = allPlugins(kOwnershipPolicy,
                      {{"ALICE_TOKEN", kAliceToken},
                       {"BOB_TOKEN", kBobToken},
                       {"ROOT_TOKEN", kRootToken},
                       {"ABX_AGENTS_CONFIG", "{dir}/agents.yaml"},
                       {"ABX_AGENTS_STATE_DIR", state_dir.empty() ? "{dir}/state" : state_dir},
                       {"PATH", sourceDir() + "/fake_agents:/usr/bin:/bin"}},
                      {"--pty-port", "0"});
  o.files["agents.yaml"] = kOwnershipAgents;
  return o;
}

inline Headers as(const std::string& token) {
  return {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}};
}
inline const Headers kAlice = as(kAliceToken);
inline const Headers kBob = as(kBobToken);
inline const Headers kRoot = as(kRootToken);

/**
 * @p got (bob's answer about the real @p id) must be exactly @p missing
 * (the answer about @p unknown, an id that never existed) with @p unknown
 * spelled as @p id: same status, same body, nothing that tells them apart.
 */
inline void expectSameAsMissing(const HttpResult& got, const HttpResult& missing,
                                const std::string& id, const std::string& unknown) {
  std::string expected = missing.body;
  for (auto at = expected.find(unknown); at != std::string::npos;
       at = expected.find(unknown, at + id.size()))
    expected.replace(at, unknown.size(), id);
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(got.status, missing.status) << got.body;
  EXPECT_EQ(got.body, expected);
}

template <class Done>
bool eventually(Done done, std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return done();
}

}  // namespace abx::testing::security
