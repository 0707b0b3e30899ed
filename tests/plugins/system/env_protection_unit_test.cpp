// The variables POST /env never sets (env_protection.h, docs/system.md
// "Protected variables"): every class, the case rules, the NODE_ENV
// exception, the names that stay settable, the policy's env_deny on top, and
// the URL passwords GET /env masks.
#include <gtest/gtest.h>

#include "env_protection.h"
#include "env_rules.h"

namespace abx::plugins::system {
namespace {

TEST(EnvProtection, EveryClassRefusesItsHooks) {
  const std::pair<const char*, std::string_view> cases[] = {
      {"LD_PRELOAD", "dynamic loader and C library"},
      {"LD_LIBRARY_PATH", "dynamic loader and C library"},
      {"DYLD_INSERT_LIBRARIES", "dynamic loader and C library"},
      {"GCONV_PATH", "dynamic loader and C library"},
      {"GLIBC_TUNABLES", "dynamic loader and C library"},
      {"MALLOC_PERTURB_", "dynamic loader and C library"},
      {"HOSTALIASES", "dynamic loader and C library"},
      {"LOCALDOMAIN", "dynamic loader and C library"},
      {"RES_OPTIONS", "dynamic loader and C library"},
      {"BASH_ENV", "shell start-up and parsing"},
      {"ENV", "shell start-up and parsing"},
      {"BASH_FUNC_ls", "shell start-up and parsing"},
      {"PROMPT_COMMAND", "shell start-up and parsing"},
      {"PS0", "shell start-up and parsing"},
      {"PS4", "shell start-up and parsing"},
      {"IFS", "shell start-up and parsing"},
      {"SHELLOPTS", "shell start-up and parsing"},
      {"CDPATH", "shell start-up and parsing"},
      {"GIT_CONFIG_COUNT", "git configuration and helpers"},
      {"GIT_SSH_COMMAND", "git configuration and helpers"},
      {"PYTHONPATH", "interpreter and build-tool hooks"},
      {"NODE_OPTIONS", "interpreter and build-tool hooks"},
      {"PERL5OPT", "interpreter and build-tool hooks"},
      {"RUBYOPT", "interpreter and build-tool hooks"},
      {"JAVA_TOOL_OPTIONS", "interpreter and build-tool hooks"},
      {"_JAVA_OPTIONS", "interpreter and build-tool hooks"},
      {"GOFLAGS", "interpreter and build-tool hooks"},
      {"MAKEFLAGS", "interpreter and build-tool hooks"},
      {"HTTPS_PROXY", "proxies and TLS trust"},
      {"SSL_CERT_FILE", "proxies and TLS trust"},
      {"CURL_CA_BUNDLE", "proxies and TLS trust"},
      {"OPENSSL_CONF", "proxies and TLS trust"},
      {"PIP_INDEX_URL", "package manager configuration"},
      {"npm_config_script_shell", "package manager configuration"},
      {"EDITOR", "programs run on the user's behalf"},
      {"LESSOPEN", "programs run on the user's behalf"},
      {"SSH_ASKPASS_REQUIRE", "programs run on the user's behalf"},
      {"XDG_CONFIG_HOME", "configuration, cache and temporary directories"},
      {"TMPDIR", "configuration, cache and temporary directories"},
  };
  for (const auto& [name, what] : cases) {
    auto found = protectedEnvClass(name);
    ASSERT_TRUE(found) << name;
    EXPECT_EQ(*found, what) << name;
  }
}

TEST(EnvProtection, ProxiesAndNpmConfigMatchInAnyCaseTheRestExactly) {
  for (auto name : {"http_proxy", "Https_Proxy", "ALL_PROXY", "no_proxy", "npm_config_proxy",
                    "NPM_CONFIG_REGISTRY", "Npm_Config_Cafile"})
    EXPECT_TRUE(protectedEnvClass(name)) << name;
  // The loader and the shells read these names in upper case only.
  for (auto name : {"ld_preload", "bash_env", "pythonpath", "git_dir", "pip_index_url"})
    EXPECT_FALSE(protectedEnvClass(name)) << name;
}

TEST(EnvProtection, OrdinaryVariablesStaySettable) {
  for (auto name : {"NODE_ENV", "APP_MODE", "DEBUG", "TZ", "LANG", "LC_ALL", "TERM", "PS5",
                    "MY_PATH", "GITHUB_REPOSITORY", "ENVIRONMENT", "PROXY", "DISPLAY", "CI",
                    "COLUMNS", "JAVA_HOME_HINT", "OPENAI_BASE_URL"})
    EXPECT_FALSE(protectedEnvClass(name)) << name;
}

TEST(EnvProtection, TheListNamesEachGlobOnce) {
  const auto& patterns = protectedEnvPatterns();
  for (std::size_t i = 0; i < patterns.size(); ++i)
    for (std::size_t j = i + 1; j < patterns.size(); ++j)
      EXPECT_NE(patterns[i].glob, patterns[j].glob) << patterns[i].glob;
}

TEST(EnvProtection, PolicyEnvDenyAddsGlobsCaseSensitively) {
  sdk::Params params;
  EXPECT_FALSE(isProtectedByPolicy("AWS_PROFILE", params));
  params.set("env_deny", std::vector<std::string>{"AWS_*", "KUBECONFIG"});
  EXPECT_TRUE(isProtectedByPolicy("AWS_PROFILE", params));
  EXPECT_TRUE(isProtectedByPolicy("KUBECONFIG", params));
  EXPECT_FALSE(isProtectedByPolicy("aws_profile", params));
  auto body = sdk::Json::parse(R"({"vars":{"KUBECONFIG":"/x","OK":"1"}})");
  ASSERT_TRUE(body);
  auto result = validateEnvUpdate(*body, {}, params);
  ASSERT_TRUE(std::holds_alternative<EnvRefusal>(result));
  const auto& refusal = std::get<EnvRefusal>(result);
  EXPECT_EQ(refusal.status, 403);
  EXPECT_EQ(refusal.code, "env_protected");
  EXPECT_EQ(refusal.message, "Cannot overwrite protected variable(s): KUBECONFIG");
}

TEST(EnvProtection, UrlPasswordsAreMasked) {
  EXPECT_EQ(maskUrlPasswords("http://user:pa55@proxy:3128"), "http://user:***@proxy:3128");
  EXPECT_EQ(maskUrlPasswords("postgres://app:p@ss@db/app?x=1"), "postgres://app:***@db/app?x=1");
  EXPECT_EQ(maskUrlPasswords("a=http://u:1@h,b=https://v:2@k/"),
            "a=http://u:***@h,b=https://v:***@k/");
  // No password, or no user info: unchanged.
  for (std::string text :
       {"http://user@host/", "http://host:8080/a@b", "https://h/p?q=a:b@c", "plain:x@y", "", "://"})
    EXPECT_EQ(maskUrlPasswords(text), text);
  EXPECT_EQ(maskUrlPasswords("http://:@h"), "http://:***@h");
}

}  // namespace
}  // namespace abx::plugins::system
