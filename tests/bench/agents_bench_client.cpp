// abx_agents_bench: the two agents figures in one run (see agents_bench.sh).
//  turn   — N rounds, each: one bare spawn-and-wait of the fake agent (the
//           floor, through the SDK's Subprocess, same argv, env and stdin as
//           the server uses) and one POST /v1/responses stream:true timed
//           until its response.completed event; prints p50 of both and the
//           turn overhead (server minus floor).
//  flood  — one streamed turn of a flooding agent; counts the
//           response.output_text.delta events the SSE client receives and
//           prints events per second.
//  fanout — one flood turn on an Agents-wire session watched by N
//           subscribers of GET /v1/agents/sessions/{id}/events: each counts
//           the output_text deltas up to agent.session.idle; prints the
//           events per second per subscriber and in total.
// Usage: abx_agents_bench turn   <port> <token> <model> <rounds> <agent argv...>
//        abx_agents_bench flood  <port> <token> <model>
//        abx_agents_bench fanout <port> <token> <model> <subscribers>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "abx/sdk/subprocess.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct StreamResult {
  bool completed = false;
  long deltas = 0;
  Clock::duration elapsed{};
};

// POSTs a streaming request and reads the SSE body until the terminal
// event, counting text deltas.
StreamResult streamTurn(Poco::Net::HTTPClientSession& session, const std::string& token,
                        const std::string& model, const std::string& prompt) {
  const std::string body =
      R"({"model":")" + model + R"(","input":")" + prompt + R"(","stream":true,"store":false})";
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/v1/responses",
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Authorization", "Bearer " + token);
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  StreamResult result;
  const auto start = Clock::now();
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  if (response.getStatus() != 200) {
    std::cerr << "status " << response.getStatus() << "\n";
    return result;
  }
  static const std::string kDelta = "event: response.output_text.delta";
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, kDelta.size(), kDelta) == 0) {
      ++result.deltas;
    } else if (line == "event: response.completed") {
      result.completed = true;
      result.elapsed = Clock::now() - start;
    } else if (line == "event: response.failed") {
      result.elapsed = Clock::now() - start;
    }
  }
  return result;
}

int turnBench(int port, const std::string& token, const std::string& model, int rounds,
              std::vector<std::string> argv) {
  std::vector<std::string> env = abx::sdk::Subprocess::inheritEnv(
      {"PATH", "HOME", "LANG", "FAKE_AGENT_STATE_DIR", "FAKE_SCENARIO", "FAKE_MODE"});
  std::vector<double> bare, served;
  for (int i = 0; i < rounds; ++i) {
    abx::sdk::SpawnOptions options;
    options.argv = argv;
    options.env = env;
    abx::sdk::RunLimits limits;
    limits.stdin_data = "bench turn";
    auto t0 = Clock::now();
    auto run = abx::sdk::Subprocess::run(options, limits);
    auto t1 = Clock::now();
    if (!run || run->exit_code != 0) {
      std::cerr << "bare run failed: " << (run ? run->err : run.status().message()) << "\n";
      return 1;
    }
    bare.push_back(ms(t1 - t0));
    Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
    auto result = streamTurn(session, token, model, "bench turn");
    if (!result.completed) {
      std::cerr << "turn " << i << " did not complete\n";
      return 1;
    }
    served.push_back(ms(result.elapsed));
  }
  const double floor = median(bare), total = median(served);
  // The fake agent's own run time moves by milliseconds between runs; the
  // median of the per-round differences is the steadier overhead figure.
  std::vector<double> diff;
  for (std::size_t i = 0; i < bare.size(); ++i) diff.push_back(served[i] - bare[i]);
  std::printf(
      "turn: rounds=%d  bare spawn+wait p50 %.2f ms  POST->response.completed p50 %.2f ms\n",
      rounds, floor, total);
  std::printf(
      "turn overhead: p50 difference %.2f ms, median per-round difference %.2f ms "
      "(ratio %.3f)\n",
      total - floor, median(diff), floor > 0 ? total / floor : 0.0);
  return 0;
}

int floodBench(int port, const std::string& token, const std::string& model) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  session.setTimeout(Poco::Timespan(120, 0));
  auto result = streamTurn(session, token, model, "flood");
  if (!result.completed) {
    std::cerr << "flood turn did not complete\n";
    return 1;
  }
  const double seconds = ms(result.elapsed) / 1000.0;
  std::printf("flood: %ld text deltas delivered in %.3f s = %.0f events/s\n", result.deltas,
              seconds, seconds > 0 ? static_cast<double>(result.deltas) / seconds : 0.0);
  return 0;
}

std::string postJson(int port, const std::string& token, const std::string& path,
                     const std::string& body, int& status) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Authorization", "Bearer " + token);
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  status = response.getStatus();
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int fanoutBench(int port, const std::string& token, const std::string& model, int subscribers) {
  int status = 0;
  auto created =
      postJson(port, token, "/v1/agents/sessions",
               R"({"agent_id":")" + model + R"(","environment":{"type":"none"}})", status);
  auto at = created.find("\"id\":\"");
  if (status != 200 || at == std::string::npos) {
    std::cerr << "session create failed: " << status << " " << created << "\n";
    return 1;
  }
  const std::string id = created.substr(at + 6, created.find('"', at + 6) - at - 6);
  std::vector<long> counts(static_cast<std::size_t>(subscribers), 0);
  std::vector<std::unique_ptr<Poco::Net::HTTPClientSession>> sessions;
  std::vector<std::istream*> streams;
  for (int i = 0; i < subscribers; ++i) {
    auto session = std::make_unique<Poco::Net::HTTPClientSession>("127.0.0.1",
                                                                  static_cast<Poco::UInt16>(port));
    session->setTimeout(Poco::Timespan(120, 0));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET,
                                   "/v1/agents/sessions/" + id + "/events",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.set("Authorization", "Bearer " + token);
    session->sendRequest(request);
    Poco::Net::HTTPResponse response;
    streams.push_back(&session->receiveResponse(response));
    if (response.getStatus() != 200) {
      std::cerr << "subscriber " << i << " refused: " << response.getStatus() << "\n";
      return 1;
    }
    sessions.push_back(std::move(session));
  }
  std::vector<std::thread> readers;
  std::vector<Clock::time_point> ends(static_cast<std::size_t>(subscribers));
  const auto start = Clock::now();
  for (int i = 0; i < subscribers; ++i)
    readers.emplace_back([&, i] {
      static const std::string kDelta = "event: agent.session.turn.output_text.delta";
      std::string line;
      while (std::getline(*streams[static_cast<std::size_t>(i)], line)) {
        if (line.compare(0, kDelta.size(), kDelta) == 0) ++counts[static_cast<std::size_t>(i)];
        if (line == "event: agent.session.idle") break;
      }
      ends[static_cast<std::size_t>(i)] = Clock::now();
    });
  postJson(port, token, "/v1/agents/sessions/" + id + "/events",
           R"({"events":[{"type":"agent.session.input.message","input":"flood"}]})", status);
  for (auto& t : readers) t.join();
  const auto last = *std::max_element(ends.begin(), ends.end());
  const double seconds = ms(last - start) / 1000.0;
  const long min = *std::min_element(counts.begin(), counts.end());
  const long max = *std::max_element(counts.begin(), counts.end());
  std::printf(
      "fanout: %d subscribers, deltas per subscriber %ld..%ld, %.3f s, %.0f events/s "
      "per subscriber, %.0f events/s delivered in total\n",
      subscribers, min, max, seconds, static_cast<double>(min) / seconds,
      static_cast<double>(min) * subscribers / seconds);
  return min == max ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: abx_agents_bench turn|flood <port> <token> <model> [rounds argv...]\n";
    return 2;
  }
  const std::string mode = argv[1];
  const int port = std::atoi(argv[2]);
  if (mode == "flood") return floodBench(port, argv[3], argv[4]);
  if (mode == "fanout" && argc >= 6) return fanoutBench(port, argv[3], argv[4], std::atoi(argv[5]));
  if (mode == "turn" && argc >= 7)
    return turnBench(port, argv[3], argv[4], std::atoi(argv[5]),
                     std::vector<std::string>(argv + 6, argv + argc));
  std::cerr << "bad arguments\n";
  return 2;
}
