// /proc/net/tcp and /proc/net/tcp6: the listening sockets GET /ports reports.
// Addresses are printed by the kernel as the raw in-memory words of the
// address in host byte order (little-endian on every platform this server
// targets): IPv4 one 32-bit word, IPv6 four.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abx::plugins::system {

/** One listening TCP socket. */
struct Listener {
  std::string protocol; /**< "tcp" or "tcp6" */
  std::string address;  /**< "127.0.0.1", "::", "::ffff:10.0.0.1" */
  int port = 0;
  std::uint64_t inode = 0; /**< 0 when unknown */
  std::optional<int> pid;  /**< the owning process when it could be found */
};

struct ProcNetTcp {
  std::vector<Listener> listeners; /**< state 0A (LISTEN) rows, in file order */
  std::size_t rows = 0;            /**< data rows seen, listening or not, well-formed or not */
};

/** "0100007F" -> "127.0.0.1"; nullopt unless exactly 8 hex digits. */
std::optional<std::string> decodeIpv4Hex(std::string_view hex);
/** 32 hex digits (four little-endian words) -> "::1"; nullopt otherwise. */
std::optional<std::string> decodeIpv6Hex(std::string_view hex);

/**
 * Parses the text of /proc/net/tcp or tcp6 (header line first). Rows that
 * are malformed (too few fields, bad hex, an address of the wrong length)
 * are skipped. @p protocol is copied into each Listener.
 */
ProcNetTcp parseProcNetTcp(std::string_view text, std::string_view protocol);

/**
 * Parses `ss -tlnp` output (header line first): "LISTEN 0 128
 * 0.0.0.0:22 0.0.0.0:* users:(("sshd",pid=1,fd=3))". A bracketed or
 * colon-containing address is tcp6 ("[::]" -> "::"); pid from "pid=N".
 */
std::vector<Listener> parseSsListen(std::string_view text);

/** Sorted by port, protocol, address; exact duplicates removed. */
void sortListeners(std::vector<Listener>& listeners);

}  // namespace abx::plugins::system
