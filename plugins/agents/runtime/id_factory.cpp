#include "id_factory.h"

#include <array>
#include <mutex>
#include <random>

namespace abx::plugins::agents {

std::string randomId(std::string_view prefix) {
  static std::mutex mutex;
  static std::mt19937_64 engine{std::random_device{}()};
  std::uint64_t a, b;
  {
    std::lock_guard lock(mutex);
    a = engine();
    b = engine();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(prefix);
  out += '_';
  for (int i = 0; i < 16; ++i) out += kHex[(a >> (i * 4)) & 0xf];
  for (int i = 0; i < 8; ++i) out += kHex[(b >> (i * 4)) & 0xf];
  return out;
}

}  // namespace abx::plugins::agents
