// OriginPolicy: which Host headers name the server and which Origins are its
// own, allowed cross-origin callers, or foreign.
#include "pipeline/origin_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace abx::kernel {
namespace {

using Kind = OriginPolicy::OriginKind;

std::string localIp() { return "10.0.0.7"; }

class Origins : public ::testing::Test {
 protected:
  Origins()
      : policy("127.0.0.1", {"box.example"}, {"https://app.example", "http://ui.example:8080"}) {
    policy.setPorts(9000, 9001);
  }
  bool hostOk(std::string_view host) { return !policy.checkHost(host, localIp); }
  Kind kind(std::string_view origin) { return policy.classify(origin, localIp); }

  OriginPolicy policy;
};

TEST_F(Origins, HostNamesOfTheServer) {
  for (auto host : {"127.0.0.1", "127.0.0.1:9000", "localhost", "LOCALHOST:1", "localhost.",
                    "[::1]:9000", "::1", "127.8.9.10", "box.example", "Box.Example:443",
                    "10.0.0.7:9000", "[::ffff:127.0.0.1]"})
    EXPECT_TRUE(hostOk(host)) << host;
}

TEST_F(Origins, ForeignHostsAre421) {
  for (auto host : {"attacker.example", "attacker.example:9000", "localhost.attacker.example",
                    "127.0.0.1.attacker.example", "10.0.0.8", "", "box.example.evil"}) {
    auto refusal = policy.checkHost(host, localIp);
    ASSERT_TRUE(refusal) << host;
    EXPECT_EQ(refusal->status, 421);
    EXPECT_EQ(refusal->code, "host_not_allowed");
  }
}

TEST_F(Origins, NoHostHeaderIsNotABrowser) {
  EXPECT_FALSE(policy.checkHost(std::nullopt, localIp));
}

TEST_F(Origins, StarAllowsEveryHostButNoExtraOrigin) {
  OriginPolicy open("0.0.0.0", {"*"}, {});
  open.setPorts(9000, 9001);
  EXPECT_FALSE(open.checkHost("anything.example", localIp));
  EXPECT_EQ(open.classify("http://anything.example:9000", localIp), Kind::foreign);
}

TEST_F(Origins, OwnOrigins) {
  for (auto origin : {"http://127.0.0.1:9000", "http://localhost:9001", "http://[::1]:9000",
                      "HTTP://LOCALHOST:9000", "http://box.example:9000", "http://10.0.0.7:9000"})
    EXPECT_EQ(kind(origin), Kind::same) << origin;
}

TEST_F(Origins, AllowedCrossOrigins) {
  EXPECT_EQ(kind("https://app.example"), Kind::cross);
  EXPECT_EQ(kind("https://app.example:443"), Kind::cross);
  EXPECT_EQ(kind("HTTPS://APP.EXAMPLE"), Kind::cross);
  EXPECT_EQ(kind("http://ui.example:8080"), Kind::cross);
}

TEST_F(Origins, ForeignOrigins) {
  for (auto origin : {"https://evil.example", "null", "http://127.0.0.1:9002", "http://127.0.0.1",
                      "https://127.0.0.1:9000", "http://ui.example", "https://app.example:8443",
                      "http://app.example", "file://", "http://127.0.0.1:9000/path",
                      "http://user@127.0.0.1:9000", "garbage"})
    EXPECT_EQ(kind(origin), Kind::foreign) << origin;
}

TEST(OriginNormal, Spellings) {
  EXPECT_EQ(OriginPolicy::normaliseOrigin("HTTP://A.Example:80/"), "http://a.example");
  EXPECT_EQ(OriginPolicy::normaliseOrigin("https://a.example:443"), "https://a.example");
  EXPECT_EQ(OriginPolicy::normaliseOrigin("https://[::1]:8443"), "https://[::1]:8443");
  EXPECT_FALSE(OriginPolicy::normaliseOrigin("a.example"));
  EXPECT_FALSE(OriginPolicy::normaliseOrigin("https://a.example:x"));
  EXPECT_FALSE(OriginPolicy::normaliseOrigin("https://a.example/x"));
}

}  // namespace
}  // namespace abx::kernel
