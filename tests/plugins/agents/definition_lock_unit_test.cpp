// ABX_AGENTS_LOCK_DEFINITIONS=1 (agents spec §9.10): the locked catalog
// resolves and lists only definitions, and the wires' check refuses a
// runtime's name, request-level MCP servers and vault ids with 403
// definitions_locked naming the field; unlocked, nothing is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent_catalog.h"
#include "catalog_test_support.h"
#include "wire/definition_lock.h"

namespace abx::plugins::agents {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

sdk::agents::AgentSpec definition(const std::string& name) {
  sdk::agents::AgentSpec spec;
  spec.name = name;
  spec.runtime = "fake";
  return spec;
}

TEST(DefinitionLock, UnlockedARuntimesNameRunsAnEphemeralAgent) {
  OneAdapterRegistry services;
  AgentCatalog catalog(services);
  catalog.put(definition("mine"), 1);
  std::string why;
  EXPECT_NE(catalog.resolve("fake", why), nullptr) << why;
  EXPECT_THAT(catalog.models(), ElementsAre("mine", "fake"));
  EXPECT_FALSE(definitionLockRefusal(catalog, {"fake", "model", true, true}));
}

TEST(DefinitionLock, LockedOnlyDefinitionsResolveAndAreListed) {
  OneAdapterRegistry services;
  AgentCatalog catalog(services);
  catalog.put(definition("mine"), 1);
  catalog.lockToDefinitions(true);
  std::string why;
  EXPECT_EQ(catalog.resolve("fake", why), nullptr);
  EXPECT_THAT(why, HasSubstr("ABX_AGENTS_LOCK_DEFINITIONS=1"));
  EXPECT_NE(catalog.resolve("mine", why), nullptr) << why;
  EXPECT_THAT(catalog.models(), ElementsAre("mine"));
}

TEST(DefinitionLock, LockedTheWiresRefuseEverythingBeyondADefinition) {
  OneAdapterRegistry services;
  AgentCatalog catalog(services);
  catalog.put(definition("mine"), 1);
  catalog.lockToDefinitions(true);
  EXPECT_FALSE(definitionLockRefusal(catalog, {"mine", "model", false, false}));
  struct Case {
    LockedRequest request;
    std::string param;
  };
  for (const auto& [request, param] : {Case{{"fake", "model", false, false}, "model"},
                                       Case{{"codex", "agent_id", false, false}, "agent_id"},
                                       Case{{"fake", "agent.model", false, false}, "agent.model"},
                                       Case{{"mine", "model", true, false}, "tools"},
                                       Case{{"mine", "agent_id", false, true}, "vault_ids"}}) {
    auto refusal = definitionLockRefusal(catalog, request);
    ASSERT_TRUE(refusal) << param;
    EXPECT_EQ(refusal->status, 403);
    EXPECT_EQ(refusal->code, "definitions_locked");
    EXPECT_EQ(refusal->param, param);
    EXPECT_THAT(refusal->message, HasSubstr("ABX_AGENTS_LOCK_DEFINITIONS=1"));
  }
}

}  // namespace
}  // namespace abx::plugins::agents
