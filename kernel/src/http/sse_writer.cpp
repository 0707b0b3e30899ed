#include "http/sse_writer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "http/deferred_answer.h"
#include "http/socket_io.h"

namespace abx::kernel {

SseWriter::SseWriter(int fd, std::string head, SseHub& hub, Detacher detacher, Renderer render)
    : fd_(fd),
      head_(std::move(head)),
      hub_(hub),
      detacher_(std::move(detacher)),
      render_(std::move(render)) {
  hub_.add(this);
  if (hub_.closing()) close();
}

SseWriter::~SseWriter() { hub_.remove(this); }

bool SseWriter::begun() const {
  std::lock_guard lock(mutex_);
  return begun_;
}

bool SseWriter::beginLocked() {
  if (begun_) return open();
  begun_ = true;
  if (!writeAll(fd_, {head_})) close();
  last_write_ = std::chrono::steady_clock::now();
  return open();
}

bool SseWriter::detached() const {
  std::lock_guard lock(mutex_);
  return detached_;
}

std::shared_ptr<sdk::SseWaker> SseWriter::detach(std::shared_ptr<sdk::SseFeed> feed) {
  std::lock_guard lock(mutex_);
  if (!detacher_ || detached_ || !open() || !feed) return nullptr;
  auto waker = detacher_({begun_ ? std::string() : std::move(head_), std::move(feed), true});
  if (!waker) return nullptr;
  // From here the loop writes; this writer refuses everything.
  detached_ = begun_ = true;
  close();
  return waker;
}

std::shared_ptr<sdk::DeferredAnswer> SseWriter::defer(std::function<void()> on_hang_up) {
  std::lock_guard lock(mutex_);
  if (!detacher_ || !render_ || detached_ || begun_ || !open()) return nullptr;
  auto answer = std::make_shared<AnswerFeed>(render_, std::move(on_hang_up));
  auto waker = detacher_({{}, answer, false});
  if (!waker) return nullptr;
  answer->attach(waker);
  detached_ = begun_ = true;
  close();
  return answer;
}

bool SseWriter::frames(std::string_view encoded) {
  std::lock_guard lock(mutex_);
  return writeLocked(encoded);
}

bool SseWriter::writeLocked(std::string_view frame) {
  if (!open() || !beginLocked()) return false;
  char size[24];
  int n = std::snprintf(size, sizeof size, "%zx\r\n", frame.size());
  // A failed write (client gone) ends this subscriber only.
  if (!writeAll(fd_, {std::string_view(size, static_cast<std::size_t>(n)), frame, "\r\n"})) close();
  last_write_ = std::chrono::steady_clock::now();
  return open();
}

bool SseWriter::finish() {
  std::lock_guard lock(mutex_);
  if (!begun_ || detached_) return false;
  return writeAll(fd_, {"0\r\n\r\n"});
}

bool SseWriter::header(std::string_view name, std::string_view value) {
  auto token = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           (c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c));
  };
  if (name.empty() || !std::all_of(name.begin(), name.end(), token) ||
      value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
    return false;
  std::lock_guard lock(mutex_);
  // The head ends with its blank line; the header goes before it.
  if (begun_ || detached_ || !head_.ends_with("\r\n\r\n")) return false;
  std::string line;
  line.append(name).append(": ").append(value).append("\r\n");
  head_.insert(head_.size() - 2, line);
  return true;
}

bool SseWriter::begin() {
  std::lock_guard lock(mutex_);
  return beginLocked();
}

bool SseWriter::event(std::string_view name, std::string_view data) {
  std::string frame;
  sdk::appendSseFrame(frame, name, data);
  std::lock_guard lock(mutex_);
  return writeLocked(frame);
}

bool SseWriter::events(const std::vector<Event>& batch) {
  std::string frames;
  for (const auto& e : batch) sdk::appendSseFrame(frames, e.name, e.data, e.id);
  std::lock_guard lock(mutex_);
  return writeLocked(frames);
}

bool SseWriter::comment(std::string_view text) {
  std::string frame = ": ";
  frame += text;
  frame += "\n\n";
  std::lock_guard lock(mutex_);
  return writeLocked(frame);
}

void SseWriter::pingIfIdle(std::chrono::steady_clock::duration idle) {
  std::lock_guard lock(mutex_);
  if (!begun_ || !open()) return;
  if (std::chrono::steady_clock::now() - last_write_ >= idle) writeLocked(": ping\n\n");
}

SseHub::SseHub(std::chrono::milliseconds ping_interval)
    : ping_interval_(ping_interval), ticker_([this] { run(); }) {}

SseHub::~SseHub() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
}

void SseHub::add(SseWriter* writer) {
  std::lock_guard lock(mutex_);
  if (writers_.insert(writer).second && open_) open_->inc();
}

void SseHub::remove(SseWriter* writer) {
  std::lock_guard lock(mutex_);
  if (writers_.erase(writer) && open_) open_->dec();
}

void SseHub::closeAll() {
  std::lock_guard lock(mutex_);
  closing_ = true;
  for (auto* w : writers_) w->close();
}

void SseHub::run() {
  auto tick = std::max(std::chrono::milliseconds(50), ping_interval_ / 4);
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, tick);
    if (stop_) break;
    for (auto* w : writers_) w->pingIfIdle(ping_interval_);
  }
}

}  // namespace abx::kernel
