#include "session_table.h"

#include <algorithm>
#include <cstdio>

#include "abx/sdk/json.h"
#include "abx/sdk/random.h"

namespace abx::plugins::terminal {
namespace {

double unixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string sessionJson(const SessionInfo& info) {
  // Milliseconds, always three decimals (the writer's shortest form would vary).
  char created[64];
  std::snprintf(created, sizeof created, "%.3f", info.created_at);
  sdk::JsonWriter out;
  out.beginObject()
      .member("id", info.id)
      .member("pid", info.pid)
      .key("created_at")
      .raw(created)
      .member("cols", info.cols)
      .member("rows", info.rows)
      .member("alive", info.alive)
      .member("connected", info.connected);
  return out.endObject().take();
}

Session::Session(std::string id, std::string owner, std::unique_ptr<PtyProcess> process, int cols,
                 int rows, SteadyClock clock)
    : id_(std::move(id)),
      owner_(std::move(owner)),
      process_(std::move(process)),
      created_at_(unixNow()),
      clock_(std::move(clock)),
      cols_(cols),
      rows_(rows),
      last_activity_(clock_()) {}

void Session::limitLifetime(std::chrono::milliseconds lifetime) {
  std::lock_guard lock(mutex_);
  deadline_ = clock_() + lifetime;
}

std::optional<std::chrono::steady_clock::time_point> Session::deadline() {
  std::lock_guard lock(mutex_);
  return deadline_;
}

SessionInfo Session::info() {
  SessionInfo out;
  out.id = id_;
  out.pid = process_->pid();
  out.created_at = created_at_;
  out.alive = !process_->poll();
  std::lock_guard lock(mutex_);
  out.cols = cols_;
  out.rows = rows_;
  out.connected = connected_;
  return out;
}

sdk::Status Session::resize(int cols, int rows) {
  std::lock_guard lock(mutex_);
  if (auto s = process_->resize(cols, rows); !s) return s;
  cols_ = cols;
  rows_ = rows;
  last_activity_ = clock_();
  return sdk::Status::ok();
}

void Session::touch() {
  std::lock_guard lock(mutex_);
  last_activity_ = clock_();
}

std::chrono::steady_clock::time_point Session::lastActivity() {
  std::lock_guard lock(mutex_);
  return last_activity_;
}

std::uint64_t Session::attach() {
  std::lock_guard lock(mutex_);
  connected_ = true;
  last_activity_ = clock_();
  return ++attachment_;
}

void Session::detach(std::uint64_t attachment) {
  std::lock_guard lock(mutex_);
  last_activity_ = clock_();
  if (attachment_.load() == attachment) connected_ = false;
}

bool Session::connected() {
  std::lock_guard lock(mutex_);
  return connected_;
}

SessionTable::SessionTable(Limits limits, SteadyClock clock)
    : limits_(limits), clock_(std::move(clock)) {
  if (!clock_) clock_ = [] { return std::chrono::steady_clock::now(); };
}

SessionTable::Reservation::~Reservation() {
  if (table_) table_->release();
}

void SessionTable::release() noexcept {
  std::lock_guard lock(mutex_);
  if (reserved_ > 0) --reserved_;
}

void SessionTable::reapDeadLocked(std::vector<std::shared_ptr<Session>>& out) {
  for (auto it = order_.begin(); it != order_.end();) {
    auto found = sessions_.find(*it);
    if (found->second->process().poll()) {
      out.push_back(found->second);
      sessions_.erase(found);
      it = order_.erase(it);
    } else {
      ++it;
    }
  }
}

sdk::Result<SessionTable::Reservation> SessionTable::reserve(
    std::vector<std::shared_ptr<Session>>* reaped) {
  std::vector<std::shared_ptr<Session>> dead;
  std::lock_guard lock(mutex_);
  reapDeadLocked(dead);
  if (reaped) *reaped = std::move(dead);
  if (sessions_.size() + reserved_ >= limits_.max_sessions)
    return sdk::Status::error(
        "Maximum PTY sessions (" + std::to_string(limits_.max_sessions) + ") reached",
        "RuntimeError");
  ++reserved_;
  return Reservation(this);
}

std::shared_ptr<Session> SessionTable::commit(Reservation slot, std::unique_ptr<PtyProcess> process,
                                              int cols, int rows, std::string owner) {
  std::lock_guard lock(mutex_);
  std::string id;
  do {
    id = sdk::randomHex(6);
  } while (sessions_.count(id));
  auto session =
      std::make_shared<Session>(id, std::move(owner), std::move(process), cols, rows, clock_);
  sessions_.emplace(id, session);
  order_.push_back(id);
  // The slot becomes the session: it no longer counts as a reservation.
  slot.table_ = nullptr;
  if (reserved_ > 0) --reserved_;
  return session;
}

std::shared_ptr<Session> SessionTable::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

std::shared_ptr<Session> SessionTable::remove(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  auto session = std::move(it->second);
  sessions_.erase(it);
  std::erase(order_, id);
  return session;
}

std::vector<std::shared_ptr<Session>> SessionTable::reapDead() {
  std::vector<std::shared_ptr<Session>> dead;
  std::lock_guard lock(mutex_);
  reapDeadLocked(dead);
  return dead;
}

std::vector<std::shared_ptr<Session>> SessionTable::list(
    std::vector<std::shared_ptr<Session>>* reaped) {
  std::vector<std::shared_ptr<Session>> dead;
  std::vector<std::shared_ptr<Session>> out;
  std::lock_guard lock(mutex_);
  reapDeadLocked(dead);
  if (reaped) *reaped = std::move(dead);
  for (const auto& id : order_) out.push_back(sessions_.at(id));
  return out;
}

std::vector<std::shared_ptr<Session>> SessionTable::sweep() {
  std::vector<std::shared_ptr<Session>> out;
  std::lock_guard lock(mutex_);
  reapDeadLocked(out);
  const auto now = clock_();
  for (auto it = order_.begin(); it != order_.end();) {
    auto found = sessions_.find(*it);
    Session& s = *found->second;
    const auto deadline = s.deadline();
    if ((!s.connected() && now - s.lastActivity() >= limits_.idle_timeout) ||
        (deadline && now >= *deadline)) {
      out.push_back(found->second);
      sessions_.erase(found);
      it = order_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::optional<std::chrono::steady_clock::time_point> SessionTable::nextDeadline() {
  std::optional<std::chrono::steady_clock::time_point> next;
  std::lock_guard lock(mutex_);
  for (const auto& [id, s] : sessions_)
    if (auto d = s->deadline(); d && (!next || *d < *next)) next = d;
  return next;
}

std::vector<std::shared_ptr<Session>> SessionTable::clear() {
  std::vector<std::shared_ptr<Session>> out;
  std::lock_guard lock(mutex_);
  for (const auto& id : order_) out.push_back(sessions_.at(id));
  sessions_.clear();
  order_.clear();
  return out;
}

std::size_t SessionTable::size() {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

}  // namespace abx::plugins::terminal
