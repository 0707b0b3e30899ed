// The interface every plugin instance implements: create -> start -> serve
// -> stop -> destroy.
#pragma once

#include "abx/sdk/status.h"

namespace abx::sdk {

class HostContext;

/**
 * One loaded plugin. The kernel calls start() once, in manifest order, and
 * stop() once, in reverse order, before destroy.
 * THREAD: start/stop run on the main thread; handlers the plugin registered
 * run on server worker threads concurrently.
 */
class ABX_SDK_API Plugin {
 public:
  virtual ~Plugin();

  /**
   * Registers routes, commands, services and groups through @p host.
   * Registration is accepted only during this call.
   * @return a failure stops start-up when the manifest entry is required.
   */
  virtual Status start(HostContext& host) = 0;

  /**
   * Called once every plugin has started and the policy is in force, and
   * again after each successful policy reload: the moment to act on
   * HostContext::endpointPolicy() (e.g. open or close a listener of one's
   * own). Must not throw.
   */
  virtual void policyApplied() noexcept {}

  /** Stops background work; the host is still valid. Must not throw. */
  virtual void stop() noexcept {}
};

}  // namespace abx::sdk
