// Subprocess on a pseudo-terminal (SpawnOptions::terminal): the master stays
// with the server, the slave becomes the child's controlling terminal. The
// child starts like every other (fork_exec.cpp: new session, default
// signals, nothing else open, the child user, the cwd); only its stdio and
// the TIOCSCTTY differ.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>

#include "abx/sdk/subprocess.h"
#include "fork_exec.h"
#include "subprocess_support.h"

namespace abx::sdk {

using namespace subprocess_detail;

namespace {

Status setWindowSize(int master, int rows, int cols) {
  if (rows < 1 || cols < 1 || rows > 0xFFFF || cols > 0xFFFF)
    return Status::error(
        "terminal size out of range: " + std::to_string(rows) + "x" + std::to_string(cols),
        "ValueError");
  struct winsize size {};
  size.ws_row = static_cast<unsigned short>(rows);
  size.ws_col = static_cast<unsigned short>(cols);
  if (::ioctl(master, TIOCSWINSZ, &size) != 0) return errnoStatus("TIOCSWINSZ", errno);
  return Status::ok();
}

/** A new pseudo-terminal of @p size: @p master and its slave, both close-on-exec. */
Status openTerminal(const TerminalSize& size, UniqueFd& master, UniqueFd& slave) {
  master.reset(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (master.get() < 0) return errnoStatus("posix_openpt", errno);
  if (::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0)
    return errnoStatus("grantpt/unlockpt", errno);
  char name[128];
  // ptsname_r returns the error number instead of setting errno.
  if (const int err = ::ptsname_r(master.get(), name, sizeof name); err != 0)
    return errnoStatus("ptsname_r", err);
  if (Status s = setWindowSize(master.get(), size.rows, size.cols); !s) return s;
  // Erase and line editing count characters, not bytes, in UTF-8.
  struct termios tio {};
  if (::tcgetattr(master.get(), &tio) == 0) {
    tio.c_iflag |= IUTF8;
    ::tcsetattr(master.get(), TCSANOW, &tio);
  }
  // grantpt gave the slave to the server's user; the child's owns its terminal.
  if (Status s = Subprocess::giveToChildUser(name); !s) return s;
  slave.reset(::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (slave.get() < 0) return errnoStatus(std::string("open ") + name, errno);
  if (Status s = keepAboveStdio(master); !s) return s;
  return keepAboveStdio(slave);
}

}  // namespace

namespace subprocess_detail {

Result<pid_t> startOnTerminal(const std::string& program, const SpawnOptions& options,
                              const ExecVectors& exec, ParentEnds& ends) {
  UniqueFd master, slave;
  if (Status s = openTerminal(*options.terminal, master, slave); !s) return s;
  auto user = Subprocess::childUser();
  detail::ChildFds fds{slave.get(), slave.get(), slave.get(), true};
  auto started = detail::forkExec(user ? &*user : nullptr, program, exec.argv.data(),
                                  exec.envp.data(), fds, options.cwd, exec.limits);
  // The slave closes here: once the child's copies close, the master reads EIO.
  if (started) ends.master.reset(master.release());
  return started;
}

}  // namespace subprocess_detail

Status Subprocess::resizeTerminal(int rows, int cols) {
  if (terminal_fd_ < 0)
    return Status::error("resizeTerminal: the child has no terminal", "ValueError");
  return setWindowSize(terminal_fd_, rows, cols);
}

}  // namespace abx::sdk
