#include "proc_net_tcp.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <tuple>

#include "proc_text.h"

namespace abx::plugins::system {
namespace {

// Bytes of one 8-digit hex word, least significant first: the order they
// have in memory on a little-endian host, which is network order.
std::optional<std::array<unsigned char, 4>> wordBytes(std::string_view hex) {
  auto value = parseUnsigned(hex, 16);
  if (hex.size() != 8 || !value) return std::nullopt;
  std::array<unsigned char, 4> bytes{};
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<unsigned char>((*value >> (8 * i)) & 0xFF);
  return bytes;
}

std::optional<int> pidFrom(std::string_view process) {
  auto at = process.find("pid=");
  if (at == std::string_view::npos) return std::nullopt;
  auto rest = process.substr(at + 4);
  auto end = rest.find_first_not_of("0123456789");
  auto value = parseUnsigned(rest.substr(0, end));
  if (!value || *value > 0x7FFFFFFF) return std::nullopt;
  return static_cast<int>(*value);
}

}  // namespace

std::optional<std::string> decodeIpv4Hex(std::string_view hex) {
  auto bytes = wordBytes(hex);
  if (!bytes) return std::nullopt;
  char text[INET_ADDRSTRLEN];
  if (!::inet_ntop(AF_INET, bytes->data(), text, sizeof text)) return std::nullopt;
  return std::string(text);
}

std::optional<std::string> decodeIpv6Hex(std::string_view hex) {
  if (hex.size() != 32) return std::nullopt;
  unsigned char address[16];
  for (int word = 0; word < 4; ++word) {
    auto bytes = wordBytes(hex.substr(static_cast<std::size_t>(word) * 8, 8));
    if (!bytes) return std::nullopt;
    std::copy(bytes->begin(), bytes->end(), address + word * 4);
  }
  char text[INET6_ADDRSTRLEN];
  if (!::inet_ntop(AF_INET6, address, text, sizeof text)) return std::nullopt;
  return std::string(text);
}

ProcNetTcp parseProcNetTcp(std::string_view text, std::string_view protocol) {
  ProcNetTcp out;
  auto lines = splitLines(text);
  for (std::size_t i = 1; i < lines.size(); ++i) {  // line 0 is the header
    auto fields = splitFields(lines[i]);
    if (fields.empty()) continue;
    ++out.rows;
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (fields.size() < 4 || fields[3] != "0A") continue;
    std::string_view local = fields[1];
    auto colon = local.rfind(':');
    if (colon == std::string_view::npos) continue;
    std::string_view port_hex = local.substr(colon + 1);
    auto port = parseUnsigned(port_hex, 16);
    if (port_hex.size() > 4 || !port) continue;
    std::string_view address_hex = local.substr(0, colon);
    auto address =
        address_hex.size() == 8 ? decodeIpv4Hex(address_hex) : decodeIpv6Hex(address_hex);
    if (!address) continue;
    Listener listener;
    listener.protocol = std::string(protocol);
    listener.address = std::move(*address);
    listener.port = static_cast<int>(*port);
    if (fields.size() >= 10) listener.inode = parseUnsigned(fields[9]).value_or(0);
    out.listeners.push_back(std::move(listener));
  }
  return out;
}

std::vector<Listener> parseSsListen(std::string_view text) {
  std::vector<Listener> out;
  auto lines = splitLines(text);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto fields = splitFields(lines[i]);
    // State Recv-Q Send-Q Local:Port Peer:Port [Process]
    if (fields.size() < 5 || fields[0] != "LISTEN") continue;
    std::string_view local = fields[3];
    auto colon = local.rfind(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    auto port = parseUnsigned(local.substr(colon + 1));
    if (!port || *port > 65535) continue;
    std::string_view address = local.substr(0, colon);
    Listener listener;
    listener.protocol = "tcp";
    if (address.size() >= 2 && address.front() == '[' && address.back() == ']') {
      address = address.substr(1, address.size() - 2);
      listener.protocol = "tcp6";
    } else if (address.find(':') != std::string_view::npos) {
      listener.protocol = "tcp6";
    }
    listener.address = std::string(address);
    listener.port = static_cast<int>(*port);
    for (std::size_t f = 5; f < fields.size() && !listener.pid; ++f)
      listener.pid = pidFrom(fields[f]);
    out.push_back(std::move(listener));
  }
  return out;
}

void sortListeners(std::vector<Listener>& listeners) {
  auto key = [](const Listener& l) {
    return std::tie(l.port, l.protocol, l.address, l.pid, l.inode);
  };
  std::sort(listeners.begin(), listeners.end(),
            [&](const Listener& a, const Listener& b) { return key(a) < key(b); });
  // Same socket address and owner twice (SO_REUSEPORT) says nothing new.
  auto same = [](const Listener& a, const Listener& b) {
    return a.port == b.port && a.protocol == b.protocol && a.address == b.address && a.pid == b.pid;
  };
  listeners.erase(std::unique(listeners.begin(), listeners.end(), same), listeners.end());
}

}  // namespace abx::plugins::system
