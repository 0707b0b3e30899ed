// Since 2.5. A shared library a plugin opens on first use (dlopen by
// soname) instead of linking it, so a server that never needs it does not
// map it: the files plugin's libarchive, the browser's ICU, the agents'
// libcrypto. The soname is searched for as the dynamic linker searches for a
// linked library (never in the working directory: docs/security.md). The
// library is never closed — its functions may be running on any thread.
#pragma once

#include <string>

#include "abx/sdk/version.h"

namespace abx::sdk {

/** THREAD: build it once (a function-local static); then read only. */
class ABX_SDK_API LazyLibrary {
 public:
  /** dlopen(@p soname, RTLD_NOW | RTLD_LOCAL); a failure is kept in error(). */
  explicit LazyLibrary(const char* soname);

  /** The address of @p name, or nullptr (the first missing one is kept in error()). */
  void* symbol(const char* name);

  /** Binds the function @p name into @p out. */
  template <typename F>
  void bind(const char* name, F& out) {
    out = reinterpret_cast<F>(symbol(name));
  }

  /** "" while the library and every symbol asked for were found; else why not. */
  const std::string& error() const { return error_; }

 private:
  std::string soname_;
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace abx::sdk
