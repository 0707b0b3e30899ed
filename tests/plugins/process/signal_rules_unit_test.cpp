// POST /process/{pid}/signal rules: the whitelist (or the policy's
// allowed_signals), protected pids, pid parsing; and the timeout and output
// limits of the process routes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run_limits.h"
#include "signal_rules.h"

namespace abx::plugins::process {
namespace {

sdk::Json body(const std::string& text) {
  auto parsed = sdk::Json::parse(text);
  EXPECT_TRUE(parsed) << text;
  return parsed ? *parsed : sdk::Json();
}

int signalOf(const std::string& text, const sdk::Params& params = {}) {
  auto r = requestedSignal(body(text), params);
  return std::holds_alternative<int>(r) ? std::get<int>(r) : -std::get<sdk::HttpError>(r).status;
}

TEST(SignalRules, DefaultWhitelist) {
  for (int sig : {2, 9, 15, 18, 20})
    EXPECT_EQ(signalOf(R"({"signal":)" + std::to_string(sig) + "}"), sig);
  for (int sig : {0, 1, 3, 10, 19, 64, 65, -9})
    EXPECT_EQ(signalOf(R"({"signal":)" + std::to_string(sig) + "}"), -400) << sig;
  auto refusal = std::get<sdk::HttpError>(requestedSignal(body(R"({"signal":1})"), {}));
  EXPECT_EQ(refusal.message, "Signal 1 is not allowed; allowed: 2, 9, 15, 18, 20");
  EXPECT_EQ(refusal.type, "ValueError");
}

TEST(SignalRules, MissingOrNonIntegerSignalIs400) {
  EXPECT_EQ(signalOf("{}"), -400);
  EXPECT_EQ(signalOf(R"({"signal":null})"), -400);
  EXPECT_EQ(signalOf(R"({"signal":"SIGTERM"})"), -400);
  EXPECT_EQ(signalOf(R"({"signal":15.5})"), -400);
  EXPECT_EQ(std::get<sdk::HttpError>(requestedSignal(body("{}"), {})).message,
            "Missing required field 'signal'");
}

TEST(SignalRules, PolicyAllowedSignalsReplaceTheWhitelist) {
  sdk::Params p;
  p.set("allowed_signals", std::vector<std::int64_t>{15, 1});
  EXPECT_EQ(signalOf(R"({"signal":1})", p), 1);
  EXPECT_EQ(signalOf(R"({"signal":15})", p), 15);
  EXPECT_EQ(signalOf(R"({"signal":9})", p), -400);
  p.set("allowed_signals", std::vector<std::int64_t>{});
  EXPECT_EQ(std::get<sdk::HttpError>(requestedSignal(body(R"({"signal":15})"), p)).message,
            "Signal 15 is not allowed; allowed: (none)");
}

TEST(SignalRules, ProtectedPids) {
  auto one = protectedPid(1, 4242);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 403);
  EXPECT_EQ(one->type, "PermissionError");
  EXPECT_TRUE(protectedPid(4242, 4242));
  EXPECT_FALSE(protectedPid(4243, 4242));
}

TEST(SignalRules, ParsePid) {
  EXPECT_EQ(parsePid("123"), 123);
  EXPECT_EQ(parsePid("-5"), -5);
  EXPECT_EQ(parsePid("+7"), 7);
  for (const char* bad : {"", "abc", "12a", "1.5", " 1", "99999999999999999999", "+"})
    EXPECT_EQ(parsePid(bad), std::nullopt) << bad;
}

TEST(RunLimits, TimeoutFromPolicyAndBody) {
  using std::chrono::milliseconds;
  auto timeout = [](const std::string& text, const sdk::EndpointPolicy* policy) {
    auto r = commandTimeout(body(text), policy);
    return std::holds_alternative<milliseconds>(r) ? std::get<milliseconds>(r).count()
                                                   : -std::get<sdk::HttpError>(r).status;
  };
  EXPECT_EQ(timeout("{}", nullptr), 300000);
  EXPECT_EQ(timeout(R"({"timeout":2.5})", nullptr), 2500);
  EXPECT_EQ(timeout(R"({"timeout":1000})", nullptr), 300000);  // a body can only lower it
  EXPECT_EQ(timeout(R"({"timeout":null})", nullptr), 300000);
  EXPECT_EQ(timeout(R"({"timeout":0})", nullptr), -400);
  EXPECT_EQ(timeout(R"({"timeout":-1})", nullptr), -400);
  EXPECT_EQ(timeout(R"({"timeout":"5"})", nullptr), -400);
  sdk::EndpointPolicy policy;
  policy.limits.timeout_seconds = 10;
  EXPECT_EQ(timeout("{}", &policy), 10000);
  EXPECT_EQ(timeout(R"({"timeout":60})", &policy), 10000);
  EXPECT_EQ(timeout(R"({"timeout":0.001})", &policy), 1);
  policy.limits.timeout_seconds = 600;  // the operator's word replaces the default
  EXPECT_EQ(timeout("{}", &policy), 600000);
  EXPECT_EQ(timeoutMessage(milliseconds(300000)), "Command timed out after 300 seconds");
  EXPECT_EQ(timeoutMessage(milliseconds(1500)), "Command timed out after 1.5 seconds");
}

TEST(RunLimits, OutputCap) {
  EXPECT_EQ(outputCap(nullptr, kShellOutputBytes), 10u << 20);
  sdk::EndpointPolicy policy;
  EXPECT_EQ(outputCap(&policy, kProcessOutputBytes), 1u << 20);
  EXPECT_EQ(sdk::policyOutputCap(&policy), std::nullopt);
  policy.limits.max_output_bytes = 4096;
  EXPECT_EQ(outputCap(&policy, kShellOutputBytes), 4096u);
  EXPECT_EQ(sdk::policyOutputCap(&policy), 4096u);
}

}  // namespace
}  // namespace abx::plugins::process
