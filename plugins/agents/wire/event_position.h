// Event ids of a session's SSE stream and the resume position a client
// sends back (Last-Event-ID or ?after=): "evt_00000042" or "42". One reader
// and one writer, so an id the server wrote always reads back as its number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace abx::plugins::agents {

/** The event id of sequence number @p seq: "evt_" and at least 8 digits. */
std::string eventIdText(std::uint64_t seq);

/**
 * The sequence number in @p text: decimal digits only, optionally after
 * "evt_", that fit 64 bits. nullopt for anything else (a sign, blanks,
 * trailing text, overflow), which the stream treats as no position.
 */
std::optional<std::uint64_t> parseEventPosition(std::string_view text);

}  // namespace abx::plugins::agents
