#include "state/secret_sealer.h"

#include <string.h>

#include <cctype>
#include <memory>
#include <stdexcept>
#include <vector>

#include "abx/sdk/text_codecs.h"
#include "secrets/libcrypto_api.h"

namespace abx::plugins::agents {
namespace {

constexpr int kNonceBytes = 12;

// explicit_bzero, which the compiler may not drop; an empty buffer's data() may be null.
void wipe(void* bytes, std::size_t size) {
  if (size > 0) ::explicit_bzero(bytes, size);
}
constexpr int kTagBytes = 16;

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(LibCryptoApi::cipher_ctx_free)>;

CipherContext newContext(const LibCryptoApi& c) {
  CipherContext ctx(c.cipher_ctx_new(), c.cipher_ctx_free);
  if (!ctx) throw std::runtime_error("OpenSSL: no cipher context");
  return ctx;
}

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// The decoded bytes as the cipher takes them (the text copy wiped).
std::optional<std::vector<unsigned char>> unbase64(std::string_view text) {
  auto decoded = sdk::base64Decode(text);
  if (!decoded) return std::nullopt;
  std::vector<unsigned char> out(decoded->begin(), decoded->end());
  wipe(decoded->data(), decoded->size());
  return out;
}

std::optional<std::vector<unsigned char>> unhex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::vector<unsigned char> out;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace

sdk::Result<std::array<unsigned char, 32>> parseStateKey(std::string_view text,
                                                         std::string_view source) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  auto decoded = text.size() == 64 ? unhex(text) : unbase64(text);
  std::array<unsigned char, 32> key{};
  if (!decoded || decoded->size() != key.size()) {
    if (decoded) wipe(decoded->data(), decoded->size());
    return sdk::Status::error(std::string(source) +
                                  ": the state key must be 32 bytes written as 64 hex digits or "
                                  "in base64 (e.g. the output of `openssl rand -hex 32`)",
                              "ValueError");
  }
  std::copy(decoded->begin(), decoded->end(), key.begin());
  wipe(decoded->data(), decoded->size());
  return key;
}

SecretSealer::~SecretSealer() { wipe(key_.data(), key_.size()); }

std::string SecretSealer::seal(std::string_view plain, std::string_view binding) const {
  const LibCryptoApi& c = libCrypto();
  std::vector<unsigned char> out(kNonceBytes + plain.size() + kTagBytes);
  if (c.rand_bytes(out.data(), kNonceBytes) != 1)
    throw std::runtime_error("OpenSSL: no randomness");
  auto ctx = newContext(c);
  int n = 0, last = 0;
  if (c.encrypt_init(ctx.get(), c.aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      c.cipher_ctx_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceBytes, nullptr) != 1 ||
      c.encrypt_init(ctx.get(), nullptr, nullptr, key_.data(), out.data()) != 1 ||
      c.encrypt_update(ctx.get(), nullptr, &n, bytes(binding), static_cast<int>(binding.size())) !=
          1 ||
      c.encrypt_update(ctx.get(), out.data() + kNonceBytes, &n, bytes(plain),
                       static_cast<int>(plain.size())) != 1 ||
      c.encrypt_final(ctx.get(), out.data() + kNonceBytes + n, &last) != 1 ||
      c.cipher_ctx_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes,
                        out.data() + kNonceBytes + plain.size()) != 1)
    throw std::runtime_error("OpenSSL: AES-256-GCM sealing failed");
  return std::string(kSealedPrefix) +
         sdk::base64Encode({reinterpret_cast<const char*>(out.data()), out.size()});
}

std::optional<std::string> SecretSealer::open(std::string_view sealed,
                                              std::string_view binding) const {
  if (!looksSealed(sealed)) return std::nullopt;
  auto data = unbase64(sealed.substr(kSealedPrefix.size()));
  if (!data || data->size() < kNonceBytes + kTagBytes) return std::nullopt;
  const std::size_t length = data->size() - kNonceBytes - kTagBytes;
  const LibCryptoApi& c = libCrypto();
  std::string plain(length, '\0');
  auto ctx = newContext(c);
  auto* text = reinterpret_cast<unsigned char*>(plain.data());
  int n = 0, last = 0;
  const bool opened =
      c.decrypt_init(ctx.get(), c.aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
      c.cipher_ctx_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceBytes, nullptr) == 1 &&
      c.decrypt_init(ctx.get(), nullptr, nullptr, key_.data(), data->data()) == 1 &&
      c.decrypt_update(ctx.get(), nullptr, &n, bytes(binding), static_cast<int>(binding.size())) ==
          1 &&
      c.decrypt_update(ctx.get(), text, &n, data->data() + kNonceBytes, static_cast<int>(length)) ==
          1 &&
      c.cipher_ctx_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes,
                        data->data() + kNonceBytes + length) == 1 &&
      c.decrypt_final(ctx.get(), text + n, &last) == 1;
  if (!opened) {
    wipe(plain.data(), plain.size());
    return std::nullopt;
  }
  return plain;
}

}  // namespace abx::plugins::agents
