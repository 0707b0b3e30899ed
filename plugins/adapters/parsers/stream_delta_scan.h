// scanStreamDelta(): reads the one stream-json line shape a flooding CLI
// prints most — a content_block_delta carrying a text or thinking delta —
// without building a POCO object tree. A flood of these is the parser's hot
// path (POCO manages ~230 k lines/s of CPU; this several times that). Any
// other shape, or anything unusual inside it, returns nullopt and takes the
// full parse.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace abx::plugins::adapters {

struct StreamDelta {
  bool thinking = false; /**< thinking_delta; else text_delta */
  std::string text;      /**< the decoded delta */
};

/**
 * Matches `{"type":"stream_event",...,"event":{"type":"content_block_delta",
 * "index":N,"delta":{"type":"text_delta","text":"..."}}...}` (compact, in
 * this key order, as claude and qwen print it); thinking_delta likewise with
 * "thinking". The other members (the "..."s) must be scalars with other keys
 * and strings valid UTF-8, so whatever this accepts the full JSON parse reads
 * the same way.
 */
std::optional<StreamDelta> scanStreamDelta(std::string_view line);

}  // namespace abx::plugins::adapters
