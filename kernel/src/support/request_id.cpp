#include "support/request_id.h"

#include <atomic>
#include <cstdint>
#include <cstdio>

#include "abx/sdk/random.h"

namespace abx::kernel {
namespace {

thread_local const std::string* t_current = nullptr;

bool saneToken(std::string_view text) {
  if (text.empty() || text.size() > 128) return false;
  for (const char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("._~:/+=-").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string requestIdFor(std::string_view incoming) {
  if (saneToken(incoming)) return std::string(incoming);
  // A random prefix per process and a counter: unique within a run and
  // across restarts, without a system call per request.
  static const std::string prefix = sdk::randomHex(8);
  static std::atomic<std::uint64_t> counter{0};
  char count[20];
  std::snprintf(count, sizeof count, "%016llx",
                static_cast<unsigned long long>(counter.fetch_add(1, std::memory_order_relaxed)));
  return prefix + count;
}

std::string_view currentRequestId() { return t_current ? std::string_view(*t_current) : ""; }

RequestIdScope::RequestIdScope(const std::string& id) : previous_(t_current) { t_current = &id; }

RequestIdScope::~RequestIdScope() { t_current = previous_; }

}  // namespace abx::kernel
