// The SDK's UTF-8 seams (utf8.h) and the readers of policy limits and a
// request's timeout (policy_limits.h) every child-starting group shares.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "abx/sdk/policy_limits.h"
#include "abx/sdk/utf8.h"

namespace abx::sdk {
namespace {

using std::chrono::milliseconds;

TEST(SdkUtf8, SeamsNeverSplitACharacter) {
  const std::string euro = "\xE2\x82\xAC";  // 3 bytes
  EXPECT_EQ(completeUtf8Length("ab"), 2u);
  EXPECT_EQ(completeUtf8Length("ab" + euro), 5u);
  EXPECT_EQ(completeUtf8Length("ab" + euro.substr(0, 2)), 2u);
  EXPECT_EQ(completeUtf8Length("ab" + euro.substr(0, 1)), 2u);
  EXPECT_EQ(completeUtf8Length("ab\x80"), 3u);  // a stray continuation byte is kept
  EXPECT_EQ(leadingContinuationBytes(euro.substr(1) + "x"), 2u);
  EXPECT_EQ(leadingContinuationBytes("x"), 0u);
  EXPECT_EQ(utf8SafeCut("a" + euro, 2), 1u);
  EXPECT_EQ(utf8SafeCut("a" + euro, 4), 4u);
  EXPECT_EQ(utf8SafeCut("abc", 10), 3u);
  EXPECT_EQ(utf8SafeCut(euro, 1), 0u);
  EXPECT_EQ(utf8SafeCut("\x80\x80\x80\x80\x80", 4), 4u);  // no lead byte to back off to
}

TEST(SdkUtf8, MessageTailKeepsTheEndOnACharacter) {
  EXPECT_EQ(messageTail("short\n\r\n", 10), "short");
  EXPECT_EQ(messageTail("0123456789", 4), "...6789");
  const std::string euro = "\xE2\x82\xAC";
  // The last 4 bytes start inside the euro sign: the tail starts after it.
  EXPECT_EQ(messageTail("x" + euro + "abc", 5), "...abc");
  EXPECT_EQ(messageTail("x" + euro + "abc", 6), "..." + euro + "abc");
}

TEST(SdkPolicyLimits, PolicyLimitsAreCeilingsWhenSet) {
  EXPECT_EQ(policyTimeout(nullptr), std::nullopt);
  EXPECT_EQ(policyOutputCap(nullptr), std::nullopt);
  EndpointPolicy policy;
  EXPECT_EQ(policyTimeout(&policy), std::nullopt);
  policy.limits.timeout_seconds = 1.0004;
  policy.limits.max_output_bytes = 4096;
  EXPECT_EQ(policyTimeout(&policy), milliseconds(1001));  // rounded up
  EXPECT_EQ(policyOutputCap(&policy), 4096u);
  EXPECT_EQ(secondsToMilliseconds(0), milliseconds(1));
  EXPECT_EQ(secondsToMilliseconds(1e30), milliseconds(315360000000LL));
}

TEST(SdkPolicyLimits, MaxDurationIsACeilingOverTheTimeout) {
  EXPECT_EQ(policyMaxDuration(nullptr), std::nullopt);
  EndpointPolicy policy;
  policy.limits.max_duration_seconds = 0;  // no ceiling
  EXPECT_EQ(policyMaxDuration(&policy), std::nullopt);
  EXPECT_EQ(policyTimeout(&policy), std::nullopt);
  policy.limits.max_duration_seconds = 2;
  EXPECT_EQ(policyMaxDuration(&policy), milliseconds(2000));
  EXPECT_EQ(policyTimeout(&policy), milliseconds(2000));  // the ceiling alone
  policy.limits.timeout_seconds = 30;
  EXPECT_EQ(policyTimeout(&policy), milliseconds(2000));  // the smaller wins
  policy.limits.timeout_seconds = 0.5;
  EXPECT_EQ(policyTimeout(&policy), milliseconds(500));
  policy.limits.timeout_seconds = 0;  // no timeout of its own: the ceiling, else the default
  EXPECT_EQ(policyTimeout(&policy), milliseconds(2000));
  policy.limits.max_duration_seconds.reset();
  EXPECT_EQ(policyTimeout(&policy), std::nullopt);
}

TEST(SdkPolicyLimits, RequestTimeoutIsAPositiveNumberOfSeconds) {
  auto read = [](const char* body) { return requestTimeout(*Json::parse(body)); };
  EXPECT_EQ(std::get<0>(read("{}")), std::nullopt);
  EXPECT_EQ(std::get<0>(read(R"({"timeout":null})")), std::nullopt);
  EXPECT_EQ(std::get<0>(read(R"({"timeout":2.5})")), milliseconds(2500));
  EXPECT_EQ(std::get<1>(read(R"({"timeout":"5"})")).message,
            "Field 'timeout' must be a number of seconds");
  const auto zero = std::get<1>(read(R"({"timeout":0})"));
  EXPECT_EQ(zero.status, 400);
  EXPECT_EQ(zero.message, "Field 'timeout' must be a positive number of seconds");
}

TEST(SdkPolicyLimits, SecondsTextIsShortest) {
  EXPECT_EQ(secondsText(milliseconds(300000)), "300");
  EXPECT_EQ(secondsText(milliseconds(1500)), "1.5");
  EXPECT_EQ(secondsText(milliseconds(250)), "0.25");
  EXPECT_EQ(secondsText(milliseconds(1001)), "1.001");
}

}  // namespace
}  // namespace abx::sdk
