// libFuzzer target for secret redaction: the SDK's SecretRedactor (one-shot)
// and the agents plugin's StreamRedactor (chunks split anywhere). Built and
// run by tests/fuzz/run.sh redaction with -fsanitize=fuzzer,address,undefined.
//
// Input: a mode byte (bits 0-1: 1-4 secrets; bit 2: the text carries them;
// bit 3: also feed one byte at a time), four bytes that pick the cuts, then
// parts separated by '\x01': the first are the secrets (at least
// kMinSecretLength bytes; '[' and ']' become '{' and '}', and none may lie
// inside "[REDACTED]", so the output can never spell one without leaking
// it), the rest is
// filler text. The text is the fillers with a secret after each one when
// bit 2 is set. Checked:
//   - the stream's output for every split equals redact() of the whole text
//     (stream_redactor.h promises it), and it holds back less than
//     longestPattern() bytes after each push;
//   - neither output contains any secret;
//   - without secrets in the text, and with no spelling of one and no start
//     of a token shape in it, both outputs are the text unchanged.
// Any disagreement aborts with a message.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/secret_redactor.h"
#include "abx/sdk/secret_spellings.h"
#include "fuzz_pieces.h"
#include "secrets/stream_redactor.h"

namespace {

using abx::fuzz::pieces;

using abx::plugins::agents::StreamRedactor;
using abx::sdk::SecretRedactor;

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "invariant violated: %s\n", what);
  std::abort();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

/** Streams @p chunks (each from a heap block of its own size) through a StreamRedactor. */
std::string streamed(const SecretRedactor& redactor, const std::vector<std::string_view>& chunks) {
  StreamRedactor stream(redactor);
  const std::size_t longest = redactor.patterns()->longestPattern();
  std::string out;
  for (auto chunk : chunks) {
    auto block = std::make_unique<char[]>(chunk.empty() ? 1 : chunk.size());
    std::copy(chunk.begin(), chunk.end(), block.get());
    out += stream.push(std::string_view(block.get(), chunk.size()));
    if (stream.heldBytes() >= std::max<std::size_t>(longest, 1))
      violated("the stream holds back longestPattern() bytes or more");
  }
  out += stream.flush();
  if (stream.heldBytes() != 0) violated("bytes held after flush()");
  return out;
}

bool mayStartToken(const std::string& text) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view start : {"sk", "gh", "gi", "be", "x-"})
    if (lower.find(start) != std::string::npos) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  const std::uint8_t mode = data[0];
  const std::size_t count = 1 + (mode & 3);
  const auto parts = split(std::string_view(reinterpret_cast<const char*>(data + 5), size - 5), 1);
  if (parts.size() < count) return 0;
  std::vector<std::string> secrets;
  for (std::size_t i = 0; i < count; ++i) {
    std::string s(parts[i]);
    std::replace(s.begin(), s.end(), '[', '{');
    std::replace(s.begin(), s.end(), ']', '}');
    if (s.size() < abx::sdk::kMinSecretLength ||
        std::string_view("REDACTED").find(s) != std::string_view::npos)
      return 0;
    secrets.push_back(std::move(s));
  }
  const bool with_secrets = mode & 4;
  std::string text;
  for (std::size_t i = count; i < parts.size(); ++i) {
    text.append(parts[i]);
    if (with_secrets) text += secrets[i % count];
  }
  if (with_secrets && parts.size() == count) text = secrets[0];

  SecretRedactor redactor;
  redactor.addSecrets(secrets);
  const std::string once = redactor.redact(text);
  if (streamed(redactor, pieces(text, data + 1)) != once)
    violated("streamed output differs from redact() of the whole text");
  if (mode & 8) {
    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < text.size(); ++i)
      bytes.push_back(std::string_view(text).substr(i, 1));
    if (streamed(redactor, bytes) != once) violated("byte-at-a-time output differs from redact()");
  }
  for (const auto& s : secrets)
    if (once.find(s) != std::string::npos) violated("a secret survived redaction");

  if (with_secrets || mayStartToken(text)) return 0;
  for (const auto& s : secrets)
    for (const auto& spelling : abx::sdk::secretSpellings(s))
      if (text.find(spelling) != std::string::npos) return 0;
  if (once != text) violated("a text without secrets or token shapes was changed");
  return 0;
}
