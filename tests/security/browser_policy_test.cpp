// Attack (issues 14 and 15): the browser's URL policy must hold for every
// request Chromium makes, not only the URL given to navigate — redirects,
// subresources, fetch() from a page script, form posts, WebSockets,
// navigations started by evaluate or click — and block_private_networks must
// judge the address actually connected to (WebRTC may not send UDP around
// it). Chromium must be driven over a pipe: no DevTools listener on any
// socket. Real Chromium behind the real server; pages served by the test on
// 127.0.0.1; a refused request must never reach the page server.
#include <Poco/Net/DatagramSocket.h>
#include <Poco/Net/NetException.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "abx/sdk/json.h"
#include "plugins/browser/page_server.h"
#include "security/security_support.h"

namespace abx::testing::security {
namespace {

using ::testing::HasSubstr;

/** url_allow: 127.0.0.1 only (so "localhost" is a foreign origin); url_deny: any /secret path. */
const std::string kPolicy =
    "endpoints:\n  browser_navigate:\n    params:\n"
    "      url_allow: [\"127.0.0.1\"]\n      url_deny: [\"*/secret*\"]\n";

ServerOptions browserServer(const std::string& policy = kPolicy) {
  return allPlugins(policy, {{"ABX_SERVER_ENABLED_GROUPS", "browser"}});
}

HttpResult navigate(const ServerProcess& s, const std::string& url) {
  return http(s.port(), "POST", "/browser/navigate", "{\"url\":\"" + url + "\"}");
}

/** The JSON result of a page script (promises awaited). */
std::string evaluate(const ServerProcess& s, const std::string& script) {
  auto r =
      http(s.port(), "POST", "/browser/evaluate", "{\"script\":" + sdk::jsonQuote(script) + "}");
  EXPECT_EQ(r.status, 200) << script << " " << r.body;
  return r.body;
}

/** Waits (bounded) until the page left @p url (a navigation committed or failed). */
void waitUntilPageLeaves(const ServerProcess& s, const std::string& url) {
  for (int i = 0; i < 50; ++i) {
    auto r = http(s.port(), "POST", "/browser/evaluate",
                  R"({"script":"document.readyState + ' ' + location.href"})");
    if (r.status == 200 && r.body.find(url) == std::string::npos &&
        r.body.find("complete") != std::string::npos)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

TEST(SecurityBrowserRequests, RedirectToADeniedPageIsRefused) {
  PageServer pages({{"/to-foreign", {302, {}, "http://localhost:{port}/landing"}},
                    {"/to-secret", {302, {}, "http://127.0.0.1:{port}/secret"}},
                    {"/to-fine", {302, {}, "http://127.0.0.1:{port}/fine"}},
                    {"/fine", {200, "<title>fine</title>", {}}}});
  ServerProcess server(browserServer());
  auto foreign = navigate(server, pages.url("/to-foreign"));
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_THAT(foreign.body, HasSubstr("url_not_allowed"));
  EXPECT_THAT(foreign.body, HasSubstr("\"rule\":\"url_allow\""));
  auto secret = navigate(server, pages.url("/to-secret"));
  EXPECT_EQ(secret.status, 403) << secret.body;
  EXPECT_THAT(secret.body, HasSubstr("\"rule\":\"url_deny */secret*\""));
  EXPECT_FALSE(pages.reached("/landing")) << ::testing::PrintToString(pages.requests());
  EXPECT_FALSE(pages.reached("/secret")) << ::testing::PrintToString(pages.requests());
  // An allowed redirect is followed.
  auto fine = navigate(server, pages.url("/to-fine"));
  EXPECT_EQ(fine.status, 200) << fine.body;
  EXPECT_THAT(fine.body, HasSubstr("\"title\":\"fine\""));
}

TEST(SecurityBrowserRequests, SubresourcesOfADeniedOriginAreNotFetched) {
  PageServer pages({{"/page",
                     {200,
                      "<title>sub</title><img src='http://localhost:{port}/foreign.png'>"
                      "<script src='http://localhost:{port}/foreign.js'></script>"
                      "<img src='/secret.png'><img src='/allowed.png'>"
                      "<link rel='stylesheet' href='http://localhost:{port}/foreign.css'>",
                      {}}}});
  ServerProcess server(browserServer());
  auto page = navigate(server, pages.url("/page"));
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_TRUE(pages.reached("/allowed.png"));  // the control: subresources do load
  EXPECT_FALSE(pages.reached("/foreign.")) << ::testing::PrintToString(pages.requests());
  EXPECT_FALSE(pages.reached("/secret.png")) << ::testing::PrintToString(pages.requests());
}

TEST(SecurityBrowserRequests, ScriptFetchAndXhrToADeniedOriginFail) {
  PageServer pages({{"/app", {200, "<title>app</title>", {}}}, {"/ok", {200, "ok", {}}}});
  ServerProcess server(browserServer());
  ASSERT_EQ(navigate(server, pages.url("/app")).status, 200);
  const std::string port = std::to_string(pages.port());
  auto settle = [](const std::string& call) {
    return call + ".then(r => 'loaded ' + r.status, e => 'failed')";
  };
  EXPECT_THAT(evaluate(server, settle("fetch('/ok')")), HasSubstr("loaded 200"));
  EXPECT_THAT(evaluate(server, settle("fetch('http://localhost:" + port + "/api')")),
              HasSubstr("failed"));
  EXPECT_THAT(evaluate(server, settle("fetch('/secret-api', {method: 'POST', body: 'x'})")),
              HasSubstr("failed"));
  EXPECT_THAT(evaluate(server,
                       "new Promise(done => { const x = new XMLHttpRequest();"
                       " x.open('GET', 'http://localhost:" +
                           port +
                           "/xhr'); x.onload = () => done('loaded');"
                           " x.onerror = () => done('failed'); x.send(); })"),
              HasSubstr("failed"));
  // navigator.sendBeacon and a no-cors fetch leave no result to read: only the log tells.
  evaluate(server, "navigator.sendBeacon('http://localhost:" + port + "/beacon', 'x')");
  evaluate(server, settle("fetch('http://localhost:" + port + "/nocors', {mode: 'no-cors'})"));
  for (const char* path : {"/api", "/secret-api", "/xhr", "/beacon", "/nocors"})
    EXPECT_FALSE(pages.reached(path)) << path << ::testing::PrintToString(pages.requests());
}

TEST(SecurityBrowserRequests, FormPostsAndClickedLinksToDeniedUrlsAreRefused) {
  PageServer pages({{"/form",
                     {200,
                      "<title>form</title>"
                      "<form method='post' action='http://localhost:{port}/submit'>"
                      "<input name='q' value='x'><button id='foreign'>go</button></form>"
                      "<form method='post' action='/secret-submit'>"
                      "<input name='q' value='x'><button id='secret'>go</button></form>"
                      "<a id='link' href='http://localhost:{port}/linked'>link</a>",
                      {}}}});
  ServerProcess server(browserServer());
  for (const char* button : {"#foreign", "#secret", "#link"}) {
    ASSERT_EQ(navigate(server, pages.url("/form")).status, 200);
    auto click = http(server.port(), "POST", "/browser/click",
                      std::string("{\"selector\":\"") + button + "\"}");
    EXPECT_EQ(click.status, 200) << click.body;
    waitUntilPageLeaves(server, pages.url("/form"));
  }
  EXPECT_FALSE(pages.reached("/submit")) << ::testing::PrintToString(pages.requests());
  EXPECT_FALSE(pages.reached("/secret-submit")) << ::testing::PrintToString(pages.requests());
  EXPECT_FALSE(pages.reached("/linked")) << ::testing::PrintToString(pages.requests());
}

TEST(SecurityBrowserRequests, WebSocketToADeniedOriginIsNotOpened) {
  PageServer pages({{"/ws", {200, "<title>ws</title>", {}}}});
  ServerProcess server(browserServer());
  ASSERT_EQ(navigate(server, pages.url("/ws")).status, 200);
  const auto result = evaluate(
      server, "new Promise(done => { const w = new WebSocket('ws://localhost:" +
                  std::to_string(pages.port()) +
                  "/socket'); w.onopen = () => done('open'); w.onerror = () => done('error'); })");
  EXPECT_THAT(result, HasSubstr("error"));
  EXPECT_FALSE(pages.reached("/socket")) << ::testing::PrintToString(pages.requests());
}

TEST(SecurityBrowserRequests, NavigationsStartedByEvaluateAreRefused) {
  PageServer pages({{"/start", {200, "<title>start</title>", {}}}});
  ServerProcess server(browserServer());
  ASSERT_EQ(navigate(server, pages.url("/start")).status, 200);
  evaluate(server,
           "location.href = 'http://localhost:" + std::to_string(pages.port()) + "/moved'; 1");
  waitUntilPageLeaves(server, pages.url("/start"));
  ASSERT_EQ(navigate(server, pages.url("/start")).status, 200);
  evaluate(server, "window.open('http://localhost:" + std::to_string(pages.port()) + "/popup'); 1");
  evaluate(server, "new Promise(r => setTimeout(r, 500))");
  EXPECT_FALSE(pages.reached("/moved")) << ::testing::PrintToString(pages.requests());
  EXPECT_FALSE(pages.reached("/popup")) << ::testing::PrintToString(pages.requests());
  // Chromium's own pages are no way around the policy either.
  for (const char* url : {"file:///etc/passwd", "chrome://version", "view-source:http://x/",
                          "data:text/html,hi", "blob:http://x/y", "javascript:1"}) {
    auto r = navigate(server, url);
    EXPECT_EQ(r.status, 400) << url << " " << r.body;
  }
  // Nor a page script that asks for a local file.
  ASSERT_EQ(navigate(server, pages.url("/start")).status, 200);
  EXPECT_THAT(evaluate(server, "fetch('file:///etc/passwd').then(r => r.text(), e => 'failed')"),
              HasSubstr("failed"));
  evaluate(server, "location.href = 'file:///etc/passwd'; 1");
  evaluate(server, "new Promise(r => setTimeout(r, 500))");  // Chromium stays on the page
  auto text = http(server.port(), "GET", "/browser/content?type=text");
  EXPECT_THAT(text.body, ::testing::Not(HasSubstr("root:")));
  EXPECT_THAT(text.body, ::testing::Not(HasSubstr("\"url\":\"file:")));
}

TEST(SecurityBrowserPrivateNetworks, NamesThatResolveToLoopbackAreRefused) {
  PageServer pages({{"/p", {200, "<title>private</title>", {}}}});
  ServerProcess server(browserServer(
      "endpoints:\n  browser_navigate:\n    params: {block_private_networks: true}\n"));
  const std::string port = std::to_string(pages.port());
  for (const std::string host : {"localhost.", "LOCALHOST", "127.1", "0", "[::ffff:7f00:1]"}) {
    auto r = navigate(server, "http://" + host + ":" + port + "/p1");
    EXPECT_EQ(r.status, 403) << host << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr("\"rule\":\"block_private_networks\"")) << host;
  }
  ASSERT_EQ(navigate(server, "about:blank").status, 200);
  evaluate(server, "location.href = 'http://localhost.:" + port + "/p2'; 1");
  waitUntilPageLeaves(server, "about:blank");
  ASSERT_EQ(navigate(server, "about:blank").status, 200);
  EXPECT_THAT(evaluate(server, "fetch('http://localhost:" + port +
                                   "/p3').then(() => 'loaded', () => 'failed')"),
              HasSubstr("failed"));
  EXPECT_FALSE(pages.reached("/p")) << ::testing::PrintToString(pages.requests());
}

TEST(SecurityBrowserPrivateNetworks, WebRtcSendsNoUdpAroundTheProxy) {
  // A UDP socket on 127.0.0.1 stands for a STUN server on a private address.
  Poco::Net::DatagramSocket stun(Poco::Net::SocketAddress("127.0.0.1", 0));
  stun.setReceiveTimeout(Poco::Timespan(0, 200000));
  ServerProcess server(browserServer(
      "endpoints:\n  browser_navigate:\n    params: {block_private_networks: true}\n"));
  ASSERT_EQ(navigate(server, "about:blank").status, 200);
  evaluate(server,
           "(async () => { const pc = new RTCPeerConnection({iceServers: [{urls: "
           "'stun:127.0.0.1:" +
               std::to_string(stun.address().port()) +
               "'}]}); pc.createDataChannel('x');"
               " await pc.setLocalDescription(await pc.createOffer());"
               " await new Promise(r => setTimeout(r, 2000)); return 1; })()");
  char buffer[512];
  Poco::Net::SocketAddress from;
  int received = 0;
  try {
    received = stun.receiveFrom(buffer, sizeof buffer, from);
  } catch (const Poco::TimeoutException&) {
  }
  EXPECT_EQ(received, 0) << "a STUN packet reached 127.0.0.1 outside the proxy";
}

/** Socket inodes open in the processes of @p group (a process group id). */
std::set<std::string> socketInodesOfGroup(int group) {
  std::set<std::string> inodes;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    if (::getpgid(std::stoi(name)) != group) continue;
    std::error_code ec;
    for (const auto& fd : std::filesystem::directory_iterator(entry.path() / "fd", ec)) {
      const auto target = std::filesystem::read_symlink(fd.path(), ec).string();
      if (target.starts_with("socket:[")) inodes.insert(target.substr(8, target.size() - 9));
    }
  }
  return inodes;
}

/** Inodes of TCP sockets in state LISTEN (0A) from /proc/net/tcp and tcp6. */
std::set<std::string> listeningInodes() {
  std::set<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      if (state == "0A") inodes.insert(inode);
    }
  }
  return inodes;
}

TEST(SecurityBrowserDevTools, ChromiumHasNoDevToolsListener) {
  PageServer pages({{"/p", {200, "<title>p</title>", {}}}});
  ServerProcess server(browserServer(""));
  ASSERT_EQ(navigate(server, pages.url("/p")).status, 200);
  // Chromium is the server's child whose command line says so; its group is its pid.
  int chromium = -1;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (::getpgid(std::stoi(name)) == std::stoi(name) &&
        text.find("abx-chromium-") != std::string::npos &&
        text.find("--user-data-dir") != std::string::npos) {
      std::ifstream stat(entry.path() / "stat");
      std::string s((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      std::istringstream rest(s.substr(s.rfind(')') + 2));
      char state;
      int ppid;
      rest >> state >> ppid;
      if (ppid != server.pid()) continue;
      chromium = std::stoi(name);
      EXPECT_THAT(text, ::testing::Not(HasSubstr("--remote-debugging-port")));
      EXPECT_THAT(text, HasSubstr("--remote-debugging-pipe"));
    }
  }
  ASSERT_GT(chromium, 0) << "no Chromium child of the server";
  const auto sockets = socketInodesOfGroup(chromium);
  const auto listening = listeningInodes();
  std::vector<std::string> listeners;
  for (const auto& inode : sockets)
    if (listening.count(inode)) listeners.push_back(inode);
  EXPECT_THAT(listeners, ::testing::IsEmpty()) << "Chromium listens on TCP";
}

}  // namespace
}  // namespace abx::testing::security
