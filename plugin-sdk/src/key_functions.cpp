// Out-of-line destructors: the key functions that give every SDK interface
// exactly one vtable and typeinfo, in libabx_plugin_sdk, however many .so
// files use it under RTLD_LOCAL.
#include "abx/sdk/child_environment.h"
#include "abx/sdk/commands.h"
#include "abx/sdk/host_context.h"
#include "abx/sdk/http.h"
#include "abx/sdk/logger.h"
#include "abx/sdk/metrics.h"
#include "abx/sdk/path_guard.h"
#include "abx/sdk/plugin.h"
#include "abx/sdk/redactor.h"
#include "abx/sdk/routes.h"
#include "abx/sdk/services.h"

namespace abx::sdk {

Plugin::~Plugin() = default;
HostContext::~HostContext() = default;
Logger::~Logger() = default;
RouteRegistry::~RouteRegistry() = default;
CommandRegistry::~CommandRegistry() = default;
ServiceRegistry::~ServiceRegistry() = default;
PathGuard::~PathGuard() = default;
Redactor::~Redactor() = default;
SseStream::~SseStream() = default;
SseFeed::~SseFeed() = default;
SseWaker::~SseWaker() = default;
DeferredAnswer::~DeferredAnswer() = default;
BodyReader::~BodyReader() = default;
BodyWriter::~BodyWriter() = default;
ChildEnvironment::~ChildEnvironment() = default;
Metrics::~Metrics() = default;
CounterFamily::~CounterFamily() = default;
GaugeFamily::~GaugeFamily() = default;
HistogramFamily::~HistogramFamily() = default;

std::string_view argTypeName(ArgType type) {
  switch (type) {
    case ArgType::string:
      return "string";
    case ArgType::integer:
      return "integer";
    case ArgType::floating:
      return "float";
    case ArgType::boolean:
      return "boolean";
  }
  return "string";
}

}  // namespace abx::sdk
