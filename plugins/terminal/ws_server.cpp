#include "ws_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "abx/sdk/text_codecs.h"
#include "terminal_owner.h"
#include "utf8_chunker.h"
#include "ws_auth.h"
#include "ws_url.h"

namespace abx::plugins::terminal {
namespace {

// The longest backlog the kernel allows (SOMAXCONN, capped by
// net.core.somaxconn): a burst of connects waits in it for the loop rather
// than being dropped to wait out a TCP retransmission. The handshake cap,
// not the backlog, bounds what the port holds.
constexpr int kListenBacklog = SOMAXCONN;

/**
 * A non-blocking socket listening on @p host:@p port (0: any free port).
 * Never SO_REUSEPORT: another process of the same user could bind the port
 * beside us and take a share of the handshakes, tokens and all.
 */
sdk::Result<int> listenOn(const std::string& host, int port) {
  const std::string where = host + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(),
                                   std::to_string(port).c_str(), &hints, &found);
      rc != 0)
    return sdk::Status::error("cannot listen on " + where + ": " + ::gai_strerror(rc), "OSError");
  int error = EADDRNOTAVAIL;
  for (addrinfo* a = found; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = errno;
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // restart over TIME_WAIT
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, kListenBacklog) == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    error = errno;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return sdk::Status::error("cannot listen on " + where + ": " + std::strerror(error), "OSError");
}

int boundPort(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

HandshakeDecision refuse(const sdk::Response& response) {
  HandshakeDecision refusal;
  refusal.answer = httpAnswer(response);
  return refusal;
}

HandshakeDecision refuse(int status, const std::string& message, std::string_view code = {}) {
  return refuse(sdk::Response::error(status, message, "ValueError", code));
}

/** Upgraded, then closed at once with @p code and @p reason. */
HandshakeDecision upgradeAndClose(std::string answer, std::uint16_t code, std::string reason) {
  HandshakeDecision close;
  close.kind = HandshakeDecision::Kind::close;
  close.answer = std::move(answer);
  close.close_code = code;
  close.close_reason = std::move(reason);
  return close;
}

/** The close reason for an unknown id: printable, and within a close frame's 123 bytes. */
std::string unknownSession(const std::string& id) {
  std::string shown = sanitizeUtf8(id.substr(0, 64));
  for (auto& c : shown)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return "Unknown session: " + shown;
}

}  // namespace

WsService::WsService(WsServiceContext context)
    : context_(std::move(context)),
      bridge_(context_.bridge, [this](const sdk::RequestHead& head, const std::string& local) {
        return judge(head, local);
      }) {}

WsService::~WsService() { stop(); }

sdk::Result<int> WsService::start(const std::string& host, int port) {
  if (running_) return port_.load();
  auto fd = listenOn(host, port);
  if (!fd) return fd.status();
  // Known before the first handshake is judged (the hint for a plain GET names it).
  const int bound = boundPort(*fd);
  const int previous = port_.exchange(bound);
  if (!bridge_.start(*fd)) {
    port_ = previous;
    return sdk::Status::error("cannot serve " + host + ":" + std::to_string(port) +
                                  ": the PTY port's thread did not start",
                              "OSError");
  }
  running_ = true;
  return bound;
}

void WsService::stop() noexcept {
  // Every attached terminal closes with 1001 (cut off if it does not answer).
  bridge_.stop();
  running_ = false;
}

HandshakeDecision WsService::judge(const sdk::RequestHead& head, const std::string& local_address) {
  try {
    const std::string_view target = std::string_view(head.target).substr(0, head.target.find('#'));
    const auto mark = target.find('?');
    std::string path;
    auto query = sdk::decodeQuery(mark == std::string_view::npos ? std::string_view()
                                                                 : target.substr(mark + 1));
    if (!sdk::percentDecode(target.substr(0, mark), path) || !query)
      return refuse(400, "Malformed %-escape in the request target");
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path != "/pty") return refuse(404, "Not found: " + path);
    if (head.method != "GET") return refuse(405, "Method not allowed: " + head.method);

    std::optional<std::string> session_id, ticket;
    for (const auto& [name, value] : *query) {
      std::optional<std::string>* slot = name == "session_id" ? &session_id
                                         : name == "ticket"   ? &ticket
                                                              : nullptr;
      if (!slot) continue;
      if (*slot)
        return refuse(400, "Duplicate query parameter '" + name + "'", "duplicate_parameter");
      *slot = value;
    }
    if (session_id && session_id->empty()) session_id.reset();

    Handshake handshake{head.lowerCaseHeaders(), session_id, ticket, local_address};
    const HandshakeVerdict verdict =
        authorizeHandshake(*context_.host, *context_.tickets, handshake);
    if (!verdict.allowed) {
      auto refusal = sdk::Response::json(verdict.body, verdict.status);
      refusal.headers = verdict.headers;
      return refuse(refusal);
    }

    const UpgradeCheck upgrade = checkUpgrade(head);
    if (!upgrade.websocket)
      return refuse(400, "connect with a WebSocket to ws://" +
                             urlHost(head.header("Host"), context_.host->info().host) + ":" +
                             std::to_string(port_.load()) + "/pty?session_id=…");
    if (!upgrade.error.empty()) return refuse(400, upgrade.error);
    std::string answer = switchingProtocols(upgrade.key);
    if (!session_id)
      return upgradeAndClose(std::move(answer), kClosePolicyViolation,
                             "Missing session_id parameter");
    auto session = context_.sessions->find(*session_id);
    // Another identity's session is unknown to the caller, with the same close.
    if (!session || !mayActOn(verdict.caller, verdict.admin, session->owner()))
      return upgradeAndClose(std::move(answer), kClosePolicyViolation, unknownSession(*session_id));
    if (context_.log)
      context_.log->debug("pty " + session->id() + ": client attached (" + verdict.caller + ")");
    HandshakeDecision attach;
    attach.kind = HandshakeDecision::Kind::attach;
    attach.answer = std::move(answer);
    attach.session = std::move(session);
    attach.lease = verdict.lease;
    return attach;
  } catch (const std::exception& e) {
    if (context_.log) context_.log->debug(std::string("pty websocket: ") + e.what());
    return refuse(400, e.what());
  }
}

}  // namespace abx::plugins::terminal
