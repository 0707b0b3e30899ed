// Incremental base64: the encoder turns file bytes into base64 text chunk by
// chunk (downloads, archives), the decoder turns the base64 text of an upload
// into bytes as it arrives. Both keep at most one partial group between
// calls, whatever the size of the whole; the block work is base64_codec's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::plugins::files {

/** The exact length of the padded base64 text of @p bytes input bytes. */
constexpr std::uint64_t base64Length(std::uint64_t bytes) { return (bytes + 2) / 3 * 4; }

/** Standard alphabet, padded, no line breaks. THREAD: one owner. */
class Base64StreamEncoder {
 public:
  /** Appends the base64 of @p bytes to @p out; up to 2 bytes wait for the next call. */
  void update(std::string_view bytes, std::string& out);
  /** Appends the last group (with padding). The encoder can then be reused. */
  void finish(std::string& out);

 private:
  unsigned char carry_[3] = {0, 0, 0};
  std::size_t carried_ = 0;
};

/**
 * Decodes standard base64 text given in pieces of any size. ASCII
 * whitespace is skipped (line-wrapped base64 arrives as "\n" escapes);
 * any other character outside the alphabet, '=' anywhere but in the last
 * group, or a length that is not a multiple of 4 is an error (ValueError,
 * "Invalid base64 content: ..."). Bits a padded last group does not use are
 * ignored, as by POCO, coreutils and Python. THREAD: one owner.
 */
class Base64StreamDecoder {
 public:
  /** Appends the decoded bytes of the complete groups seen so far to @p out. */
  sdk::Status update(std::string_view text, std::string& out);
  /** Checks the end of the text (padding). The decoder can then be reused. */
  sdk::Status finish(std::string& out);
  /** Base64 characters accepted so far (whitespace excluded). */
  std::uint64_t symbols() const { return symbols_; }

 private:
  sdk::Status takeOne(unsigned char c, unsigned char*& out);
  unsigned char group_[4] = {0, 0, 0, 0};  // six-bit values of a partial group
  std::size_t grouped_ = 0;                // characters in group_ ('=' included)
  std::uint64_t symbols_ = 0;
  int padding_ = 0;  // '=' seen; after the first only '=' may follow
};

}  // namespace abx::plugins::files
