#include "ws_frame.h"

namespace abx::plugins::terminal {
namespace {

constexpr unsigned kMaskBit = 0x80;

}  // namespace

void WsFrameReader::append(const char* data, std::size_t size) {
  if (offset_ > 0 && offset_ >= buffer_.size() / 2) {
    buffer_.erase(0, offset_);  // compact now and then, not on every frame
    offset_ = 0;
  }
  buffer_.append(data, size);
}

WsFrameReader::Status WsFrameReader::next(WsFrame& out) {
  const std::size_t available = buffer_.size() - offset_;
  const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + offset_);
  if (available < 2) return Status::incomplete;
  std::size_t header = 2;
  std::uint64_t length = p[1] & 0x7F;
  if (length == 126) {
    header += 2;
    if (available < header) return Status::incomplete;
    length = (std::uint64_t{p[2]} << 8) | p[3];
  } else if (length == 127) {
    header += 8;
    if (available < header) return Status::incomplete;
    length = 0;
    for (int i = 0; i < 8; ++i) length = (length << 8) | p[2 + i];
  }
  if (length > max_payload_) return Status::too_big;
  const bool masked = (p[1] & kMaskBit) != 0;
  const std::size_t key_at = header;
  if (masked) header += 4;
  if (available < header + length) return Status::incomplete;
  out.flags = p[0];
  out.payload.assign(buffer_.data() + offset_ + header, static_cast<std::size_t>(length));
  if (masked) {
    for (std::size_t i = 0; i < out.payload.size(); ++i)
      out.payload[i] = static_cast<char>(out.payload[i] ^ p[key_at + (i & 3)]);
  }
  offset_ += header + static_cast<std::size_t>(length);
  if (offset_ == buffer_.size()) {
    buffer_.clear();
    offset_ = 0;
  }
  return Status::frame;
}

std::string encodeFrame(int flags, std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 10);
  out.push_back(static_cast<char>(flags & 0xFF));
  const std::uint64_t n = payload.size();
  if (n < 126) {
    out.push_back(static_cast<char>(n));
  } else if (n <= 0xFFFF) {
    out.push_back(static_cast<char>(126));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(n & 0xFF));
  } else {
    out.push_back(static_cast<char>(127));
    for (int shift = 56; shift >= 0; shift -= 8)
      out.push_back(static_cast<char>((n >> shift) & 0xFF));
  }
  out.append(payload);
  return out;
}

std::string closePayload(std::uint16_t code, std::string_view reason) {
  std::string out;
  out.push_back(static_cast<char>(code >> 8));
  out.push_back(static_cast<char>(code & 0xFF));
  out.append(reason);
  return out;
}

}  // namespace abx::plugins::terminal
