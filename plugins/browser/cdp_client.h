// CdpClient: the Chrome DevTools Protocol over Chromium's DevTools pipe
// (--remote-debugging-pipe: NUL-terminated JSON messages). One connection
// to the browser; targets are reached through flat sessions (a "sessionId"
// on commands and events). Commands are JSON-RPC: {"id", "method",
// "params"[, "sessionId"]} out, {"id", "result"|"error"} back; everything
// without an id is an event, handed to the event handler while a caller
// waits. There is no reader thread: the caller's thread reads (callers are
// serialised by the browser session), so events that arrive between calls
// wait in the pipe until the next call — and so does every request Chromium
// paused for interception (a page makes no request nobody judged).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/json.h"
#include "abx/sdk/status.h"

namespace abx::plugins::browser {

using Clock = std::chrono::steady_clock;

/** Where CDP messages go and come from (one message per call, no framing). */
class CdpTransport {
 public:
  virtual ~CdpTransport() = default;
  /** Sends one message; a failure has type ConnectionError. */
  virtual sdk::Status send(const std::string& message) = 0;
  /**
   * The next message, waiting until @p deadline: TimeoutError when none
   * came, ConnectionError when the other side is gone.
   */
  virtual sdk::Result<std::string> receive(Clock::time_point deadline) = 0;
};

/** A string member of a CDP message; @p fallback when absent or not a string. */
std::string cdpText(const sdk::Json& o, std::string_view key, std::string_view fallback = {});
/** A number member of a CDP message; @p fallback when absent or not a number. */
double cdpNumber(const sdk::Json& o, std::string_view key, double fallback = 0);

/** The params of a command with one parameter: {"<key>": <value>}. */
template <class T>
std::string cdpParams(std::string_view key, const T& value) {
  return sdk::JsonWriter().beginObject().member(key, value).endObject().take();
}

class CdpClient {
 public:
  /** @p params: the event's "params" object (an empty object when it has none). */
  using EventHandler = std::function<void(const std::string& method, const sdk::Json& params,
                                          const std::string& session_id)>;

  /** @p transport must outlive the client. */
  explicit CdpClient(CdpTransport& transport) : transport_(transport) {}

  void onEvent(EventHandler handler) { handler_ = std::move(handler); }

  /**
   * Sends @p method with @p params (a JSON object's text, "" for none) to
   * the target of @p session_id, or the browser when empty, and waits until
   * @p deadline for its reply. @return the "result" object; a CDP error has
   * type BrowserError, the deadline TimeoutError, a broken connection
   * ConnectionError (broken() is then true).
   */
  sdk::Result<sdk::Json> call(const std::string& method, std::string_view params,
                              Clock::time_point deadline, const std::string& session_id = {});

  /** Sends without waiting for the reply (event handlers answer Chromium this way). */
  void post(const std::string& method, std::string_view params, const std::string& session_id = {});

  /** Reads events until @p done() or @p deadline (TimeoutError) or a broken connection. */
  sdk::Status pumpUntil(const std::function<bool()>& done, Clock::time_point deadline);

  /**
   * Reads, without waiting, the messages already waiting (events between
   * calls), for at most 250 ms.
   */
  void drain();

  bool broken() const { return broken_; }

 private:
  long send(const std::string& method, std::string_view params, const std::string& session_id);
  /** Reads one message; handles events; nullopt for an event. */
  sdk::Result<std::optional<sdk::Json>> readMessage(Clock::time_point deadline);

  CdpTransport& transport_;
  EventHandler handler_;
  long next_id_ = 1;
  bool broken_ = false;
};

}  // namespace abx::plugins::browser
