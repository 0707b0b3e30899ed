#include "id_factory.h"

#include "abx/sdk/random.h"

namespace abx::plugins::agents {

std::string randomId(std::string_view prefix) {
  // 96 bits from the kernel's CSPRNG: ids cannot be guessed from others.
  return std::string(prefix) + "_" + sdk::randomHex(12);
}

}  // namespace abx::plugins::agents
