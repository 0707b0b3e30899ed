// Attack: one identity acting on another identity's agent session (Agents
// wire), response (Responses wire) or vault. bob holds agents:run and
// agents:admin like alice; he must see none of alice's objects (404 exactly
// as for an id that never existed, lists without them), not through
// previous_response_id, an Idempotency-Key, vault_ids or an agent
// definition's credential reference either, and not after a restart. root
// holds `admin` and acts on everything; alice acts on her own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "security/ownership_support.h"

namespace abx::testing::security {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kNoSession = "agsess_000000000000000000000000";
const std::string kNoResponse = "resp_000000000000000000000000";
const std::string kNoVault = "vlt_000000000000000000000000";

std::string idOf(const HttpResult& r) {
  EXPECT_EQ(r.status, 200) << r.body;
  return parseObject(r.body)->getValue<std::string>("id");
}

std::string createSession(const ServerProcess& server, const Headers& who,
                          const std::string& extra = "") {
  return idOf(http(server.port(), "POST", "/v1/agents/sessions",
                   R"({"agent_id":"fake","environment":{"type":"none"})" + extra + "}", who));
}

void waitIdle(const ServerProcess& server, const std::string& id, std::size_t turns) {
  EXPECT_TRUE(eventually([&] {
    auto s = http(server.port(), "GET", "/v1/agents/sessions/" + id, "", kAlice);
    auto t = http(server.port(), "GET", "/v1/agents/sessions/" + id + "/turns", "", kAlice);
    std::size_t done = 0;
    for (auto at = t.body.find(R"("status":"completed")"); at != std::string::npos;
         at = t.body.find(R"("status":"completed")", at + 1))
      ++done;
    return s.body.find(R"("status":"idle")") != std::string::npos && done == turns;
  })) << "session "
      << id << " never finished " << turns << " turn(s)";
}

std::string firstTurnOf(const ServerProcess& server, const std::string& session) {
  auto r = http(server.port(), "GET", "/v1/agents/sessions/" + session + "/turns", "", kAlice);
  auto data = parseObject(r.body)->getArray("data");
  EXPECT_TRUE(data && data->size() > 0) << r.body;
  return data->getObject(0)->getValue<std::string>("id");
}

// A GET that may turn into an endless event stream: read for at most 1.5 s.
HttpResult boundedGet(int port, const std::string& path, const std::string& token) {
  const auto raw =
      rawHttp(port,
              "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
                  "\r\nConnection: close\r\n\r\n",
              std::chrono::milliseconds(1500));
  HttpResult r;
  if (raw.size() > 12) r.status = std::stoi(raw.substr(9, 3));
  if (auto end = raw.find("\r\n\r\n"); end != std::string::npos) r.body = raw.substr(end + 4);
  return r;
}

const std::string kInput =
    R"({"events":[{"type":"agent.session.input.message","input":"more please"}]})";

TEST(SecurityOwnershipSessions, AnotherIdentitySeesAndTouchesNothing) {
  ServerProcess server(ownershipServer());
  const int port = server.port();
  const auto id = createSession(server, kAlice, R"(,"input":"alice-private-prompt")");
  waitIdle(server, id, 1);
  const auto turn = firstTurnOf(server, id);
  auto bob = [&](const std::string& method, const std::string& session, const std::string& suffix,
                 const std::string& body = "") {
    return http(port, method, "/v1/agents/sessions/" + session + suffix, body, kBob);
  };
  auto same = [&](const std::string& method, const std::string& suffix,
                  const std::string& body = "") {
    expectSameAsMissing(bob(method, id, suffix, body), bob(method, kNoSession, suffix, body), id,
                        kNoSession);
  };

  EXPECT_THAT(http(port, "GET", "/v1/agents/sessions", "", kBob).body, Not(HasSubstr(id)));
  EXPECT_THAT(http(port, "GET", "/v1/agents/sessions?agent_id=fake", "", kBob).body,
              Not(HasSubstr(id)));
  same("GET", "");
  same("POST", "", R"({"metadata":{"owner":"bob"}})");
  same("POST", "/events", kInput);
  expectSameAsMissing(boundedGet(port, "/v1/agents/sessions/" + id + "/events", kBobToken),
                      boundedGet(port, "/v1/agents/sessions/" + kNoSession + "/events", kBobToken),
                      id, kNoSession);
  same("GET", "/turns");
  same("GET", "/turns/" + turn);
  same("GET", "/turns/" + turn + "/items");
  same("GET", "/items");
  same("DELETE", "");

  // Nothing happened to alice's session: no new turn, no metadata, not deleted.
  auto mine = http(port, "GET", "/v1/agents/sessions/" + id, "", kAlice);
  EXPECT_EQ(mine.status, 200) << mine.body;
  EXPECT_THAT(mine.body, Not(HasSubstr("bob")));
  auto turns = http(port, "GET", "/v1/agents/sessions/" + id + "/turns", "", kAlice);
  EXPECT_EQ(parseObject(turns.body)->getArray("data")->size(), 1u) << turns.body;
  EXPECT_THAT(http(port, "GET", "/v1/agents/sessions/" + id + "/items", "", kAlice).body,
              HasSubstr("alice-private-prompt"));
  EXPECT_THAT(http(port, "GET", "/v1/agents/sessions?agent_id=fake", "", kAlice).body,
              HasSubstr(id));

  // root (admin) reads, tails, continues and deletes it.
  EXPECT_THAT(http(port, "GET", "/v1/agents/sessions", "", kRoot).body, HasSubstr(id));
  EXPECT_EQ(http(port, "GET", "/v1/agents/sessions/" + id + "/turns/" + turn, "", kRoot).status,
            200);
  EXPECT_THAT(http(port, "GET", "/v1/agents/sessions/" + id + "/items", "", kRoot).body,
              HasSubstr("alice-private-prompt"));
  const auto tail = rawHttp(port,
                            "GET /v1/agents/sessions/" + id +
                                "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                                kRootToken + "\r\nLast-Event-ID: 0\r\n\r\n",
                            std::chrono::milliseconds(800));
  EXPECT_THAT(tail, HasSubstr("200 OK"));
  EXPECT_THAT(tail, HasSubstr("agent.session.turn.completed"));
  EXPECT_EQ(http(port, "POST", "/v1/agents/sessions/" + id + "/events", kInput, kRoot).status, 202);
  waitIdle(server, id, 2);
  EXPECT_EQ(http(port, "DELETE", "/v1/agents/sessions/" + id, "", kRoot).status, 200);
  EXPECT_EQ(http(port, "GET", "/v1/agents/sessions/" + id, "", kAlice).status, 404);
}

TEST(SecurityOwnershipSessions, OwnersSurviveARestart) {
  char temp[] = "/tmp/abx-ownership-XXXXXX";
  ASSERT_NE(::mkdtemp(temp), nullptr);
  const std::string state = std::string(temp) + "/state";
  std::string session, response;
  {
    ServerProcess server(ownershipServer(state));
    session = createSession(server, kAlice);
    response = idOf(http(server.port(), "POST", "/v1/responses",
                         R"({"model":"fake","input":"alice-before-restart"})", kAlice));
  }
  {
    ServerProcess server(ownershipServer(state));
    const int port = server.port();
    expectSameAsMissing(http(port, "GET", "/v1/agents/sessions/" + session, "", kBob),
                        http(port, "GET", "/v1/agents/sessions/" + kNoSession, "", kBob), session,
                        kNoSession);
    EXPECT_THAT(http(port, "GET", "/v1/agents/sessions", "", kBob).body, Not(HasSubstr(session)));
    expectSameAsMissing(http(port, "GET", "/v1/responses/" + response, "", kBob),
                        http(port, "GET", "/v1/responses/" + kNoResponse, "", kBob), response,
                        kNoResponse);
    EXPECT_EQ(http(port, "GET", "/v1/agents/sessions/" + session, "", kAlice).status, 200);
    EXPECT_EQ(http(port, "GET", "/v1/agents/sessions/" + session, "", kRoot).status, 200);
    EXPECT_THAT(http(port, "GET", "/v1/responses/" + response, "", kAlice).body,
                HasSubstr("alice-before-restart"));
  }
  std::filesystem::remove_all(temp);
}

// ---------------------------------------------------------------- responses

std::string respond(const ServerProcess& server, const Headers& who, const std::string& body) {
  return idOf(http(server.port(), "POST", "/v1/responses", body, who));
}

TEST(SecurityOwnershipResponses, AnotherIdentitySeesAndTouchesNothing) {
  ServerProcess server(ownershipServer());
  const int port = server.port();
  const auto id = respond(server, kAlice, R"({"model":"fake","input":"alice-private-prompt"})");
  auto same = [&](const std::string& method, const std::string& suffix) {
    auto got = http(port, method, "/v1/responses/" + id + suffix, "", kBob);
    expectSameAsMissing(got, http(port, method, "/v1/responses/" + kNoResponse + suffix, "", kBob),
                        id, kNoResponse);
    EXPECT_THAT(got.body, Not(HasSubstr("alice-private-prompt")));
  };
  same("GET", "");
  expectSameAsMissing(boundedGet(port, "/v1/responses/" + id + "?stream=true", kBobToken),
                      boundedGet(port, "/v1/responses/" + kNoResponse + "?stream=true", kBobToken),
                      id, kNoResponse);
  same("GET", "/input_items");
  same("POST", "/cancel");
  same("DELETE", "");
  // previous_response_id: no chaining onto alice's conversation, no history.
  auto chain = [&](const std::string& previous) {
    return http(port, "POST", "/v1/responses",
                R"({"model":"fake","input":"what did alice say?","previous_response_id":")" +
                    previous + "\"}",
                kBob);
  };
  const auto stolen = chain(id);
  expectSameAsMissing(stolen, chain(kNoResponse), id, kNoResponse);
  EXPECT_THAT(stolen.body, Not(HasSubstr("alice-private-prompt")));

  // alice's response is intact; root reads it; alice continues it; root deletes it.
  EXPECT_THAT(http(port, "GET", "/v1/responses/" + id, "", kAlice).body,
              HasSubstr("alice-private-prompt"));
  EXPECT_THAT(http(port, "GET", "/v1/responses/" + id, "", kRoot).body,
              HasSubstr("alice-private-prompt"));
  EXPECT_THAT(http(port, "GET", "/v1/responses/" + id + "/input_items", "", kRoot).body,
              HasSubstr("alice-private-prompt"));
  const auto next = respond(
      server, kAlice, R"({"model":"fake","input":"go on","previous_response_id":")" + id + "\"}");
  EXPECT_EQ(http(port, "GET", "/v1/responses/" + next + "/input_items", "", kAlice).status, 200);
  EXPECT_EQ(http(port, "DELETE", "/v1/responses/" + id, "", kRoot).status, 200);
  EXPECT_EQ(http(port, "GET", "/v1/responses/" + id, "", kAlice).status, 404);
}

TEST(SecurityOwnershipResponses, OnlyTheOwnerOrAdminCancels) {
  ServerProcess server(ownershipServer());
  const int port = server.port();
  const std::string body = R"({"model":"hang","input":"wait","background":true})";
  const auto id = respond(server, kAlice, body);
  expectSameAsMissing(http(port, "POST", "/v1/responses/" + id + "/cancel", "", kBob),
                      http(port, "POST", "/v1/responses/" + kNoResponse + "/cancel", "", kBob), id,
                      kNoResponse);
  EXPECT_THAT(http(port, "GET", "/v1/responses/" + id, "", kAlice).body,
              Not(HasSubstr(R"("status":"cancelled")")));
  auto by_root = http(port, "POST", "/v1/responses/" + id + "/cancel", "", kRoot);
  EXPECT_EQ(by_root.status, 200) << by_root.body;
  EXPECT_THAT(by_root.body, HasSubstr(R"("status":"cancelled")"));
  const auto own = respond(server, kAlice, body);
  auto by_alice = http(port, "POST", "/v1/responses/" + own + "/cancel", "", kAlice);
  EXPECT_EQ(by_alice.status, 200) << by_alice.body;
  EXPECT_THAT(by_alice.body, HasSubstr(R"("status":"cancelled")"));
}

TEST(SecurityOwnershipResponses, AnIdempotencyKeyNeverReplaysAnotherIdentitysResponse) {
  ServerProcess server(ownershipServer());
  auto keyed = [](Headers h) {
    h.emplace_back("Idempotency-Key", "shared-key-1");
    return h;
  };
  const auto alices = http(server.port(), "POST", "/v1/responses",
                           R"({"model":"fake","input":"alice-private-prompt"})", keyed(kAlice));
  const auto bobs = http(server.port(), "POST", "/v1/responses",
                         R"({"model":"fake","input":"bob asks"})", keyed(kBob));
  EXPECT_EQ(bobs.status, 200) << bobs.body;
  EXPECT_NE(idOf(bobs), idOf(alices));
  EXPECT_THAT(bobs.body, Not(HasSubstr("alice-private-prompt")));
  EXPECT_THAT(bobs.body, HasSubstr("bob asks"));
  // The key still replays for its own identity.
  const auto again = http(server.port(), "POST", "/v1/responses",
                          R"({"model":"fake","input":"alice-private-prompt"})", keyed(kAlice));
  EXPECT_EQ(idOf(again), idOf(alices));
}

// ---------------------------------------------------------------- vaults

TEST(SecurityOwnershipVaults, AnotherIdentitySeesAndTouchesNothing) {
  ServerProcess server(ownershipServer());
  const int port = server.port();
  const auto vault = idOf(http(port, "POST", "/v1/vaults", R"({"name":"alice-vault"})", kAlice));
  const std::string credential_body =
      R"({"name":"key","auth":{"type":"environment_variable","secret_name":"ALICE_KEY",)"
      R"("secret_value":"alice-secret-value-0123456789"}})";
  const auto credential =
      idOf(http(port, "POST", "/v1/vaults/" + vault + "/credentials", credential_body, kAlice));
  auto same = [&](const std::string& method, const std::string& suffix,
                  const std::string& body = "") {
    expectSameAsMissing(http(port, method, "/v1/vaults/" + vault + suffix, body, kBob),
                        http(port, method, "/v1/vaults/" + kNoVault + suffix, body, kBob), vault,
                        kNoVault);
  };

  EXPECT_THAT(http(port, "GET", "/v1/vaults", "", kBob).body, Not(HasSubstr(vault)));
  same("GET", "");
  same("POST", "", R"({"name":"bob-owns-this"})");
  same("GET", "/credentials");
  same("POST", "/credentials", credential_body);
  same("GET", "/credentials/" + credential);
  same("POST", "/credentials/" + credential,
       R"({"auth":{"type":"environment_variable","secret_value":"bob-rotated-0123456789"}})");
  same("DELETE", "/credentials/" + credential);
  same("DELETE", "");

  EXPECT_THAT(http(port, "GET", "/v1/vaults/" + vault, "", kAlice).body, HasSubstr("alice-vault"));
  EXPECT_EQ(
      http(port, "GET", "/v1/vaults/" + vault + "/credentials/" + credential, "", kAlice).status,
      200);
  EXPECT_THAT(http(port, "GET", "/v1/vaults", "", kRoot).body, HasSubstr(vault));
  EXPECT_EQ(http(port, "GET", "/v1/vaults/" + vault + "/credentials", "", kRoot).status, 200);
}

TEST(SecurityOwnershipVaults, AnotherIdentitysVaultCannotBeUsed) {
  ServerProcess server(ownershipServer());
  const int port = server.port();
  const auto vault = idOf(http(port, "POST", "/v1/vaults", R"({"name":"alice-vault"})", kAlice));
  const auto credential =
      idOf(http(port, "POST", "/v1/vaults/" + vault + "/credentials",
                R"({"name":"key","auth":{"type":"environment_variable","secret_name":"ALICE_KEY",)"
                R"("secret_value":"alice-secret-value-0123456789"}})",
                kAlice));
  // A session with alice's vault_ids.
  auto session = [&](const Headers& who, const std::string& id) {
    return http(port, "POST", "/v1/agents/sessions",
                R"({"agent_id":"fake","environment":{"type":"none"},"vault_ids":[")" + id + "\"]}",
                who);
  };
  expectSameAsMissing(session(kBob, vault), session(kBob, kNoVault), vault, kNoVault);
  EXPECT_EQ(session(kAlice, vault).status, 200);
  EXPECT_EQ(session(kRoot, vault).status, 200);
  // An agent definition that references alice's credential would hand its
  // value to bob's turns.
  auto define = [&](const Headers& who, const std::string& name, const std::string& id) {
    return http(
        port, "POST", "/v1/agents",
        R"({"name":")" + name +
            R"(","runtime":"command","command":{"argv":["sh","-c","echo \"$STOLEN\" | rev"],)"
            R"("parser":"text"},"workspace":{"path":")" +
            server.dir() + R"(/work"},"secrets":{"STOLEN":{"vault":")" + id +
            R"(","credential":")" + credential + "\"}}}",
        who);
  };
  expectSameAsMissing(define(kBob, "bob-steal", vault), define(kBob, "bob-steal", kNoVault), vault,
                      kNoVault);
  EXPECT_EQ(http(port, "GET", "/v1/agents/bob-steal", "", kBob).status, 404);
  EXPECT_EQ(define(kAlice, "alice-own", vault).status, 200);
  EXPECT_EQ(define(kRoot, "root-any", vault).status, 200);
}

}  // namespace
}  // namespace abx::testing::security
