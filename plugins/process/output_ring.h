// OutputRing: the last `capacity` bytes of a background process's output,
// addressed by absolute offsets (bytes written since the process started),
// so a client reads incrementally with ?after=<offset> and learns how much
// it missed when it fell behind the ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace abx::plugins::process {

/** THREAD: not synchronised; the owner locks. */
class OutputRing {
 public:
  /** @p capacity bytes at most (0 keeps nothing); memory grows as output comes. */
  explicit OutputRing(std::size_t capacity);

  void append(std::string_view bytes);

  /** Offset of the oldest byte still held. */
  std::uint64_t start() const { return total_ - buffer_.size(); }
  /** Offset after the newest byte: every byte ever appended. */
  std::uint64_t end() const { return total_; }
  std::size_t capacity() const { return capacity_; }

  struct Slice {
    std::string bytes;         /**< from max(after, start()) to end() */
    std::uint64_t from = 0;    /**< offset of bytes[0] */
    std::uint64_t next = 0;    /**< offset to pass as `after` next time */
    std::uint64_t dropped = 0; /**< bytes after `after` no longer held */
  };
  /** The bytes after offset @p after (callers keep after <= end()), at most @p max_bytes. */
  Slice read(std::uint64_t after, std::size_t max_bytes = SIZE_MAX) const;

 private:
  std::size_t capacity_;
  std::string buffer_;    // grows to capacity_, then wraps
  std::size_t head_ = 0;  // index of the oldest byte once full
  std::uint64_t total_ = 0;
};

}  // namespace abx::plugins::process
