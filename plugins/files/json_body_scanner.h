// A push parser for one JSON object arriving in pieces (an upload body):
// the top-level members are recognised as the bytes come in, small string
// members are kept, and the members the caller asks for are handed over in
// pieces as they are unescaped, so a 1 GB "content_base64" never sits in
// memory. Nested values are skipped, their brackets and strings checked.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"
#include "abx/sdk/status.h"

namespace abx::plugins::files {

class JsonBodyScanner {
 public:
  /**
   * Receives the unescaped bytes of a streamed member, in order; an empty
   * piece with @p done marks its end. Returning a failure stops the scan
   * with that Status.
   */
  using ChunkFn =
      std::function<sdk::Status(std::string_view key, std::string_view bytes, bool done)>;

  /**
   * @param streamed   top-level keys whose string values go to @p on_chunk
   * @param max_kept   the longest other string member kept (longer: error)
   */
  JsonBodyScanner(std::vector<std::string> streamed, ChunkFn on_chunk,
                  std::size_t max_kept = 64u << 10);

  /** Scans the next piece of the body. After a failure every call fails. */
  sdk::Status feed(std::string_view bytes);
  /** The body ended: fails unless exactly one complete object was seen. */
  sdk::Status finish();

  /** Top-level string members that were kept (not streamed), unescaped. */
  const std::map<std::string, std::string, std::less<>>& strings() const { return strings_; }
  /** The kind of every top-level member seen, streamed ones included. */
  const std::map<std::string, sdk::JsonKind, std::less<>>& kinds() const { return kinds_; }
  /** The body held a complete object (or was empty: an empty object). */
  bool complete() const { return state_ == State::done; }

 private:
  enum class State {
    start,         // before the top-level '{'
    key_or_end,    // after '{': a key or '}'
    key,           // after ',': a key
    colon,         // after a key
    value,         // after ':'
    comma_or_end,  // after a member's value
    done,          // after the top-level '}'
  };
  enum class Str { none, key, kept, streamed, skipped };

  sdk::Status fail(std::string why);
  sdk::Status step(char c);
  sdk::Status stringChar(std::string_view bytes, std::size_t& i);
  sdk::Status escapeChar(char c);
  sdk::Status put(std::string_view piece);
  sdk::Status putCodepoint(unsigned cp);
  sdk::Status endString();
  sdk::Status nestedChar(char c);
  sdk::Status scalarChar(char c, bool& consumed);
  sdk::Status endScalar();
  sdk::Status memberDone();

  std::vector<std::string> streamed_;
  ChunkFn on_chunk_;
  std::size_t max_kept_;
  State state_ = State::start;
  sdk::Status error_;
  bool seen_any_ = false;

  // The string being read: where its bytes go.
  Str str_ = Str::none;
  std::string buf_;  // key or kept value; pending bytes of a streamed one
  std::string key_;  // the current member's key
  int escape_ = 0;   // 0 none, 1 after '\', 2..5 reading \uXXXX digits
  unsigned hex_ = 0;
  unsigned high_surrogate_ = 0;  // a \uD800-\uDBFF waiting for its low half

  // A nested object/array being skipped, or a bare scalar being read.
  std::vector<char> nest_;  // closing brackets expected
  bool in_nested_string_ = false;
  bool nested_escape_ = false;
  std::string scalar_;

  std::map<std::string, std::string, std::less<>> strings_;
  std::map<std::string, sdk::JsonKind, std::less<>> kinds_;
};

}  // namespace abx::plugins::files
