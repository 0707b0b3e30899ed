#include "support/request_id.h"

#include <sys/random.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <ctime>

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

// A random prefix per process and a counter: unique within a run and across
// restarts, without a system call per request.
std::uint64_t processPrefix() {
  std::uint64_t prefix = 0;
  if (::getrandom(&prefix, sizeof prefix, 0) != sizeof prefix)
    prefix = static_cast<std::uint64_t>(std::time(nullptr)) * 0x9E3779B97F4A7C15ull;
  return prefix;
}

}  // namespace

std::string requestIdFor(std::string_view incoming) {
  if (saneToken(incoming)) return std::string(incoming);
  static const std::uint64_t prefix = processPrefix();
  static std::atomic<std::uint64_t> counter{0};
  char text[40];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(prefix),
                static_cast<unsigned long long>(counter.fetch_add(1, std::memory_order_relaxed)));
  return text;
}

std::string_view currentRequestId() { return t_current ? std::string_view(*t_current) : ""; }

RequestIdScope::RequestIdScope(const std::string& id) : previous_(t_current) { t_current = &id; }

RequestIdScope::~RequestIdScope() { t_current = previous_; }

}  // namespace abx::kernel
