// Subprocess's output side: pumping the pipes, lines and chunks.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "abx/sdk/subprocess.h"
#include "subprocess_support.h"

namespace abx::sdk {

using namespace subprocess_detail;

void Subprocess::consume(int index, std::size_t n) {
  consumed_[index] += n;
  std::string& buf = buffers_[index];
  if (consumed_[index] >= buf.size()) {
    buf.clear();
    consumed_[index] = 0;
  } else if (consumed_[index] >= kReadSize && consumed_[index] * 2 >= buf.size()) {
    // Compact now and then rather than per line: erasing the front per line
    // would be quadratic in a buffer full of short lines.
    buf.erase(0, consumed_[index]);
    consumed_[index] = 0;
  }
}

void Subprocess::pump(std::chrono::milliseconds timeout, std::string_view* feed, bool watch_exit,
                      bool read_output) {
  pollfd fds[4];
  int stream_of[4] = {-1, -1, -1, -1};
  nfds_t n = 0;
  int stdin_slot = -1;
  if (read_output) {
    for (int i = 0; i < 2; ++i) {
      if (out_fds_[i] < 0) continue;
      stream_of[n] = i;
      fds[n++] = {out_fds_[i], POLLIN, 0};
    }
  }
  if (feed != nullptr && !feed->empty() && stdin_fd_ >= 0) {
    stdin_slot = static_cast<int>(n);
    fds[n++] = {stdin_fd_, POLLOUT, 0};
  }
  if (watch_exit && pid_fd_ >= 0 && !exit_code_) fds[n++] = {pid_fd_, POLLIN, 0};

  // EINTR just returns early: every caller loops on its own deadline.
  if (::poll(n > 0 ? fds : nullptr, n, toPollMs(timeout)) <= 0) return;

  for (nfds_t k = 0; k < n; ++k) {
    if (fds[k].revents == 0) continue;
    if (stream_of[k] >= 0) {
      const int i = stream_of[k];
      std::string& buf = buffers_[i];
      const std::size_t old = buf.size();
      buf.resize(old + kReadSize);
      ssize_t got;
      do {
        got = ::read(out_fds_[i], buf.data() + old, kReadSize);
      } while (got < 0 && errno == EINTR);
      buf.resize(old + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
      if (got == 0 || (got < 0 && errno != EAGAIN)) ::close(std::exchange(out_fds_[i], -1));
    } else if (static_cast<int>(k) == stdin_slot) {
      SigpipeBlock no_sigpipe;
      const ssize_t put = ::write(stdin_fd_, feed->data(), feed->size());
      if (put > 0) {
        feed->remove_prefix(static_cast<std::size_t>(put));
      } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
        // The child closed its stdin (or died): what it did not read is dropped.
        *feed = {};
      }
      if (feed->empty()) closeStdin();
    }
  }
}

std::optional<OutputLine> Subprocess::takeLine(int index, std::size_t max_line) {
  if (!hasBuffered(index)) return std::nullopt;
  std::string_view view(buffers_[index]);
  view.remove_prefix(consumed_[index]);
  OutputLine line;
  line.stream = index == 0 ? OutputStream::out : OutputStream::err;
  const std::size_t nl = view.substr(0, max_line + 1).find('\n');
  if (nl != std::string_view::npos) {
    line.text.assign(view.substr(0, nl));
    consume(index, nl + 1);
    return line;
  }
  if (view.size() > max_line) {
    const std::size_t cut = lineSafeCut(view, max_line);
    line.text.assign(view.substr(0, cut));
    line.partial = true;
    consume(index, cut);
    return line;
  }
  if (out_fds_[index] < 0) {
    line.text.assign(view);
    line.partial = true;
    consume(index, view.size());
    return line;
  }
  return std::nullopt;
}

std::optional<OutputLine> Subprocess::readLine(std::chrono::milliseconds timeout,
                                               std::size_t max_line) {
  max_line = std::clamp<std::size_t>(max_line, 1, SIZE_MAX - 1);
  const auto deadline = deadlineAfter(timeout);
  for (bool first = true;; first = false) {
    for (int k = 0; k < 2; ++k) {
      const int i = (next_stream_ + k) % 2;
      if (auto line = takeLine(i, max_line)) {
        next_stream_ = 1 - i;
        return line;
      }
    }
    // takeLine hands out the unterminated rest of a stream at EOF, so here
    // both closed means both drained.
    if (out_fds_[0] < 0 && out_fds_[1] < 0) return std::nullopt;
    const auto left = deadline - Clock::now();
    if (!first && left <= Clock::duration::zero()) return std::nullopt;
    pump(std::chrono::ceil<milliseconds>(std::max(left, Clock::duration::zero())));
  }
}

std::optional<OutputChunk> Subprocess::readChunk(std::chrono::milliseconds timeout) {
  const auto deadline = deadlineAfter(timeout);
  for (bool first = true;; first = false) {
    for (int k = 0; k < 2; ++k) {
      const int i = (next_stream_ + k) % 2;
      if (!hasBuffered(i)) continue;
      OutputChunk chunk;
      chunk.stream = i == 0 ? OutputStream::out : OutputStream::err;
      chunk.bytes.assign(buffers_[i], consumed_[i]);
      consume(i, chunk.bytes.size());
      next_stream_ = 1 - i;
      return chunk;
    }
    if (out_fds_[0] < 0 && out_fds_[1] < 0) return std::nullopt;
    const auto left = deadline - Clock::now();
    if (!first && left <= Clock::duration::zero()) return std::nullopt;
    pump(std::chrono::ceil<milliseconds>(std::max(left, Clock::duration::zero())));
  }
}

bool Subprocess::outputDone() const noexcept {
  return out_fds_[0] < 0 && out_fds_[1] < 0 && !hasBuffered(0) && !hasBuffered(1);
}

std::vector<int> Subprocess::readinessFds() const {
  std::vector<int> fds;
  for (int fd : out_fds_)
    if (fd >= 0) fds.push_back(fd);
  if (pid_fd_ >= 0 && !exit_code_) fds.push_back(pid_fd_);
  return fds;
}

}  // namespace abx::sdk
