// Integration: GET /audit/recent on the real server — the records the audit
// log writes, newest first, `limit` honoured and checked, 403 without the
// scope audit:read, and nothing secret in a record (no token, body or query).
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using Headers = std::vector<std::pair<std::string, std::string>>;
Headers token(const std::string& t) { return {{"X-Access-Token", t}}; }

ServerProcess auditedServer() {
  ServerOptions o;
  o.files = {{"plugins.yaml",
              "plugins:\n  - name: echo\n    file: " + fixtureDir() + "/abx_test_echo.so\n"},
             {"policy.yaml",
              "auth:\n  tokens:\n"
              "    - {id: auditor, token_env: AUDITOR_TOKEN, scopes: [\"audit:read\"]}\n"
              "    - {id: worker, token_env: WORKER_TOKEN, scopes: [\"echo:read\"]}\n"
              "endpoints:\n  echo_post: {audit: all}\n"}};
  o.args = {"--plugins", "{dir}/plugins.yaml", "--policy", "{dir}/policy.yaml"};
  o.env = {{"AUDITOR_TOKEN", "auditor-token-123"}, {"WORKER_TOKEN", "worker-token-456"}};
  return ServerProcess(o);
}

Poco::JSON::Array::Ptr records(const HttpResult& r) {
  Poco::JSON::Parser parser;
  return parser.parse(r.body).extract<Poco::JSON::Object::Ptr>()->getArray("records");
}

std::string field(const Poco::JSON::Array::Ptr& list, unsigned i, const std::string& name) {
  return list->getObject(i)->getValue<std::string>(name);
}

TEST(AuditRecent, ListsTheAuditLinesNewestFirstWithoutSecrets) {
  ServerProcess server = auditedServer();
  const auto worker = token("worker-token-456");
  ASSERT_EQ(http(server.port(), "POST", "/echo?note=query-secret", R"({"body_secret":"x"})", worker)
                .status,
            200);
  // A refusal (wrong token) is audited by default, an allowed GET is not.
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/1", "", token("wrong-token-789")).status, 401);
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/2", "", worker).status, 200);

  auto r = http(server.port(), "GET", "/audit/recent", "", token("auditor-token-123"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"], "application/json");
  auto list = records(r);
  ASSERT_EQ(list->size(), 2u) << r.body;
  EXPECT_EQ(field(list, 0, "endpoint"), "echo_item");
  EXPECT_EQ(field(list, 0, "decision"), "deny");
  EXPECT_EQ(field(list, 0, "identity"), "unauthenticated");
  EXPECT_EQ(field(list, 0, "rule"), "auth");
  EXPECT_EQ(field(list, 1, "endpoint"), "echo_post");
  EXPECT_EQ(field(list, 1, "identity"), "worker");
  EXPECT_EQ(field(list, 1, "decision"), "allow");
  EXPECT_EQ(field(list, 1, "path"), "/echo");
  // The same fields as an audit line.
  for (const char* name : {"time", "request_id", "identity", "endpoint", "method", "path",
                           "decision", "rule", "status", "duration_ms"})
    EXPECT_TRUE(list->getObject(1)->has(name)) << name;
  for (const char* secret :
       {"worker-token-456", "wrong-token-789", "auditor-token-123", "query-secret", "body_secret"})
    EXPECT_THAT(r.body, Not(HasSubstr(secret)));
  EXPECT_THAT(r.body, HasSubstr(R"("capacity":256)"));
}

// The record is kept before the answer leaves, so a caller holding the
// answer finds it: a refusal then an immediate read, many times over.
TEST(AuditRecent, ARecordIsKeptBeforeItsAnswerIsSent) {
  ServerProcess server = auditedServer();
  const auto auditor = token("auditor-token-123");
  for (int i = 1; i <= 150; ++i) {
    ASSERT_EQ(http(server.port(), "GET", "/echo/items/1", "", token("wrong-token")).status, 401);
    auto r = http(server.port(), "GET", "/audit/recent?limit=256", "", auditor);
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(records(r)->size(), static_cast<unsigned>(std::min(i, 256))) << "after refusal " << i;
  }
}

TEST(AuditRecent, HonoursAndChecksTheLimit) {
  ServerProcess server = auditedServer();
  for (int i = 0; i < 5; ++i) http(server.port(), "POST", "/echo", "{}", token("worker-token-456"));
  const auto auditor = token("auditor-token-123");
  auto three = http(server.port(), "GET", "/audit/recent?limit=3", "", auditor);
  ASSERT_EQ(three.status, 200) << three.body;
  EXPECT_EQ(records(three)->size(), 3u);
  EXPECT_EQ(records(http(server.port(), "GET", "/audit/recent", "", auditor))->size(), 5u);
  EXPECT_EQ(records(http(server.port(), "GET", "/audit/recent?limit=256", "", auditor))->size(),
            5u);
  for (const char* bad : {"0", "257", "-1", "abc", "3x"}) {
    auto r = http(server.port(), "GET", std::string("/audit/recent?limit=") + bad, "", auditor);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_THAT(r.body, HasSubstr("from 1 to 256")) << bad;
  }
}

TEST(AuditRecent, NeedsTheAuditReadScope) {
  ServerProcess server = auditedServer();
  auto r = http(server.port(), "GET", "/audit/recent", "", token("worker-token-456"));
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("code":"missing_scope")"));
  EXPECT_THAT(r.body, HasSubstr(R"("scope":"audit:read")"));
  EXPECT_EQ(http(server.port(), "GET", "/audit/recent").status, 401);
}

}  // namespace
}  // namespace abx::testing
