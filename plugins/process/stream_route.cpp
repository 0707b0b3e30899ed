#include "stream_route.h"

#include <chrono>
#include <memory>
#include <utility>

#include "run_limits.h"

namespace abx::plugins::process {

std::optional<sdk::Response> shellStream(const LaunchContext& context, ShellPump& pump,
                                         const StreamSettings& settings,
                                         const sdk::Request& request, sdk::SseStream& stream) {
  auto launch = prepareLaunch(request, context);
  if (auto* refusal = std::get_if<sdk::HttpError>(&launch)) return refusal->toResponse();
  auto timeout = commandTimeout(request.json, request.policy);
  if (auto* refusal = std::get_if<sdk::HttpError>(&timeout)) return refusal->toResponse();
  if (auto refusal = pump.ready()) return refusal->toResponse();
  const auto limit = std::get<std::chrono::milliseconds>(timeout);
  auto spawned = sdk::Subprocess::spawn(std::get<Launch>(launch).spawn);
  if (!spawned) {
    stream.event("error", sdk::HttpError::fromStatus(500, spawned.status()).toResponse().body);
    return std::nullopt;
  }
  const StreamLimits limits{std::chrono::steady_clock::now() + limit, limit,
                            sdk::policyOutputCap(request.policy)};
  const std::uint64_t id = pump.nextId();
  auto feed = std::make_shared<ShellFeed>(settings.queue_bytes, pump.poker(id));
  bool detached = false;
  if (!stream.begin()) {
    feed->closed();  // the client is already gone: the pump stops the command
  } else if (auto waker = stream.detach(feed)) {
    feed->setWaker(std::move(waker));
    detached = true;
  }
  pump.add(id, std::make_unique<StreamJob>(std::move(*spawned), feed, settings, limits));
  if (detached) return std::nullopt;
  // A stream that cannot leave this thread (a test double, a server that
  // drains) is served here.
  if (stream.open())
    feed->serve(stream, settings.probe_interval);
  else
    feed->closed();
  return std::nullopt;
}

}  // namespace abx::plugins::process
