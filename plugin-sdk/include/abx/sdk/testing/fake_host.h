// FakeHost: the host a plugin meets in a unit test, without a kernel — a
// GoogleMock HostContext (NiceMock) whose calls hand out the fakes of
// fakes.h, so a test names only what it changes (link GTest::gmock).
//
//   sdk::testing::FakeHost host{dir};
//   host.env.vars = {{"PATH", "/usr/bin:/bin"}};
//   auto plugin = makePlugin(host.mock);
//   ASSERT_TRUE(plugin->start(host.mock));
//   auto r = host.routes.byId("env_get").handler(sdk::testing::makeRequest("GET", "/env"));
//
// Calls with no fake (events, services, authenticate, endpointPolicy, admit,
// ...) are the mock's: ON_CALL(host.mock, ...) gives them an answer.
#pragma once

#include <gmock/gmock.h>

#include <string>
#include <utility>

#include "abx/sdk/testing/fake_metrics.h"
#include "abx/sdk/testing/fakes.h"
#include "abx/sdk/testing/mock_host_context.h"

namespace abx::sdk::testing {

struct FakeHost {
  /** @p base_dir: the PathGuard's tree and HostInfo::base_dir. */
  explicit FakeHost(std::string base_dir = "/tmp") : guard(base_dir) {
    using ::testing::ReturnRef;
    info.base_dir = std::move(base_dir);
    ON_CALL(mock, log()).WillByDefault(ReturnRef(logger));
    ON_CALL(mock, routes()).WillByDefault(ReturnRef(routes));
    ON_CALL(mock, commands()).WillByDefault(ReturnRef(commands));
    ON_CALL(mock, settings()).WillByDefault(ReturnRef(settings));
    ON_CALL(mock, paths()).WillByDefault(ReturnRef(guard));
    ON_CALL(mock, redactor()).WillByDefault(ReturnRef(redactor));
    ON_CALL(mock, info()).WillByDefault(ReturnRef(info));
    ON_CALL(mock, environment()).WillByDefault(ReturnRef(env));
    ON_CALL(mock, metrics()).WillByDefault(ReturnRef(metrics));
  }
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  // The fakes first: the mock's default actions refer to them.
  FakeLogger logger;
  RecordingRoutes routes;
  FakeCommandRegistry commands;
  Settings settings;
  FakePathGuard guard;
  FakeRedactor redactor;
  HostInfo info;
  FakeEnvironment env;
  FakeMetrics metrics;
  ::testing::NiceMock<MockHostContext> mock;
};

}  // namespace abx::sdk::testing
