// SecretEnvironment: a taken variable is gone from the environment and its
// bytes are overwritten where they lay; tokens are kept as digests, and a
// second take answers from memory.
#include "environment/secret_environment.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>

#include "policy/authenticator.h"

namespace abx::kernel {
namespace {

TEST(SecretEnvironment, TakingATokenWipesItAndKeepsItsDigest) {
  ::setenv("ABX_TEST_WIPE_TOKEN", "wipe-me-0123", 1);
  const char* where = ::getenv("ABX_TEST_WIPE_TOKEN");
  ASSERT_NE(where, nullptr);
  auto& secrets = SecretEnvironment::instance();
  auto digest = secrets.takeTokenDigest("ABX_TEST_WIPE_TOKEN");
  ASSERT_TRUE(digest);
  EXPECT_EQ(*digest, sha256Digest("wipe-me-0123"));
  EXPECT_EQ(::getenv("ABX_TEST_WIPE_TOKEN"), nullptr);
  // The old bytes are zeros now (setenv's copy stays allocated by glibc).
  EXPECT_EQ(std::memchr(where, 'w', 5), nullptr);
  EXPECT_TRUE(secrets.taken("ABX_TEST_WIPE_TOKEN"));
  // A reload asks again and gets the same digest from memory.
  EXPECT_EQ(secrets.takeTokenDigest("ABX_TEST_WIPE_TOKEN"), digest);
}

TEST(SecretEnvironment, UnsetOrEmptyTokensHaveNoDigest) {
  ::setenv("ABX_TEST_EMPTY_TOKEN", "", 1);
  EXPECT_FALSE(SecretEnvironment::instance().takeTokenDigest("ABX_TEST_EMPTY_TOKEN"));
  EXPECT_EQ(::getenv("ABX_TEST_EMPTY_TOKEN"), nullptr);
  EXPECT_FALSE(SecretEnvironment::instance().takeTokenDigest("ABX_TEST_NEVER_SET_9"));
}

TEST(SecretEnvironment, PluginSecretsKeepTheirText) {
  ::setenv("ABX_TEST_PLUGIN_SECRET", "provider-key-xyz", 1);
  auto& secrets = SecretEnvironment::instance();
  EXPECT_EQ(secrets.takeSecret("ABX_TEST_PLUGIN_SECRET"), "provider-key-xyz");
  EXPECT_EQ(::getenv("ABX_TEST_PLUGIN_SECRET"), nullptr);
  EXPECT_EQ(secrets.takeSecret("ABX_TEST_PLUGIN_SECRET"), "provider-key-xyz");
  EXPECT_FALSE(secrets.taken("ABX_TEST_OTHER"));
}

}  // namespace
}  // namespace abx::kernel
