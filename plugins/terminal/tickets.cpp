#include "tickets.h"

#include <algorithm>

#include "abx/sdk/random.h"

namespace abx::plugins::terminal {
namespace {

bool constantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

TicketStore::TicketStore(std::chrono::seconds ttl, std::size_t capacity, Clock now)
    : ttl_(ttl), capacity_(capacity == 0 ? 1 : capacity), now_(std::move(now)) {
  if (!now_) now_ = [] { return std::chrono::steady_clock::now(); };
}

void TicketStore::purgeLocked(std::chrono::steady_clock::time_point now) {
  std::erase_if(entries_, [now](const Entry& e) { return e.expires <= now; });
}

std::string TicketStore::issue(std::string_view session_id, std::string_view identity) {
  std::string ticket = sdk::randomHex(16);
  std::lock_guard lock(mutex_);
  const auto now = now_();
  purgeLocked(now);
  if (entries_.size() >= capacity_) entries_.erase(entries_.begin());
  entries_.push_back({ticket, std::string(session_id), std::string(identity), now + ttl_});
  return ticket;
}

std::optional<std::string> TicketStore::consume(std::string_view ticket,
                                                std::string_view session_id) {
  if (ticket.empty()) return std::nullopt;
  std::lock_guard lock(mutex_);
  const auto now = now_();
  purgeLocked(now);
  // Compare with every live ticket without stopping early, so the time
  // taken says nothing about how much of a guess was right.
  std::size_t found = entries_.size();
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (constantTimeEquals(entries_[i].ticket, ticket) && found == entries_.size()) found = i;
  if (found == entries_.size()) return std::nullopt;
  std::optional<std::string> identity;
  if (entries_[found].session_id == session_id) identity = std::move(entries_[found].identity);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(found));
  return identity;
}

void TicketStore::revoke(std::string_view session_id) {
  std::lock_guard lock(mutex_);
  std::erase_if(entries_, [&](const Entry& e) { return e.session_id == session_id; });
}

std::size_t TicketStore::size() {
  std::lock_guard lock(mutex_);
  purgeLocked(now_());
  return entries_.size();
}

}  // namespace abx::plugins::terminal
