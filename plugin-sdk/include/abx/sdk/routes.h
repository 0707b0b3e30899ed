// Route and group registration: how a plugin puts endpoints on the server.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/policy.h"

namespace abx::sdk {

/** One endpoint: one id, one group, one method and path template. */
struct RouteSpec {
  std::string method;              /**< GET, POST, PUT, PATCH or DELETE */
  std::string path;                /**< "/process/{pid}/signal": `{name}` matches one segment */
  std::string endpoint;            /**< unique id, snake_case: "process_signal" */
  std::string group;               /**< capability group the plugin declared */
  std::string summary;             /**< one line for GET /capabilities */
  std::vector<std::string> scopes; /**< default scopes (all required) */
  bool auth_required = true;
  bool streaming = false;            /**< true: stream_handler, SSE path */
  std::size_t max_request_bytes = 0; /**< body cap; 0 takes the host default */
  /** true: the pipeline does not read or parse the body; the handler reads
   *  it from Request::body_reader (still capped by max_request_bytes). */
  bool raw_body = false;
  Handler handler;
  StreamHandler stream_handler;
};

/** A capability group a plugin owns. */
struct GroupSpec {
  std::string name;    /**< "file_ops", "browser"; never "core" */
  bool opt_in = false; /**< true: off unless an operator turns it on */
  std::string description;
  /** The policy parameters its endpoints read (policy.h ParamSpec): the
   *  only keys a `params:` block may set for them. */
  std::vector<ParamSpec> params = {};
};

/**
 * Registration of groups and routes. LIFETIME: valid during Plugin::start()
 * only; afterwards every call fails. Routes match in registration order.
 */
class ABX_SDK_API RouteRegistry {
 public:
  /** Declares a group; a group name may be declared by one plugin only. */
  virtual Status declareGroup(const GroupSpec& group) = 0;
  /** Adds a route of a group this plugin declared; ids and method+path are unique. */
  virtual Status add(RouteSpec route) = 0;
  /**
   * The code layer of the policy: turns a group (any plugin's, e.g. an
   * opt-in one) on or off. The preset, the policy and the environment still
   * override it. An unknown group stops start-up; core cannot be disabled.
   */
  virtual Status enableGroup(std::string_view group) = 0;
  virtual Status disableGroup(std::string_view group) = 0;

 protected:
  ~RouteRegistry();
};

}  // namespace abx::sdk
