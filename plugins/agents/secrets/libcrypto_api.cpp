// Opened by soname (ABX_LIBCRYPTO_SONAME, from the library CMake found).
#include "secrets/libcrypto_api.h"

#include <stdexcept>

#include "abx/sdk/lazy_library.h"

namespace abx::plugins::agents {
namespace {

struct Loaded {
  LibCryptoApi api{};
  std::string error;
};

Loaded load() {
  sdk::LazyLibrary lib(ABX_LIBCRYPTO_SONAME);
  Loaded l;
  auto& a = l.api;
  lib.bind("EVP_CIPHER_CTX_new", a.cipher_ctx_new);
  lib.bind("EVP_CIPHER_CTX_free", a.cipher_ctx_free);
  lib.bind("EVP_CIPHER_CTX_ctrl", a.cipher_ctx_ctrl);
  lib.bind("EVP_aes_256_gcm", a.aes_256_gcm);
  lib.bind("EVP_EncryptInit_ex", a.encrypt_init);
  lib.bind("EVP_EncryptUpdate", a.encrypt_update);
  lib.bind("EVP_EncryptFinal_ex", a.encrypt_final);
  lib.bind("EVP_DecryptInit_ex", a.decrypt_init);
  lib.bind("EVP_DecryptUpdate", a.decrypt_update);
  lib.bind("EVP_DecryptFinal_ex", a.decrypt_final);
  lib.bind("RAND_bytes", a.rand_bytes);
  l.error = lib.error();
  return l;
}

}  // namespace

const LibCryptoApi& libCrypto() {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) throw std::runtime_error(loaded.error);
  return loaded.api;
}

}  // namespace abx::plugins::agents
