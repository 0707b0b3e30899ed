// Handlers run on server worker threads, policyApplied() and stop() on the
// main thread, the sweeper on its own (from the first session on); the
// session table and the ticket store are the shared state, both internally
// locked.
#include "terminal_plugin.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "abx/sdk/metrics.h"
#include "abx/sdk/route_table.h"
#include "terminal_vocabulary.h"

namespace abx::plugins::terminal {
namespace {

constexpr const char* kGroup = "terminal";
constexpr const char* kScope = "terminal:use";

sdk::Result<long long> positiveSetting(const sdk::Settings& settings, const char* key,
                                       long long fallback) {
  auto text = settings.get(key);
  if (!text) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text->c_str(), &end, 10);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < 1)
    return sdk::Status::error(std::string("settings.") + key + " must be a positive integer",
                              "ValueError");
  return value;
}

}  // namespace

sdk::Result<TerminalSettings> readSettings(const sdk::Settings& settings) {
  TerminalSettings out;
  auto max = positiveSetting(settings, "max_sessions", 10);
  if (!max) return max.status();
  auto idle = positiveSetting(settings, "idle_timeout_seconds", 1800);
  if (!idle) return idle.status();
  out.max_sessions = static_cast<std::size_t>(*max);
  out.idle_timeout = std::chrono::seconds(*idle);
  return out;
}

TerminalPlugin::~TerminalPlugin() { stop(); }

sdk::Status TerminalPlugin::start(sdk::HostContext& host) {
  auto settings = readSettings(host.settings());
  if (!settings) return settings.status();
  if (auto s = host.routes().declareGroup(
          {kGroup, false, "Interactive shells on pseudo-terminals, over a WebSocket",
           terminalParams()});
      !s)
    return s;

  sessions_ = std::make_unique<SessionTable>(
      SessionTable::Limits{settings->max_sessions, settings->idle_timeout});
  host.metrics().callbackGauge(
      "abx_terminal_sessions_open", "PTY sessions open now (with or without a client).",
      [sessions = sessions_.get()] { return static_cast<double>(sessions->size()); });
  WsServiceContext ws;
  ws.host = &host;
  ws.log = &host.log();
  ws.sessions = sessions_.get();
  ws.tickets = &tickets_;
  ws_ = std::make_unique<WsService>(std::move(ws));

  context_.host = &host;
  context_.sessions = sessions_.get();
  context_.tickets = &tickets_;
  context_.ws_port = [this] { return wsPort(); };
  context_.session_opened = [this] { startSweeper(); };

  const TerminalContext* context = &context_;
  const std::vector<std::string> use{kScope};
  if (auto s = sdk::addRoutes(
          host.routes(), kGroup, context,
          {
              {"POST", "/pty/sessions", "pty_create", "Start a shell on a new pseudo-terminal", use,
               &createSession},
              {"GET", "/pty/sessions", "pty_list", "List PTY sessions", use, &listSessions},
              {"GET", "/pty/sessions/{id}", "pty_get", "One PTY session", use, &getSession},
              {"POST", "/pty/sessions/{id}/resize", "pty_resize", "Resize a PTY session's terminal",
               use, &resizeSession},
              {"DELETE", "/pty/sessions/{id}", "pty_delete", "End a PTY session", use,
               &deleteSession},
              {"GET", "/pty", "pty_connect",
               "Attach to a PTY session: a WebSocket on the PTY port (this route only names it)",
               use, &connectHint},
          });
      !s)
    return s;

  const auto quarter =
      std::chrono::duration_cast<std::chrono::milliseconds>(settings->idle_timeout / 4);
  sweep_interval_ =
      std::clamp(quarter, std::chrono::milliseconds(200), std::chrono::milliseconds(5000));
  return sdk::Status::ok();
}

void TerminalPlugin::startSweeper() {
  std::lock_guard lock(sweep_mutex_);
  // A running sweeper looks again: the new session may have the nearest deadline.
  sweep_cv_.notify_all();
  if (sweeper_.joinable() || sweep_stop_) return;
  try {
    sweeper_ = std::thread([this] { sweepLoop(); });
    // Named here, not by the thread: it carries its name (ps -L, top -H)
    // from the moment the session that started it is answered.
    ::pthread_setname_np(sweeper_.native_handle(), "abx-pty-sweep");
  } catch (const std::system_error& e) {
    // The next session tries again; until then idle sessions stay open.
    host_.log().error(std::string("pty idle sweeper not started: ") + e.what());
  }
}

int TerminalPlugin::wsPort() const {
  if (ws_ && ws_->running()) return ws_->port();
  if (host_.info().pty_port != 0) return host_.info().pty_port;
  return ws_ ? ws_->port() : 0;
}

void TerminalPlugin::policyApplied() noexcept {
  // check-config: the port may belong to a server that runs beside it.
  if (!ws_ || host_.info().checking) return;
  try {
    auto policy = host_.endpointPolicy("pty_connect");
    const bool enabled = policy && policy->enabled;
    if (enabled && !ws_->running()) {
      const std::string& bind = host_.info().host;
      int port = host_.info().pty_port;
      // Port 0: prefer the port used before a reload turned the service off,
      // so URLs handed out earlier keep working.
      auto bound = ws_->start(bind, port == 0 && ws_->port() != 0 ? ws_->port() : port);
      if (!bound && port == 0) bound = ws_->start(bind, 0);
      if (bound)
        host_.log().info("pty websocket listening on " + bind + ":" + std::to_string(*bound));
      else
        host_.log().error("pty websocket not started: " + bound.status().message());
    } else if (!enabled && ws_->running()) {
      ws_->stop();
      host_.log().info("pty websocket stopped: pty_connect is disabled by " +
                       (policy ? policy->rule : std::string("an unknown rule")));
    }
  } catch (...) {
  }
}

void TerminalPlugin::sweepLoop() {
  std::unique_lock lock(sweep_mutex_);
  while (!sweep_stop_) {
    auto wait = sweep_interval_;
    // A session's max_duration_seconds deadline is kept to the millisecond.
    if (auto next = sessions_->nextDeadline())
      wait = std::clamp(
          std::chrono::ceil<std::chrono::milliseconds>(*next - std::chrono::steady_clock::now()),
          std::chrono::milliseconds(1), wait);
    sweep_cv_.wait_for(lock, wait);
    if (sweep_stop_) break;
    lock.unlock();
    try {
      auto ended = sessions_->sweep();
      for (const auto& s : ended)
        if (s->process().poll() == std::nullopt)
          host_.log().info("pty " + s->id() +
                           ": closed after the idle timeout or at max_duration_seconds");
      closeSessions(context_, ended);
    } catch (...) {
    }
    lock.lock();
  }
}

void TerminalPlugin::stop() noexcept {
  {
    std::lock_guard lock(sweep_mutex_);
    sweep_stop_ = true;
  }
  sweep_cv_.notify_all();
  if (sweeper_.joinable()) sweeper_.join();
  if (ws_) ws_->stop();
  if (sessions_) {
    try {
      auto all = sessions_->clear();
      // Hang up every terminal first, then wait for each.
      for (const auto& s : all) {
        tickets_.revoke(s->id());
        s->process().signal(SIGHUP);
      }
      for (const auto& s : all) s->process().terminate(std::chrono::milliseconds(300));
    } catch (...) {
    }
  }
}

std::unique_ptr<sdk::Plugin> makeTerminalPlugin(sdk::HostContext& host) {
  return std::make_unique<TerminalPlugin>(host);
}

}  // namespace abx::plugins::terminal
