#include "output_ring.h"

#include <algorithm>

namespace abx::plugins::process {

OutputRing::OutputRing(std::size_t capacity) : capacity_(capacity) {}

void OutputRing::append(std::string_view bytes) {
  total_ += bytes.size();
  if (capacity_ == 0) return;
  if (bytes.size() >= capacity_) {
    buffer_.assign(bytes.substr(bytes.size() - capacity_));
    head_ = 0;
    return;
  }
  const std::size_t room = capacity_ - buffer_.size();
  const std::size_t fill = std::min(room, bytes.size());
  buffer_.append(bytes.substr(0, fill));
  bytes.remove_prefix(fill);
  // Full: overwrite the oldest bytes, which start at head_.
  while (!bytes.empty()) {
    const std::size_t run = std::min(bytes.size(), capacity_ - head_);
    buffer_.replace(head_, run, bytes.substr(0, run));
    bytes.remove_prefix(run);
    head_ = (head_ + run) % capacity_;
  }
}

OutputRing::Slice OutputRing::read(std::uint64_t after, std::size_t max_bytes) const {
  Slice slice;
  const std::uint64_t first = start();
  after = std::min(after, total_);
  slice.from = std::max(after, first);
  slice.dropped = slice.from - after;
  const std::size_t count =
      static_cast<std::size_t>(std::min<std::uint64_t>(total_ - slice.from, max_bytes));
  slice.bytes.reserve(count);
  if (count > 0) {
    const std::size_t size = buffer_.size();
    std::size_t index = (head_ + static_cast<std::size_t>(slice.from - first)) % size;
    std::size_t left = count;
    while (left > 0) {
      const std::size_t run = std::min(left, size - index);
      slice.bytes.append(buffer_, index, run);
      left -= run;
      index = (index + run) % size;
    }
  }
  slice.next = slice.from + count;
  return slice;
}

}  // namespace abx::plugins::process
