// CdpClient: one Chrome DevTools Protocol connection (a page's WebSocket)
// over POCO's WebSocket client. Commands are JSON-RPC: {"id", "method",
// "params"} out, {"id", "result"|"error"} back; everything without an id is
// an event, handed to the event handler while a caller waits. There is no
// reader thread: the caller's thread reads (callers are serialised by the
// browser session), so events that arrive between calls wait in the socket
// until the next call.
#pragma once

#include <Poco/JSON/Object.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "abx/sdk/status.h"

namespace Poco::Net {
class WebSocket;
}

namespace abx::plugins::browser {

using Clock = std::chrono::steady_clock;

class CdpClient {
 public:
  using EventHandler =
      std::function<void(const std::string& method, const Poco::JSON::Object::Ptr& params)>;

  /**
   * Opens ws://127.0.0.1:@p port@p path. Failures have type ConnectionError.
   */
  static sdk::Result<std::unique_ptr<CdpClient>> connect(int port, const std::string& path,
                                                         std::chrono::milliseconds timeout);
  ~CdpClient();

  void onEvent(EventHandler handler) { handler_ = std::move(handler); }

  /**
   * Sends @p method and waits until @p deadline for its reply. @return the
   * "result" object; a CDP error has type BrowserError, the deadline
   * TimeoutError, a broken connection ConnectionError (the client is then
   * unusable: broken() is true).
   */
  sdk::Result<Poco::JSON::Object::Ptr> call(const std::string& method,
                                            const Poco::JSON::Object::Ptr& params,
                                            Clock::time_point deadline);

  /** Reads events until @p done() or @p deadline (TimeoutError) or a broken connection. */
  sdk::Status pumpUntil(const std::function<bool()>& done, Clock::time_point deadline);

  /**
   * Reads, without waiting, every message already in the socket (events
   * that arrived between calls); notices a connection Chromium closed.
   */
  void drain();

  bool broken() const { return broken_; }

 private:
  CdpClient() = default;
  /** Reads one message; handles events; nullptr for an event or control frame. */
  sdk::Result<Poco::JSON::Object::Ptr> readMessage(Clock::time_point deadline);

  std::unique_ptr<Poco::Net::WebSocket> socket_;
  EventHandler handler_;
  long next_id_ = 1;
  bool broken_ = false;
};

}  // namespace abx::plugins::browser
