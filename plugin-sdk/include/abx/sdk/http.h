// Request, Response and SseStream: the HTTP types handlers see. The kernel
// converts its server's types into these; nothing here is tied to a library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
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

 protected:
  ~SseStream();
};

using Handler = std::function<Response(const Request&)>;
/**
 * A streaming handler: return a Response to answer without streaming (a 400
 * before any event, say); return nullopt once events were written.
 */
using StreamHandler = std::function<std::optional<Response>(const Request&, SseStream&)>;

}  // namespace abx::sdk
