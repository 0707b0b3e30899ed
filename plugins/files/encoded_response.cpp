#include "encoded_response.h"

#include <unistd.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "base64_stream.h"

namespace abx::plugins::files {
namespace {

constexpr std::size_t kReadChunk = 48u << 10;  // 64 KiB of base64 per write

}  // namespace

std::size_t base64Hole(sdk::JsonWriter& w) {
  w.value("");
  return w.text().size() - 1;
}

sdk::Response base64JsonResponse(Fd fd, std::uint64_t size, std::string body, std::size_t hole) {
  std::string suffix = body.substr(hole);
  body.resize(hole);
  std::string prefix = std::move(body);
  sdk::Response r;
  r.stream_length = static_cast<std::int64_t>(prefix.size() + base64Length(size) + suffix.size());
  // std::function needs a copyable callable: the fd is shared.
  auto file = std::make_shared<Fd>(std::move(fd));
  r.body_stream = [file, size, prefix = std::move(prefix),
                   suffix = std::move(suffix)](sdk::BodyWriter& out) {
    if (!out.write(prefix)) return false;
    std::vector<char> buf(kReadChunk);
    std::string text;
    text.reserve(base64Length(kReadChunk) + 4);
    Base64StreamEncoder encoder;
    std::uint64_t offset = 0;
    while (offset < size) {
      auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kReadChunk, size - offset));
      ssize_t n = ::pread(file->get(), buf.data(), want, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // shrank or failed: never send a wrong body
      offset += static_cast<std::uint64_t>(n);
      text.clear();
      encoder.update(std::string_view(buf.data(), static_cast<std::size_t>(n)), text);
      if (offset == size) encoder.finish(text);
      if (!out.write(text)) return false;
    }
    return out.write(suffix);
  };
  return r;
}

}  // namespace abx::plugins::files
