// sdk::LazyLibrary (see abx/sdk/lazy_library.h).
#include "abx/sdk/lazy_library.h"

#include <dlfcn.h>

namespace abx::sdk {

LazyLibrary::LazyLibrary(const char* soname) : soname_(soname) {
  handle_ = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle_) return;
  const char* why = ::dlerror();
  error_ = "cannot load " + soname_ + ": " + (why ? why : "?");
}

void* LazyLibrary::symbol(const char* name) {
  void* address = handle_ ? ::dlsym(handle_, name) : nullptr;
  if (!address && error_.empty()) error_ = soname_ + " has no " + name;
  return address;
}

}  // namespace abx::sdk
