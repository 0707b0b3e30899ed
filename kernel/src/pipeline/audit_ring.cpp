#include "pipeline/audit_ring.h"

#include <algorithm>

namespace abx::kernel {

void AuditRing::push(std::string_view record) {
  if (slots_.empty()) return;
  std::lock_guard lock(mutex_);
  slots_[next_].assign(record);
  next_ = (next_ + 1) % slots_.size();
  size_ = std::min(size_ + 1, slots_.size());
}

std::vector<std::string> AuditRing::newest(std::size_t limit) const {
  std::lock_guard lock(mutex_);
  const std::size_t count = std::min(limit, size_);
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 1; i <= count; ++i)
    out.push_back(slots_[(next_ + slots_.size() - i) % slots_.size()]);
  return out;
}

}  // namespace abx::kernel
