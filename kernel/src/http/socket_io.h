// Socket I/O for the worker side of a connection: whole writes (EINTR and
// short writes handled, never SIGPIPE) and bounded reads. Sockets stay
// non-blocking for their whole life (no mode switch per request); a call
// that would block waits with poll, at most the I/O timeout, so a stalled
// peer ends a call instead of holding a worker forever.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace abx::kernel {

/** While one lives, this thread's reads and writes never wait: what would block fails. */
class NoWaitScope {
 public:
  NoWaitScope();
  ~NoWaitScope();
  NoWaitScope(const NoWaitScope&) = delete;
  NoWaitScope& operator=(const NoWaitScope&) = delete;

 private:
  bool was_;
};

/** The longest one read or write waits for its peer (default 60 s). */
void setIoTimeout(std::chrono::milliseconds timeout);
/** Writes every byte of @p parts in order (one writev when they fit). False on error or timeout. */
bool writeAll(int fd, std::initializer_list<std::string_view> parts);
/** One recv of at most @p n bytes: 0 at EOF, -1 on error or timeout. */
ssize_t readSome(int fd, char* buffer, std::size_t n);
/** The numeric address of the socket's local (or, with @p peer, remote) end. */
std::string socketAddress(int fd, bool peer);

/** An IMF-fixdate for the Date header, cached per second. */
std::string httpDate();

}  // namespace abx::kernel
