#include "session_feed.h"

#include <chrono>

#include "abx/sdk/json.h"

namespace abx::plugins::agents {
namespace {

constexpr std::chrono::milliseconds kWaitSlice{1000};
constexpr std::size_t kThreadBudget = 256 * 1024;

bool endsTurn(const std::string& type) {
  return type == "agent.session.turn.completed" || type == "agent.session.turn.failed" ||
         type == "agent.session.turn.cancelled";
}

// A replay asked for events the ring no longer holds: say so rather than
// skip them silently.
std::string gapFrame(std::uint64_t after) {
  sdk::JsonWriter data;
  data.beginObject()
      .member("type", "error")
      .member("event_id", "evt_gap_after_" + std::to_string(after))
      .key("error")
      .beginObject()
      .member("code", "events_dropped")
      .member("message", "Events after " + std::to_string(after) +
                             " are no longer kept; the replay starts at the oldest event still "
                             "held.")
      .key("param")
      .null()
      .member("type", "invalid_request_error")
      .endObject()
      .endObject();
  std::string frame;
  sdk::appendSseFrame(frame, "error", data.text());
  return frame;
}

}  // namespace

SessionFeed::SessionFeed(std::shared_ptr<SessionStream> stream, std::uint64_t after,
                         bool until_idle, bool subscribed)
    : stream_(std::move(stream)), after_(after), until_idle_(until_idle), subscribed_(subscribed) {}

SessionFeed::~SessionFeed() {
  if (subscribed_) stream_->unsubscribe();
}

void SessionFeed::take(const SessionStream::Event& e, std::string& out) {
  out += e.frame;
  if (endsTurn(e.type)) turn_ended_ = true;
  // A create-and-stream ends at the first idle after its turn.
  if (until_idle_ &&
      ((turn_ended_ && e.type == "agent.session.idle") || e.type == "agent.session.failed"))
    stop_ = true;
}

sdk::SseFeed::Pull SessionFeed::pull(std::string& out, std::size_t budget) {
  if (stop_) return Pull::end;
  const std::size_t start = out.size();
  const std::uint64_t from = after_;
  bool gap = false, full = false;
  const bool open = stream_->collect(after_, gap, [&](const SessionStream::Event& e) {
    if (stop_ || out.size() - start >= budget) {
      full = !stop_;
      return false;
    }
    take(e, out);
    return true;
  });
  if (gap) out.insert(start, gapFrame(from));
  if (stop_) return Pull::end;
  if (full) return Pull::more;
  return open ? Pull::wait : Pull::end;
}

void followSession(std::shared_ptr<SessionStream> stream, sdk::SseStream& sse, std::uint64_t after,
                   bool until_idle, bool subscribed) {
  auto feed = std::make_shared<SessionFeed>(stream, after, until_idle, subscribed);
  if (auto waker = sse.detach(feed)) {
    stream->addWaker(waker);
    waker->wake();  // events pushed before addWaker woke no one
    return;
  }
  // This stream cannot leave the handler's thread: serve the feed here.
  std::string out;
  while (sse.open()) {
    out.clear();
    const auto pull = feed->pull(out, kThreadBudget);
    if (!out.empty() && !sse.frames(out)) return;
    if (pull == sdk::SseFeed::Pull::end) return;
    if (pull == sdk::SseFeed::Pull::wait) stream->waitFor(feed->position(), kWaitSlice);
  }
}

}  // namespace abx::plugins::agents
