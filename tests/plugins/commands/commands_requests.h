// The requests of the commands plugin's unit tests: the SDK's request
// builder with the caller's scopes, and POST /commands/{name}. The host
// and its registries are the SDK's fakes (abx/sdk/testing/fake_host.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/testing/fakes.h"

namespace abx::plugins::commands::testing {

/** A request as the kernel hands it over after admission, from a caller with @p scopes. */
inline sdk::Request makeRequest(std::string method, std::string path, std::string body = {},
                                std::vector<std::string> scopes = {"*"}) {
  auto r = sdk::testing::makeRequest(std::move(method), std::move(path), std::move(body));
  r.identity.id = "test";
  r.identity.scopes = std::move(scopes);
  return r;
}

/** A POST /commands/{name} request. */
inline sdk::Request runRequest(const std::string& name, std::string body = {},
                               std::vector<std::string> scopes = {"*"}) {
  auto r = makeRequest("POST", "/commands/" + name, std::move(body), std::move(scopes));
  r.endpoint = "commands_run";
  r.path_params["name"] = name;
  return r;
}

}  // namespace abx::plugins::commands::testing
