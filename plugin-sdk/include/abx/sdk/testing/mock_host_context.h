// MockHostContext: a GoogleMock HostContext for plugin unit tests (link
// GTest::gmock). Plugins test their start() and handlers against it without
// a kernel; set what the plugin reads with ON_CALL(...).WillByDefault.
#pragma once

#include <gmock/gmock.h>

#include "abx/sdk/host_context.h"
#include "abx/sdk/metrics.h"
#include "abx/sdk/testing/fake_metrics.h"

namespace abx::sdk::testing {

class MockHostContext : public HostContext {
 public:
  // metrics() returns a reference: without an answer a call would abort, so
  // it answers with a FakeMetrics of its own unless a test says otherwise.
  MockHostContext() {
    ON_CALL(*this, metrics()).WillByDefault(::testing::ReturnRef(default_metrics));
  }
  MOCK_METHOD(Logger&, log, (), (override));
  MOCK_METHOD(RouteRegistry&, routes, (), (override));
  MOCK_METHOD(CommandRegistry&, commands, (), (override));
  MOCK_METHOD(ServiceRegistry&, services, (), (override));
  MOCK_METHOD(const Settings&, settings, (), (const, override));
  MOCK_METHOD(const PathGuard&, paths, (), (const, override));
  MOCK_METHOD(Redactor&, redactor, (), (override));
  MOCK_METHOD(const HostInfo&, info, (), (const, override));
  MOCK_METHOD(ChildEnvironment&, environment, (), (override));
  MOCK_METHOD(Result<Identity>, authenticate,
              ((const std::vector<std::pair<std::string, std::string>>&)), (const, override));
  MOCK_METHOD(std::optional<EndpointPolicy>, endpointPolicy, (std::string_view), (const, override));
  MOCK_METHOD(Admission, admit, (const AdmissionRequest&), (override));
  MOCK_METHOD(Status, privateDirectory, (std::string_view), (override));
  MOCK_METHOD(std::optional<std::string>, takeSecretEnv, (std::string_view), (override));
  MOCK_METHOD(Metrics&, metrics, (), (override));
  MOCK_METHOD(Response, call, (const LocalCall&), (override));
  MOCK_METHOD(std::string, openApiFor, (const Identity&), (const, override));

  FakeMetrics default_metrics;
};

}  // namespace abx::sdk::testing
