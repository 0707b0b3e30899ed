// The listening socket and the process's descriptor budget: opening the
// socket, its bound port, the open-file limit the server raises at start,
// and the descriptor held back for the moment the process runs out.
#pragma once

#include <sys/resource.h>

#include <functional>
#include <string>

namespace abx::kernel {

/** A non-blocking listening socket on @p host:@p port (0: any); throws std::runtime_error. */
int openListener(const std::string& host, int port);
/** The port @p fd is bound to. */
int boundPort(int fd);

/**
 * Raises this process's soft open-file limit to its hard limit, so the
 * connection caps can be reached (a soft limit is often 1024 where the hard
 * one is far higher). Children inherit it; any process may raise its own
 * soft limit that far, so they gain nothing they could not take. Returns
 * the soft limit now.
 */
rlim_t raiseOpenFileLimit();

/**
 * One descriptor held back for the moment the process runs out. Then a
 * connection waiting in the listening socket's backlog can be neither
 * accepted nor refused: the socket stays readable, the event loop would spin
 * on it and the client would hang. Let go, the reserve makes room to take
 * the waiting connections one at a time and refuse each.
 */
class DescriptorReserve {
 public:
  DescriptorReserve();
  ~DescriptorReserve();
  DescriptorReserve(const DescriptorReserve&) = delete;
  DescriptorReserve& operator=(const DescriptorReserve&) = delete;

  /**
   * Takes each connection waiting on @p listen_fd, with the reserve let go,
   * and hands it to @p refuse, which closes it. False when the reserve could
   * not be taken back (another thread got the descriptor first): the caller
   * stops accepting until retake() succeeds.
   */
  bool shed(int listen_fd, const std::function<void(int)>& refuse);
  /** Takes the reserve back; true when it is held. */
  bool retake();

 private:
  int fd_ = -1;
};

}  // namespace abx::kernel
