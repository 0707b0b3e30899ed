// Request, Response and SseStream: the HTTP types handlers see. The kernel
// converts its server's types into these; nothing here is tied to a library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/json.h"
#include "abx/sdk/policy.h"

namespace abx::sdk {

/** Who is calling: "anonymous" when no token is configured. */
struct Identity {
  std::string id = "anonymous";
  std::vector<std::string> scopes{"*"};
  /** True for "*", the exact scope, or a "<prefix>:*" scope covering it. */
  ABX_SDK_API bool hasScope(std::string_view scope) const;
};

using ParamMap = std::map<std::string, std::string, std::less<>>;

/**
 * A request body read as it arrives (routes with RouteSpec::raw_body).
 * THREAD: the handler's thread. LIFETIME: the call.
 */
class ABX_SDK_API BodyReader {
 public:
  /** Reads up to @p n bytes; 0 at the end of the body (or when the client went away). */
  virtual std::size_t read(char* buffer, std::size_t n) = 0;
  /** The Content-Length (the pipeline already held it to the route's limit). */
  virtual std::uint64_t length() const = 0;

 protected:
  ~BodyReader();
};

/** Where a streamed response body goes. THREAD: the handler's thread. */
class ABX_SDK_API BodyWriter {
 public:
  /** Writes @p bytes; false once the client is gone (stop producing). */
  virtual bool write(std::string_view bytes) = 0;

 protected:
  ~BodyWriter();
};

/** One HTTP request after the pipeline admitted it. LIFETIME: the call. */
struct Request {
  std::string method;
  std::string path;     /**< normalised: no trailing slash, no query */
  std::string endpoint; /**< the matched endpoint id */
  ParamMap path_params; /**< from `{param}` segments, percent-decoded */
  ParamMap query;       /**< decoded; duplicates were already rejected */
  /** Repeated `name[]=a&name[]=b` parameters, keyed by `name` (qs-style arrays). */
  std::map<std::string, std::vector<std::string>, std::less<>> query_arrays;
  /** Header names lower-case, in arrival order. */
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body; /**< raw body, bounded by the route's limit */
  Json json;        /**< parsed body object (empty object if no body) */
  Identity identity;
  /** The endpoint's effective policy rule. LIFETIME: the call. Never null
   *  for requests the kernel dispatches. */
  const EndpointPolicy* policy = nullptr;
  /** Set instead of body/json for RouteSpec::raw_body routes. */
  BodyReader* body_reader = nullptr;

  ABX_SDK_API std::optional<std::string_view> header(std::string_view lower_name) const;
  ABX_SDK_API std::optional<std::string_view> param(std::string_view name) const;
  ABX_SDK_API std::optional<std::string_view> queryParam(std::string_view name) const;
  /** Since 2.5. The rule's params (policy->params), or empty ones without a rule. */
  ABX_SDK_API const Params& policyParams() const;
};

/** A complete (non-streaming) response, written in one send. */
struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  /**
   * A body produced while it is sent, in bounded memory (large files): when
   * set, `body` is ignored and the producer is called once after the
   * headers. With stream_length >= 0 the response carries that
   * Content-Length and the producer must write exactly that many bytes;
   * otherwise it is chunked. Return false to abort the connection (the
   * client then sees a truncated body, never a wrong complete one).
   */
  std::function<bool(BodyWriter&)> body_stream;
  std::int64_t stream_length = -1;

  /** 200 (or @p status) with a JSON body already serialised. */
  static Response json(std::string body, int status = 200) {
    Response r;
    r.status = status;
    r.body = std::move(body);
    return r;
  }
  /**
   * The error body of every non-/v1 route:
   * {"error": message, "type": type[, "code": code]}.
   */
  ABX_SDK_API static Response error(int status, std::string_view message, std::string_view type,
                                    std::string_view code = {});
};

class SseFeed;
class SseWaker;
class DeferredAnswer;

/**
 * A server-sent-events response being written. The first event (or begin())
 * flushes the 200 headers. A failed write marks only this stream closed; the
 * producer decides whether to go on.
 * THREAD: safe to call from any thread. LIFETIME: the handler call.
 */
class ABX_SDK_API SseStream {
 public:
  /** Sends the headers now, before any event. */
  virtual bool begin() = 0;
  /** Writes `event: <name>\ndata: <data>\n\n`; @return false once closed. */
  virtual bool event(std::string_view name, std::string_view data) = 0;
  /** Writes a `: <text>` comment line (keep-alive). */
  virtual bool comment(std::string_view text) = 0;
  /** False after a failed write or when the server is shutting down. */
  virtual bool open() const = 0;
  /** One event of a batch; a non-empty id is sent as an `id:` line first. */
  struct Event {
    std::string_view name;
    std::string_view data;
    std::string_view id;
  };
  /**
   * Writes several events as one send (a reader catching up on a fast
   * producer pays one write, not one per event). Default: event() for each
   * (ids dropped). Since ABI 1.1.
   */
  virtual bool events(const std::vector<Event>& batch);
  /**
   * Moves the connection to the server's event loop so the handler can
   * return std::nullopt at once and free its thread. From then on the loop
   * pulls encoded text from @p feed whenever the client can take more,
   * sends `: ping` while the stream is idle and notices a client that hangs
   * up; nothing written through this SseStream afterwards is sent. The
   * headers go first if begin() was not called. @return the producer's
   * handle, or nullptr when this stream cannot be detached (a test double):
   * the handler then serves the feed itself (see SseFeed). Since ABI 1.4.
   */
  virtual std::shared_ptr<SseWaker> detach(std::shared_ptr<SseFeed> feed);
  /**
   * Writes already-encoded SSE text (appendSseFrame) as one send: how a
   * handler that could not detach serves a feed. Default: false (not
   * supported). Since ABI 1.4.
   */
  virtual bool frames(std::string_view encoded);
  /**
   * Instead of streaming: moves the connection to the event loop to wait,
   * without a thread, for one whole answer (a JSON Response) that is given
   * later through the returned handle; the handler returns std::nullopt at
   * once. Only before begin() and any event. When the client hangs up
   * first, @p on_hang_up (if any) runs on the event-loop thread. The answer
   * ends the connection. @return nullptr when not possible: answer on this
   * thread instead. Since ABI 1.4.
   */
  virtual std::shared_ptr<DeferredAnswer> defer(std::function<void()> on_hang_up);
  /**
   * Adds a header to the stream's 200 answer (X-Agent-Sandbox-Ignored-Params,
   * ...). Only before begin() and the first event; a name or value holding
   * CR, LF or NUL, or a name that is not a token, is refused. @return false
   * when refused or too late. Default: false. Since ABI 2.3.
   */
  virtual bool header(std::string_view name, std::string_view value);

 protected:
  ~SseStream();
};

/**
 * What a detached SseStream sends. The server's event loop pulls from it
 * when the client can take more text, so the producer never waits for a
 * slow client: the feed keeps the client's position (in a ring the producer
 * already has, or in a bounded queue of its own) and decides what a client
 * that fell too far behind gets. Since ABI 1.4.
 * THREAD: pull() and closed() run on the event-loop thread, one at a time
 * for one feed; they must not block (take a lock, copy, return).
 */
class ABX_SDK_API SseFeed {
 public:
  enum class Pull {
    more, /**< @p budget reached: call again when the client takes it */
    wait, /**< nothing more now: call again after the next SseWaker::wake() */
    end,  /**< what was appended is the last: the stream ends */
  };
  /** Appends encoded SSE text (appendSseFrame) to @p out, about @p budget bytes at most. */
  virtual Pull pull(std::string& out, std::size_t budget) = 0;
  /** The stream ended (client gone, server draining, or pull() said end). Default: nothing. */
  virtual void closed();
  virtual ~SseFeed();
};

/**
 * The producer's handle on a detached stream: wake() after making new text
 * available to its feed. Calls coalesce into one pull.
 * THREAD: safe from any thread, cheap (no system call while a pull is due).
 * Call it after letting go of any lock the feed's pull() takes: the event
 * loop runs at a higher priority, may run at once, and would wait on it.
 */
class ABX_SDK_API SseWaker {
 public:
  virtual void wake() = 0;
  /** False once the stream ended. */
  virtual bool open() const = 0;

 protected:
  ~SseWaker();
};

/**
 * The handle of an answer a handler deferred (SseStream::defer).
 * THREAD: safe from any thread.
 */
class ABX_SDK_API DeferredAnswer {
 public:
  /** Sends @p response (its body; a body_stream is not supported). Only the first call counts. */
  virtual void answer(Response response) = 0;
  /** False once the client hung up, the server drains, or it was answered. */
  virtual bool open() const = 0;

 protected:
  ~DeferredAnswer();
};

/**
 * Appends one event to @p out as SSE text: `id:` (if any), `event:` (if
 * any), one `data:` line per line of @p data, a blank line. Encode an event
 * once and hand the same text to every subscriber. Since ABI 1.4.
 */
ABX_SDK_API void appendSseFrame(std::string& out, std::string_view name, std::string_view data,
                                std::string_view id = {});

using Handler = std::function<Response(const Request&)>;
/**
 * A streaming handler: return a Response to answer without streaming (a 400
 * before any event, say); return nullopt once events were written.
 */
using StreamHandler = std::function<std::optional<Response>(const Request&, SseStream&)>;

}  // namespace abx::sdk
