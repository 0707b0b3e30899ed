// /proc/net/tcp, /proc/net/tcp6 and `ss -tlnp` parsing on captured text:
// address decoding (IPv4 little-endian, IPv6 four words), LISTEN filtering,
// malformed rows, and finding a socket's owner through /proc/<pid>/fd.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "proc_net_tcp.h"
#include "socket_owners.h"

namespace abx::plugins::system {
namespace {

// Captured from a Debian 12 VM: one listener each on 127.0.0.1 and 0.0.0.0,
// a TIME_WAIT row (06) and an ESTABLISHED row (01) that must be skipped.
constexpr const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
    "timeout inode                                                     \n"
    "   0: 0100007F:8CAD 00000000:0000 0A 00000000:00000001 00:00000000 00000000     0        "
    "0 263059 2 000000003ff286e4 100 0 0 10 0                    \n"
    "   1: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        "
    "0 522 1 000000001f9f4e1f 100 0 0 10 0                       \n"
    "   2: 0100007F:D930 0100007F:9D03 06 00000000:00000000 03:00000000 00000000     0        "
    "0 0 3 00000000b4e453d0                                      \n"
    "  24: 0100007F:B668 0100007F:8CAD 01 00000000:00000000 00:00000000 00000000     0        "
    "0 263060 2 000000003e26a267 20 0 0 10 -1                    \n";

constexpr const char* kTcp6 =
    "  sl  local_address                         remote_address                        st "
    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000001000000:8A7F 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 263058 1 00000000511459ca 100 0 0 10 "
    "0\n"
    "   1: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 13579 1 0000000000000000 100 0 0 10 "
    "0\n"
    "   2: 0000000000000000FFFF00000100007F:0050 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 100 0 0 10 0\n"
    "   3: B80D0120000000000000000001000000:01BB 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 888 1 0000000000000000 100 0 0 10 0\n";

TEST(ProcNetTcp, DecodesIpv4LittleEndian) {
  EXPECT_EQ(decodeIpv4Hex("0100007F"), "127.0.0.1");
  EXPECT_EQ(decodeIpv4Hex("00000000"), "0.0.0.0");
  EXPECT_EQ(decodeIpv4Hex("0101A8C0"), "192.168.1.1");
  EXPECT_FALSE(decodeIpv4Hex("0100007"));
  EXPECT_FALSE(decodeIpv4Hex("0100007G"));
  EXPECT_FALSE(decodeIpv4Hex(""));
}

TEST(ProcNetTcp, DecodesIpv6AsFourLittleEndianWords) {
  EXPECT_EQ(decodeIpv6Hex("00000000000000000000000000000000"), "::");
  EXPECT_EQ(decodeIpv6Hex("00000000000000000000000001000000"), "::1");
  EXPECT_EQ(decodeIpv6Hex("0000000000000000FFFF00000100007F"), "::ffff:127.0.0.1");
  EXPECT_EQ(decodeIpv6Hex("B80D0120000000000000000001000000"), "2001:db8::1");
  EXPECT_EQ(decodeIpv6Hex("000080FE00000000FF005002FEB3C5A9"), "fe80::250:ff:a9c5:b3fe");
  EXPECT_FALSE(decodeIpv6Hex("0000000000000000000000000100000"));
  EXPECT_FALSE(decodeIpv6Hex("0000000000000000000000000100000Z"));
}

TEST(ProcNetTcp, KeepsOnlyListeningRowsWithPortAndInode) {
  auto parsed = parseProcNetTcp(kTcp, "tcp");
  EXPECT_EQ(parsed.rows, 4u);
  ASSERT_EQ(parsed.listeners.size(), 2u);
  EXPECT_EQ(parsed.listeners[0].protocol, "tcp");
  EXPECT_EQ(parsed.listeners[0].address, "127.0.0.1");
  EXPECT_EQ(parsed.listeners[0].port, 0x8CAD);
  EXPECT_EQ(parsed.listeners[0].inode, 263059u);
  EXPECT_FALSE(parsed.listeners[0].pid);
  EXPECT_EQ(parsed.listeners[1].address, "0.0.0.0");
  EXPECT_EQ(parsed.listeners[1].port, 2024);
  EXPECT_EQ(parsed.listeners[1].inode, 522u);
}

TEST(ProcNetTcp, ParsesIpv6Rows) {
  auto parsed = parseProcNetTcp(kTcp6, "tcp6");
  ASSERT_EQ(parsed.listeners.size(), 4u);
  EXPECT_EQ(parsed.listeners[0].address, "::1");
  EXPECT_EQ(parsed.listeners[0].port, 0x8A7F);
  EXPECT_EQ(parsed.listeners[0].protocol, "tcp6");
  EXPECT_EQ(parsed.listeners[1].address, "::");
  EXPECT_EQ(parsed.listeners[1].port, 22);
  EXPECT_EQ(parsed.listeners[2].address, "::ffff:127.0.0.1");
  EXPECT_EQ(parsed.listeners[2].port, 80);
  EXPECT_EQ(parsed.listeners[3].address, "2001:db8::1");
  EXPECT_EQ(parsed.listeners[3].port, 443);
  EXPECT_EQ(parsed.listeners[3].inode, 888u);
}

TEST(ProcNetTcp, SkipsMalformedRows) {
  auto parsed = parseProcNetTcp(
      "header\n"
      "   0: 0100007F 00000000:0000 0A\n"                       // no port
      "   1: 0100007F:XYZ0 00000000:0000 0A 0 0 0 0 0 1\n"      // bad port hex
      "   2: 0100007F:11223 00000000:0000 0A 0 0 0 0 0 1\n"     // port too long
      "   3: 01007F:1F90 00000000:0000 0A 0 0 0 0 0 1\n"        // address of 6 digits
      "   4: 0100007F:1F90 00000000:0000\n"                     // no state
      "   5: 0100007F:1F90 00000000:0000 0A\n"                  // no inode: still a listener
      "   6: 0100007F:1F91 00000000:0000 0A 0 0 0 0 0 inode\n"  // junk inode
      "\n"
      "garbage\n",
      "tcp");
  EXPECT_EQ(parsed.rows, 8u);
  ASSERT_EQ(parsed.listeners.size(), 2u);
  EXPECT_EQ(parsed.listeners[0].port, 8080);
  EXPECT_EQ(parsed.listeners[0].inode, 0u);
  EXPECT_EQ(parsed.listeners[1].port, 8081);
  EXPECT_EQ(parsed.listeners[1].inode, 0u);
}

TEST(ProcNetTcp, HeaderOnlyOrEmptyHasNoRows) {
  EXPECT_EQ(parseProcNetTcp("", "tcp").rows, 0u);
  EXPECT_EQ(parseProcNetTcp("  sl  local_address rem_address   st tx_queue rx_queue\n", "tcp").rows,
            0u);
}

TEST(SsOutput, ParsesListenersWithProcesses) {
  auto listeners = parseSsListen(
      "State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n"
      "LISTEN 0      128          0.0.0.0:2024      0.0.0.0:*          \n"
      "LISTEN 0      4096       127.0.0.1:8080      0.0.0.0:*    "
      "users:((\"python3\",pid=4242,fd=3))\n"
      "LISTEN 0      511           [::]:443          [::]:*    "
      "users:((\"nginx\",pid=77,fd=6),(\"nginx\",pid=78,fd=6))\n"
      "LISTEN 0      128              *:22              *:*\n"
      "LISTEN 0      128           :::8000           :::*\n"
      "ESTAB  0      0        127.0.0.1:1 127.0.0.1:2\n"
      "LISTEN 0      128          0.0.0.0:notaport  0.0.0.0:*\n"
      "LISTEN broken\n");
  ASSERT_EQ(listeners.size(), 5u);
  EXPECT_EQ(listeners[0].address, "0.0.0.0");
  EXPECT_EQ(listeners[0].port, 2024);
  EXPECT_EQ(listeners[0].protocol, "tcp");
  EXPECT_FALSE(listeners[0].pid);
  EXPECT_EQ(listeners[1].pid, 4242);
  EXPECT_EQ(listeners[2].address, "::");
  EXPECT_EQ(listeners[2].protocol, "tcp6");
  EXPECT_EQ(listeners[2].pid, 77);
  EXPECT_EQ(listeners[3].address, "*");
  EXPECT_EQ(listeners[3].port, 22);
  EXPECT_EQ(listeners[4].address, "::");
  EXPECT_EQ(listeners[4].protocol, "tcp6");
  EXPECT_EQ(listeners[4].port, 8000);
}

TEST(Listeners, SortByPortThenProtocolAndDropDuplicates) {
  std::vector<Listener> l = {{"tcp6", "::", 80, 3, 5},
                             {"tcp", "0.0.0.0", 80, 1, 5},
                             {"tcp", "127.0.0.1", 22, 2, std::nullopt},
                             {"tcp", "0.0.0.0", 80, 4, 5}};  // SO_REUSEPORT twin
  sortListeners(l);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].port, 22);
  EXPECT_EQ(l[1].protocol, "tcp");
  EXPECT_EQ(l[2].protocol, "tcp6");
}

TEST(SocketOwners, ReadsSocketLinks) {
  EXPECT_EQ(socketInode("socket:[263059]"), 263059u);
  EXPECT_FALSE(socketInode("pipe:[263059]"));
  EXPECT_FALSE(socketInode("socket:[]"));
  EXPECT_FALSE(socketInode("socket:[12"));
  EXPECT_FALSE(socketInode("/dev/null"));
}

TEST(SocketOwners, ScansAFakeProcTree) {
  char tmpl[] = "/tmp/abx-proc-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::filesystem::path root(tmpl);
  auto link = [&](int pid, int fd, const std::string& target) {
    auto dir = root / std::to_string(pid) / "fd";
    std::filesystem::create_directories(dir);
    std::filesystem::create_symlink(target, dir / std::to_string(fd));
  };
  link(300, 4, "socket:[111]");
  link(20, 0, "/dev/null");
  link(20, 7, "socket:[222]");
  link(21, 3, "socket:[111]");  // a forked child shares it: the lowest pid wins
  std::filesystem::create_directories(root / "self" / "fd");
  std::filesystem::create_directories(root / "4000");  // no fd dir (unreadable)

  auto owners = findSocketOwners({0, 111, 222, 333}, root.string());
  EXPECT_EQ(owners.size(), 2u);
  EXPECT_EQ(owners[111], 21);
  EXPECT_EQ(owners[222], 20);
  EXPECT_TRUE(findSocketOwners({0}, root.string()).empty());
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace abx::plugins::system
