// The client half of tests/bench/browser_bench.sh: navigate+content round
// trips per second on a page this process serves itself on 127.0.0.1, and,
// measured in the same run and interleaved in rounds:
//   - through the server: POST /browser/navigate + GET /browser/content
//     ?type=text on one keep-alive connection (what a client sees);
//   - in-process: the plugin's BrowserSession navigate + content on its own
//     headless Chromium, no HTTP (what the server and HTTP add), also split
//     into its navigate and its content half;
//   - a bare Runtime.evaluate round trip ("1") through that session (the
//     cost of one DevTools call);
//   - a plain HTTP GET of the same page (the cost of fetching it at all).
// Prints mean / p50 / p99 per round trip, round trips per second and the
// ratios of the server's figure to each baseline.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "browser_session.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
using abx::plugins::browser::BrowserError;
using abx::plugins::browser::BrowserSession;
using abx::plugins::browser::Reply;
using abx::plugins::browser::UrlRules;

// Small but real: a title, some text and a script, like a typical test page.
const std::string kPage = R"HTML(<!doctype html>
<html><head><title>Bench Page</title></head>
<body><h1>Benchmark marker 4711</h1>
<p>A paragraph of text for the text extraction to walk over.</p>
<ul><li>one</li><li>two</li><li>three</li></ul>
<script>document.body.dataset.ready = '1';</script>
</body></html>)HTML";
const std::string kMarker = "Benchmark marker 4711";

class PageHandler : public Poco::Net::HTTPRequestHandler {
 public:
  void handleRequest(Poco::Net::HTTPServerRequest&,
                     Poco::Net::HTTPServerResponse& response) override {
    response.setContentType("text/html; charset=utf-8");
    response.setContentLength(static_cast<std::streamsize>(kPage.size()));
    response.send() << kPage;
  }
};
class PageFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new PageHandler;
  }
};

struct Stats {
  double mean_us = 0, p50_us = 0, p99_us = 0, total_s = 0;
};

Stats summarise(std::vector<double> us) {
  Stats s;
  if (us.empty()) return s;
  for (double v : us) s.total_s += v / 1e6;
  s.mean_us = s.total_s * 1e6 / static_cast<double>(us.size());
  std::sort(us.begin(), us.end());
  s.p50_us = us[us.size() / 2];
  s.p99_us = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  return s;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "browser bench: %s\n", what.c_str());
  std::exit(1);
}

/** One request on the keep-alive session; exits unless it answers 200. */
std::string exchange(Poco::Net::HTTPClientSession& session, const std::string& method,
                     const std::string& target, const std::string& body, const std::string& token) {
  Poco::Net::HTTPRequest request(method, target, Poco::Net::HTTPMessage::HTTP_1_1);
  request.setKeepAlive(true);
  if (!token.empty()) request.set("X-Access-Token", token);
  if (method == "POST") {
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body.size()));
  }
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  auto& in = session.receiveResponse(response);
  std::string reply;
  Poco::StreamCopier::copyToString(in, reply);
  if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK)
    fail(method + " " + target + " answered " + std::to_string(response.getStatus()) + ": " +
         reply);
  return reply;
}

std::string ok(const Reply& reply, const char* what) {
  if (auto* e = std::get_if<BrowserError>(&reply))
    fail(std::string(what) + ": " + std::to_string(e->status) + " " + e->message);
  return std::get<std::string>(reply);
}

// Every navigation gets its own query so Chromium loads the page for real
// instead of treating it as a reload of the same document.
int g_counter = 0;
std::string nextUrl(const std::string& base) { return base + "?n=" + std::to_string(++g_counter); }

std::vector<double> serverLoop(Poco::Net::HTTPClientSession& session, const std::string& base,
                               const std::string& token, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const std::string body = "{\"url\":\"" + nextUrl(base) + "\"}";
    const auto t0 = Clock::now();
    exchange(session, "POST", "/browser/navigate", body, token);
    const std::string content = exchange(session, "GET", "/browser/content?type=text", "", token);
    out.push_back(since(t0));
    if (content.find(kMarker) == std::string::npos) fail("content without the marker: " + content);
  }
  return out;
}

struct SessionTimes {
  std::vector<double> both, navigate, content;
};

SessionTimes sessionLoop(BrowserSession& browser, const std::string& base, int n) {
  SessionTimes out;
  for (int i = 0; i < n; ++i) {
    const std::string url = nextUrl(base);
    const auto t0 = Clock::now();
    ok(browser.navigate(url, std::chrono::milliseconds(30000), true), "navigate");
    const auto t1 = Clock::now();
    const std::string content = ok(browser.content(true), "content");
    out.both.push_back(since(t0));
    out.navigate.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    out.content.push_back(since(t1));
    if (content.find(kMarker) == std::string::npos) fail("content without the marker: " + content);
  }
  return out;
}

std::vector<double> evaluateLoop(BrowserSession& browser, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    const std::string result = ok(browser.evaluate("1", std::chrono::milliseconds(10000)), "eval");
    out.push_back(since(t0));
    if (result != R"({"result":1})") fail("evaluate answered " + result);
  }
  return out;
}

std::vector<double> getLoop(Poco::Net::HTTPClientSession& session, const std::string& path, int n) {
  // The page server drops connections idle for a second (see main), so each
  // loop opens a fresh one, untimed.
  session.reset();
  exchange(session, "GET", path, "", "");
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    const std::string page = exchange(session, "GET", path, "", "");
    out.push_back(since(t0));
    if (page.find(kMarker) == std::string::npos) fail("the page lost its marker");
  }
  return out;
}

/** Phase times on stderr: where the wall time outside the measured loops goes. */
void phase(const char* what, Clock::time_point& since_then) {
  std::fprintf(stderr, "[bench client] %s: %.0f ms\n", what, since(since_then) / 1000);
  since_then = Clock::now();
}

void print(const char* what, const Stats& s, std::size_t n) {
  std::printf("| %-48s | %5zu | %9.1f | %9.1f | %9.1f | %9.1f |\n", what, n, s.mean_us, s.p50_us,
              s.p99_us, static_cast<double>(n) / s.total_s);
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0, n = 100;
  std::string token;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--port")) port = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--token")) token = argv[i + 1];
  }
  if (port <= 0 || n <= 0 || n > 1000) {
    std::fprintf(stderr, "usage: %s --port P [--n N (1..1000)] [--token T]\n", argv[0]);
    return 2;
  }

  Poco::Net::ServerSocket page_socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  // The server's Chromium keeps its connections to the page open; a short
  // keep-alive timeout keeps the page server's stop from waiting POCO's
  // default 10 s for them.
  auto* page_params = new Poco::Net::HTTPServerParams;
  page_params->setKeepAliveTimeout(Poco::Timespan(1, 0));
  Poco::Net::HTTPServer page_server(new PageFactory, page_socket, page_params);
  page_server.start();
  const Poco::UInt16 page_port = page_socket.address().port();
  const std::string base = "http://127.0.0.1:" + std::to_string(page_port) + "/page.html";

  Poco::Net::HTTPClientSession server("127.0.0.1", static_cast<Poco::UInt16>(port));
  server.setKeepAlive(true);
  server.setTimeout(Poco::Timespan(60, 0));
  Poco::Net::HTTPClientSession page("127.0.0.1", page_port);
  page.setKeepAlive(true);
  page.setTimeout(Poco::Timespan(10, 0));

  // The in-process session gets this process's environment, as the plugin
  // gets the server's child environment (Chromium's HOME and XDG dirs are
  // pointed into its profile either way).
  BrowserSession browser(
      [] {
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e) env.emplace_back(*e);
        return env;
      },
      [] { return UrlRules{}; });  // the server's default policy: no URL rules

  // Warm-up: both Chromiums start (seconds each on a busy 2-CPU VM), their
  // caches and the connections warm. The phases go to stderr.
  const int warm = std::max(3, n / 10);
  auto phase_start = Clock::now();
  serverLoop(server, base, token, warm);
  phase("warm-up through the server (its Chromium starts)", phase_start);

  sessionLoop(browser, base, warm);
  phase("warm-up of the in-process session (its Chromium starts)", phase_start);

  evaluateLoop(browser, warm);
  getLoop(page, "/page.html", warm);

  // Interleaved rounds, alternating the order, so every loop sees the same
  // machine.
  constexpr int kRounds = 10;
  std::vector<double> server_all, session_all, navigate_all, content_all, eval_all, get_all;
  auto append = [](std::vector<double>& into, std::vector<double> more) {
    into.insert(into.end(), more.begin(), more.end());
  };
  auto appendSession = [&](SessionTimes more) {
    append(session_all, std::move(more.both));
    append(navigate_all, std::move(more.navigate));
    append(content_all, std::move(more.content));
  };
  for (int round = 0; round < kRounds; ++round) {
    const int k = n / kRounds + (round < n % kRounds ? 1 : 0);
    if (k == 0) continue;
    if (round % 2 == 0) {
      append(server_all, serverLoop(server, base, token, k));
      appendSession(sessionLoop(browser, base, k));
      append(eval_all, evaluateLoop(browser, k));
      append(get_all, getLoop(page, "/page.html", k));
    } else {
      append(get_all, getLoop(page, "/page.html", k));
      append(eval_all, evaluateLoop(browser, k));
      appendSession(sessionLoop(browser, base, k));
      append(server_all, serverLoop(server, base, token, k));
    }
  }
  phase("measured rounds", phase_start);

  browser.stop();
  phase("in-process Chromium stopped", phase_start);

  page_server.stop();
  phase("page server stopped", phase_start);

  const Stats s = summarise(server_all);
  const Stats b = summarise(session_all);
  const Stats bn = summarise(navigate_all);
  const Stats bc = summarise(content_all);
  const Stats e = summarise(eval_all);
  const Stats g = summarise(get_all);
  std::printf("| %-48s | %5s | %9s | %9s | %9s | %9s |\n", "what", "n", "mean us", "p50 us",
              "p99 us", "per s");
  std::printf("|%s|%s|%s|%s|%s|%s|\n", "--------------------------------------------------",
              "-------", "-----------", "-----------", "-----------", "-----------");
  print("server: POST navigate + GET content?type=text", s, server_all.size());
  print("in-process BrowserSession navigate + content", b, session_all.size());
  print("  of which navigate (load event + title)", bn, navigate_all.size());
  print("  of which content (innerText)", bc, content_all.size());
  print("Runtime.evaluate \"1\" (BrowserSession, no HTTP)", e, eval_all.size());
  print("plain HTTP GET of the page (keep-alive)", g, get_all.size());
  std::printf("\n");
  std::printf("navigate+content through the server: %.1f round trips/s\n", 1e6 / s.mean_us);
  std::printf(
      "ratio server / in-process session:    %.2f (mean), %.2f (p50); +%.0f us per round "
      "trip\n",
      s.mean_us / b.mean_us, s.p50_us / b.p50_us, s.mean_us - b.mean_us);
  std::printf("ratio server / Runtime.evaluate:      %.1f (mean), %.1f (p50)\n",
              s.mean_us / e.mean_us, s.p50_us / e.p50_us);
  std::printf("ratio server / plain HTTP GET:        %.1f (mean), %.1f (p50)\n",
              s.mean_us / g.mean_us, s.p50_us / g.p50_us);
  return 0;
}
