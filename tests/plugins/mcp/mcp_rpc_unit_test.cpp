// The MCP plugin's JSON-RPC and session layer: message classification,
// batches only where the revision allows them, the answers' shapes, and
// sessions bound to an identity, bounded in number and idle time.
#include <gtest/gtest.h>

#include "json_rpc.h"
#include "mcp_sessions.h"

namespace abx::plugins::mcp {
namespace {

RpcMessage one(std::string_view text, bool batch = false) {
  RpcBody body;
  EXPECT_TRUE(parseBody(text, batch, body));
  EXPECT_EQ(body.messages.size(), 1u);
  return body.messages.at(0);
}

TEST(McpJsonRpc, ClassifiesRequestsNotificationsAndResponses) {
  auto request = one(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}})");
  EXPECT_EQ(request.kind, RpcMessage::Kind::request);
  EXPECT_EQ(request.id, "7");
  EXPECT_EQ(request.method, "tools/list");
  auto named = one(R"({"jsonrpc":"2.0","id":"a\"b","method":"ping"})");
  EXPECT_EQ(named.id, R"("a\"b")");
  EXPECT_EQ(one(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").kind,
            RpcMessage::Kind::notification);
  EXPECT_EQ(one(R"({"jsonrpc":"2.0","id":1,"result":{}})").kind, RpcMessage::Kind::response);
}

TEST(McpJsonRpc, RefusesMalformedMessages) {
  for (const char* text :
       {R"({"id":1,"method":"ping"})", R"({"jsonrpc":"1.0","id":1,"method":"x"})",
        R"({"jsonrpc":"2.0","id":null,"method":"x"})", R"({"jsonrpc":"2.0","id":1.5,"method":"x"})",
        R"({"jsonrpc":"2.0","id":1,"method":3})",
        R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})", "42", R"("x")"}) {
    auto m = one(text);
    EXPECT_EQ(m.kind, RpcMessage::Kind::invalid) << text;
    EXPECT_FALSE(m.problem.empty()) << text;
  }
}

TEST(McpJsonRpc, ParseErrorIsReportedNotThrown) {
  RpcBody body;
  EXPECT_FALSE(parseBody("{\"jsonrpc\":", false, body));
  EXPECT_FALSE(parseBody("", false, body));
  EXPECT_FALSE(parseBody(std::string(300, '['), false, body));
  EXPECT_TRUE(body.messages.empty());
}

TEST(McpJsonRpc, BatchesOnlyWhereTheRevisionHasThem) {
  const char* batch =
      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}])";
  RpcBody allowed;
  ASSERT_TRUE(parseBody(batch, true, allowed));
  EXPECT_TRUE(allowed.batch);
  ASSERT_EQ(allowed.messages.size(), 2u);
  EXPECT_EQ(allowed.messages[1].kind, RpcMessage::Kind::notification);
  auto refused = one(batch, false);
  EXPECT_EQ(refused.kind, RpcMessage::Kind::invalid);
  EXPECT_EQ(one("[]", true).kind, RpcMessage::Kind::invalid);
}

TEST(McpJsonRpc, AnswersAreJsonRpc) {
  EXPECT_EQ(rpcResult("3", "{}"), R"({"jsonrpc":"2.0","id":3,"result":{}})");
  EXPECT_EQ(rpcError("null", rpc_error::kParse, "bad \"x\""),
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad \"x\""}})");
  EXPECT_EQ(rpcNotification("notifications/progress", R"({"progress":1})"),
            R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})");
}

struct FakeClock {
  SessionTable::Clock::time_point now{};
  std::function<SessionTable::Clock::time_point()> fn() {
    return [this] { return now; };
  }
};

TEST(McpSessions, BoundToTheIdentityThatOpenedThem) {
  SessionTable table(4, std::chrono::seconds(60));
  auto id = table.open("alice", "2025-06-18");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->size(), 32u);
  EXPECT_NE(*table.open("alice", "2025-06-18"), *id);
  SessionTable::Session s;
  EXPECT_EQ(table.use(*id, "alice", &s), SessionTable::Lookup::found);
  EXPECT_EQ(s.protocol_version, "2025-06-18");
  EXPECT_EQ(table.use(*id, "bob"), SessionTable::Lookup::unknown);
  EXPECT_FALSE(table.close(*id, "bob"));
  EXPECT_TRUE(table.close(*id, "alice"));
  EXPECT_EQ(table.use(*id, "alice"), SessionTable::Lookup::unknown);
  EXPECT_EQ(table.use("nope", "alice"), SessionTable::Lookup::unknown);
}

TEST(McpSessions, BoundedInNumberAndIdleTime) {
  FakeClock clock;
  SessionTable table(2, std::chrono::seconds(60), clock.fn());
  auto a = table.open("x", "2025-06-18");
  clock.now += std::chrono::seconds(30);
  auto b = table.open("x", "2025-06-18");
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(table.open("x", "2025-06-18")) << "max_sessions";
  clock.now += std::chrono::seconds(31);  // a idle for 61 s, b for 31 s
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.use(*a, "x"), SessionTable::Lookup::unknown);
  EXPECT_EQ(table.use(*b, "x"), SessionTable::Lookup::found);
  EXPECT_TRUE(table.open("x", "2025-06-18"));
}

}  // namespace
}  // namespace abx::plugins::mcp
