// Integration (label browser): the browser plugin in the real server driving
// real headless Chromium. The test serves a small page on 127.0.0.1 and
// goes through every route: navigate (title, status), content html|text, a
// click that changes the DOM, typing into an input, evaluate, a console
// message (read-and-clear), a PNG screenshot of the requested size, a valid
// PDF; the URL policy; Chromium restarted after it was killed; and with
// chromium hidden from PATH, 503 on every route.
#include <Poco/Base64Decoder.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/ServerSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "plugins/browser/page_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

const std::string kManifest =
    "plugins:\n  - name: browser\n    file: abx_browser.so\n    id: abx.browser\n";

const std::string kPage = R"HTML(<!doctype html>
<html><head><title>Browser Test Page</title></head>
<body><h1 id="heading">Hello from the test</h1>
<button id="btn" onclick="document.getElementById('heading').textContent = 'Clicked!'; console.log('button clicked', 7)">Press</button>
<input id="name" type="text">
<script>console.warn('page loaded');</script>
</body></html>)HTML";

/** The pages, served by the test itself on 127.0.0.1. */
std::map<std::string, PageReply> pages() {
  return {{"/index.html", {200, kPage, {}}}, {"/missing", {404, "<title>Nope</title>", {}}}};
}

ServerOptions options(const std::string& policy = {}) {
  ServerOptions o;
  o.manifest = kManifest;
  o.env["ABX_SERVER_ENABLED_GROUPS"] = "browser";
  if (!policy.empty()) {
    o.files["policy.yaml"] = policy;
    o.args = {"--policy", "{dir}/policy.yaml"};
  }
  return o;
}

Poco::JSON::Object::Ptr object(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
}

std::string decode(const std::string& base64) {
  std::istringstream in(base64);
  Poco::Base64Decoder decoder(in);
  return std::string((std::istreambuf_iterator<char>(decoder)), std::istreambuf_iterator<char>());
}

std::uint32_t bigEndian(const std::string& bytes, std::size_t at) {
  return (std::uint32_t(static_cast<unsigned char>(bytes[at])) << 24) |
         (std::uint32_t(static_cast<unsigned char>(bytes[at + 1])) << 16) |
         (std::uint32_t(static_cast<unsigned char>(bytes[at + 2])) << 8) |
         std::uint32_t(static_cast<unsigned char>(bytes[at + 3]));
}

HttpResult post(const ServerProcess& s, const std::string& target, const std::string& body) {
  return http(s.port(), "POST", target, body);
}

/**
 * Pids of the Chromiums the server started: its children that lead their
 * own process group. Chromium's crashpad handlers detach with a double fork
 * and so are the server's children too (it adopts orphans), not leaders.
 */
std::vector<int> chromiumPids(int server_pid) {
  std::vector<int> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(text.substr(paren + 1));
    char state;
    int ppid, pgrp;
    rest >> state >> ppid >> pgrp;
    if (ppid == server_pid && state != 'Z' && pgrp == std::stoi(name))
      out.push_back(std::stoi(name));
  }
  return out;
}

TEST(Browser, OffUnlessTurnedOn) {
  ServerOptions o;
  o.manifest = kManifest;
  ServerProcess server(o);
  auto r = post(server, "/browser/navigate", R"J({"url":"about:blank"})J");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr("default:opt-in:browser"));
}

TEST(Browser, DrivesARealPage) {
  PageServer page(pages());
  ServerProcess server(options());
  // Lazy: nothing runs before the first browser request.
  EXPECT_TRUE(chromiumPids(server.pid()).empty());

  auto nav = post(server, "/browser/navigate", "{\"url\":\"" + page.url() + "\"}");
  ASSERT_EQ(nav.status, 200) << nav.body;
  auto n = object(nav.body);
  EXPECT_EQ(n->getValue<std::string>("title"), "Browser Test Page");
  EXPECT_EQ(n->getValue<std::string>("url"), page.url());
  EXPECT_EQ(n->getValue<int>("status"), 200);
  EXPECT_EQ(chromiumPids(server.pid()).size(), 1u);

  auto text = object(http(server.port(), "GET", "/browser/content?type=text").body);
  EXPECT_THAT(text->getValue<std::string>("content"), HasSubstr("Hello from the test"));
  EXPECT_EQ(text->getValue<std::string>("title"), "Browser Test Page");
  auto html = object(http(server.port(), "GET", "/browser/content").body);
  EXPECT_THAT(html->getValue<std::string>("content"), HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html->getValue<std::string>("content"), HasSubstr("<button id=\"btn\""));
  EXPECT_EQ(http(server.port(), "GET", "/browser/content?type=pdf").status, 400);

  // A click that changes the DOM.
  auto click = post(server, "/browser/click", R"J({"selector":"#btn"})J");
  ASSERT_EQ(click.status, 200) << click.body;
  EXPECT_EQ(click.body, R"J({"clicked":true,"selector":"#btn"})J");
  auto after = object(http(server.port(), "GET", "/browser/content?type=text").body);
  EXPECT_THAT(after->getValue<std::string>("content"), HasSubstr("Clicked!"));

  // Typing into an input, read back through evaluate.
  auto typed = post(server, "/browser/type", R"J({"selector":"#name","text":"Ada Lovelace"})J");
  ASSERT_EQ(typed.status, 200) << typed.body;
  EXPECT_EQ(typed.body, R"J({"typed":true,"selector":"#name","text":"Ada Lovelace"})J");
  auto value =
      post(server, "/browser/evaluate", R"J({"script":"document.querySelector('#name').value"})J");
  EXPECT_EQ(value.body, R"J({"result":"Ada Lovelace"})J");
  auto math = post(server, "/browser/evaluate", R"J({"script":"({a: 6 * 7, b: [1, 'x']})"})J");
  EXPECT_EQ(object(math.body)->getObject("result")->getValue<int>("a"), 42);
  // The value as Chromium wrote it: keys in the script's order, not sorted.
  auto ordered = post(server, "/browser/evaluate",
                      R"J({"script":"({zeta: 2.5, alpha: [true, null, 'x/y'], mid: {}})"})J");
  EXPECT_EQ(ordered.body, R"J({"result":{"zeta":2.5,"alpha":[true,null,"x/y"],"mid":{}}})J");
  // What JSON cannot hold comes as Chromium's text for it.
  EXPECT_EQ(post(server, "/browser/evaluate", R"J({"script":"-Infinity"})J").body,
            R"J({"result":"-Infinity"})J");
  EXPECT_EQ(post(server, "/browser/evaluate", R"J({"script":"10n ** 20n"})J").body,
            R"J({"result":"100000000000000000000n"})J");
  auto promise = post(server, "/browser/evaluate", R"J({"script":"Promise.resolve(5)"})J");
  EXPECT_EQ(promise.body, R"J({"result":5})J");
  auto thrown = post(server, "/browser/evaluate", R"J({"script":"throw new Error('boom')"})J");
  EXPECT_EQ(thrown.status, 400);
  EXPECT_THAT(thrown.body, HasSubstr("boom"));

  // Console: the page's warning and the click's log, then nothing.
  auto console = object(http(server.port(), "GET", "/browser/console").body);
  auto logs = console->getArray("logs");
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < logs->size(); ++i)
    texts.push_back(logs->getObject(static_cast<unsigned>(i))->getValue<std::string>("text"));
  EXPECT_THAT(texts, ::testing::Contains("page loaded"));
  EXPECT_THAT(texts, ::testing::Contains("button clicked 7"));
  EXPECT_GT(logs->getObject(0)->getValue<double>("timestamp"), 1.6e9);
  EXPECT_EQ(http(server.port(), "GET", "/browser/console").body, R"J({"logs":[]})J");

  // A PNG of the requested size.
  auto shot = post(server, "/browser/screenshot", R"J({"width":640,"height":360})J");
  ASSERT_EQ(shot.status, 200) << shot.body.substr(0, 200);
  auto s = object(shot.body);
  EXPECT_EQ(s->getValue<int>("width"), 640);
  EXPECT_EQ(s->getValue<int>("height"), 360);
  const auto png = decode(s->getValue<std::string>("image_base64"));
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(bigEndian(png, 16), 640u);
  EXPECT_EQ(bigEndian(png, 20), 360u);

  // A PDF.
  auto pdf = post(server, "/browser/pdf", R"J({"format":"A4","landscape":true})J");
  ASSERT_EQ(pdf.status, 200) << pdf.body.substr(0, 200);
  auto p = object(pdf.body);
  const auto bytes = decode(p->getValue<std::string>("pdf_base64"));
  EXPECT_EQ(bytes.substr(0, 5), "%PDF-");
  EXPECT_THAT(bytes.substr(bytes.size() - 8), HasSubstr("%%EOF"));
  EXPECT_EQ(p->getValue<int>("pages"), 1);
  EXPECT_EQ(post(server, "/browser/pdf", R"J({"format":"B7"})J").status, 400);

  // A 404 page still navigates, with its status.
  auto missing =
      object(post(server, "/browser/navigate", "{\"url\":\"" + page.url("/missing") + "\"}").body);
  EXPECT_EQ(missing->getValue<int>("status"), 404);
}

TEST(Browser, WaitsAndTimesOut) {
  PageServer page(pages());
  ServerProcess server(options());
  ASSERT_EQ(post(server, "/browser/navigate", "{\"url\":\"" + page.url() + "\"}").status, 200);
  auto none = post(server, "/browser/click", R"J({"selector":"#nothing","timeout":300})J");
  EXPECT_EQ(none.status, 408) << none.body;
  EXPECT_EQ(object(none.body)->getValue<std::string>("type"), "TimeoutError");
  auto invalid = post(server, "/browser/click", R"J({"selector":"##"})J");
  EXPECT_EQ(invalid.status, 400) << invalid.body;
  // An element that appears later is waited for.
  ASSERT_EQ(
      post(
          server, "/browser/evaluate",
          R"J({"script":"setTimeout(() => { const b = document.createElement('button'); b.id = 'late'; b.textContent = 'late'; b.onclick = () => { document.title = 'late clicked'; }; document.body.appendChild(b); }, 300); 1"})J")
          .status,
      200);
  auto late = post(server, "/browser/click", R"J({"selector":"#late","timeout":5000})J");
  EXPECT_EQ(late.status, 200) << late.body;
  EXPECT_EQ(post(server, "/browser/evaluate", R"J({"script":"document.title"})J").body,
            R"J({"result":"late clicked"})J");
  // A script that never ends is stopped at its timeout; the page still works.
  auto loop = post(server, "/browser/evaluate", R"J({"script":"while (true) {}","timeout":500})J");
  EXPECT_EQ(loop.status, 408) << loop.body;
  EXPECT_EQ(post(server, "/browser/evaluate", R"J({"script":"1 + 1"})J").body, R"J({"result":2})J");
  // Nobody listens on a port that was just free (Chromium refuses port 9 as unsafe).
  int closed_port = 0;
  {
    Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
    closed_port = probe.address().port();
  }
  auto refused = post(server, "/browser/navigate",
                      "{\"url\":\"http://127.0.0.1:" + std::to_string(closed_port) + "/\"}");
  EXPECT_EQ(refused.status, 502) << refused.body;
  EXPECT_THAT(refused.body, HasSubstr("ERR_CONNECTION_REFUSED"));
}

TEST(Browser, RestartsChromiumThatDied) {
  PageServer page(pages());
  ServerProcess server(options());
  ASSERT_EQ(post(server, "/browser/navigate", "{\"url\":\"" + page.url() + "\"}").status, 200);
  auto pids = chromiumPids(server.pid());
  ASSERT_EQ(pids.size(), 1u);
  ::kill(pids[0], SIGKILL);
  for (int i = 0; i < 100 && !chromiumPids(server.pid()).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto again = post(server, "/browser/navigate", "{\"url\":\"" + page.url() + "\"}");
  ASSERT_EQ(again.status, 200) << again.body;
  auto now = chromiumPids(server.pid());
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now[0], pids[0]);
  EXPECT_THAT(http(server.port(), "GET", "/metrics").body,
              HasSubstr("\nabx_browser_chromium_restarts_total 1\n"));
  // Stopping the server kills Chromium.
  const int chromium = now[0];
  server.stop();
  EXPECT_NE(::kill(chromium, 0), 0);
}

TEST(Browser, UrlPolicy) {
  PageServer page(pages());
  {
    ServerProcess server(
        options("endpoints:\n  browser_navigate:\n    params:\n      url_deny: [\"*/secret*\"]\n"
                "      url_allow: [\"127.0.0.1\", \"example.org\"]\n"));
    EXPECT_EQ(post(server, "/browser/navigate", "{\"url\":\"" + page.url() + "\"}").status, 200);
    auto denied = post(server, "/browser/navigate", "{\"url\":\"" + page.url("/secret") + "\"}");
    EXPECT_EQ(denied.status, 403);
    EXPECT_THAT(denied.body, HasSubstr("url_not_allowed"));
    EXPECT_EQ(post(server, "/browser/navigate", R"J({"url":"http://localhost:1/"})J").status, 403);
    EXPECT_EQ(post(server, "/browser/navigate", R"J({"url":"file:///etc/passwd"})J").status, 400);
    EXPECT_EQ(post(server, "/browser/navigate", R"J({"url":"javascript:alert(1)"})J").status, 400);
  }
  ServerProcess blocked(
      options("endpoints:\n  browser_navigate:\n    params: {block_private_networks: true}\n"));
  auto r = post(blocked, "/browser/navigate", "{\"url\":\"" + page.url() + "\"}");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_THAT(r.body, HasSubstr("private network"));
  EXPECT_EQ(post(blocked, "/browser/navigate", R"J({"url":"http://[::1]:1/"})J").status, 403);
  EXPECT_EQ(post(blocked, "/browser/navigate", R"J({"url":"http://10.1.2.3/"})J").status, 403);
}

TEST(Browser, ChromiumHiddenFromPathIs503Everywhere) {
  char tmpl[] = "/tmp/abx-browser-bin-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::string bin = tmpl;
  ServerOptions o = options();
  o.env["PATH"] = bin;  // no chromium in there
  ServerProcess server(o);
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"POST", "/browser/navigate"}, {"POST", "/browser/screenshot"}, {"GET", "/browser/content"},
      {"POST", "/browser/click"},    {"POST", "/browser/type"},       {"POST", "/browser/evaluate"},
      {"POST", "/browser/pdf"},      {"GET", "/browser/console"}};
  const std::map<std::string, std::string> bodies = {
      {"/browser/navigate", R"J({"url":"about:blank"})J"},
      {"/browser/click", R"J({"selector":"#b"})J"},
      {"/browser/type", R"J({"selector":"#b","text":"x"})J"},
      {"/browser/evaluate", R"J({"script":"1"})J"}};
  for (const auto& [method, path] : routes) {
    auto it = bodies.find(path);
    auto r = http(server.port(), method, path,
                  method == "POST" ? (it == bodies.end() ? "{}" : it->second) : "");
    EXPECT_EQ(r.status, 503) << path << " " << r.body;
    auto body = object(r.body);
    EXPECT_EQ(body->getValue<std::string>("type"), "RuntimeError") << path;
    EXPECT_THAT(body->getValue<std::string>("error"), HasSubstr("Chromium is not installed"));
  }
  std::filesystem::remove_all(bin);
}

}  // namespace
}  // namespace abx::testing
