// The python_version of GET /system/info: what `python3 --version` prints in
// the children's environment (the interpreter a caller's code would get),
// not the version of anything inside this server. Probed once, then cached.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abx::plugins::system {

/** "Python 3.11.7\n" -> "3.11.7"; nullopt for any other text. */
std::optional<std::string> parsePythonVersion(std::string_view text);

/** Runs `python3 -I --version` with @p env in "/"; nullopt when absent, failing or slow. */
std::optional<std::string> probePythonVersion(const std::vector<std::string>& env,
                                              std::chrono::milliseconds timeout);

/** The probe's result, computed on first use. THREAD: safe. */
class PythonVersionCache {
 public:
  template <class Probe>
  const std::optional<std::string>& get(Probe&& probe) {
    std::call_once(once_, [&] { value_ = probe(); });
    return value_;
  }

 private:
  std::once_flag once_;
  std::optional<std::string> value_;
};

}  // namespace abx::plugins::system
