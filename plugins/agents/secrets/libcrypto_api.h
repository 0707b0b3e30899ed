// The OpenSSL libcrypto functions the agents plugin calls (AES-256-GCM for
// sealed state values, randomness for their nonces), bound on first
// use (dlopen) instead of at load: a server that never seals a secret does
// not map libcrypto, about 1.4 MiB of idle RSS.
#pragma once

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <string>

namespace abx::plugins::agents {

struct LibCryptoApi {
  decltype(&::EVP_CIPHER_CTX_new) cipher_ctx_new;
  decltype(&::EVP_CIPHER_CTX_free) cipher_ctx_free;
  decltype(&::EVP_CIPHER_CTX_ctrl) cipher_ctx_ctrl;
  decltype(&::EVP_aes_256_gcm) aes_256_gcm;
  decltype(&::EVP_EncryptInit_ex) encrypt_init;
  decltype(&::EVP_EncryptUpdate) encrypt_update;
  decltype(&::EVP_EncryptFinal_ex) encrypt_final;
  decltype(&::EVP_DecryptInit_ex) decrypt_init;
  decltype(&::EVP_DecryptUpdate) decrypt_update;
  decltype(&::EVP_DecryptFinal_ex) decrypt_final;
  decltype(&::RAND_bytes) rand_bytes;
};

/**
 * The bound functions, loaded once (thread-safe) and kept for the life of
 * the process. Throws std::runtime_error with the loader's message when the
 * library or one of its functions is missing (a broken installation).
 */
const LibCryptoApi& libCrypto();

}  // namespace abx::plugins::agents
