// Utf8Chunker: turns the PTY's byte stream into valid UTF-8 text for JSON
// frames. A multi-byte character split across two reads is never split
// across two frames (its incomplete tail waits for the next read), and bytes
// that cannot be UTF-8 become U+FFFD, one per maximal ill-formed subpart
// (Unicode §3.9, the W3C/WHATWG decoder's rule).
#pragma once

#include <string>
#include <string_view>

namespace abx::plugins::terminal {

/** THREAD: one owner. */
class Utf8Chunker {
 public:
  /**
   * @return the valid text in the bytes seen so far; an incomplete character
   * at the end of @p bytes is held back (at most 3 bytes).
   */
  std::string feed(std::string_view bytes);
  /** End of stream: a held-back incomplete character becomes U+FFFD. */
  std::string flush();
  /** Bytes held back from the last feed(). */
  std::size_t pending() const { return carry_.size(); }

 private:
  std::string carry_;
};

/** Valid UTF-8 for any bytes (the same rule, no carry): for one-shot text. */
std::string sanitizeUtf8(std::string_view bytes);

}  // namespace abx::plugins::terminal
