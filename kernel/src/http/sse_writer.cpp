#include "http/sse_writer.h"

#include <cstdio>

#include "http/socket_io.h"

namespace abx::kernel {

std::string sseFrame(std::string_view name, std::string_view data) {
  std::string frame;
  frame.reserve(name.size() + data.size() + 16);
  if (!name.empty()) {
    frame += "event: ";
    frame += name;
    frame += '\n';
  }
  std::size_t start = 0;
  while (true) {
    std::size_t end = data.find('\n', start);
    frame += "data: ";
    frame +=
        data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    frame += '\n';
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  frame += '\n';
  return frame;
}

SseWriter::SseWriter(int fd, std::string head, SseHub& hub)
    : fd_(fd), head_(std::move(head)), hub_(hub) {
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

bool SseWriter::writeLocked(const std::string& frame) {
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
  if (!begun_) return false;
  return writeAll(fd_, {"0\r\n\r\n"});
}

bool SseWriter::begin() {
  std::lock_guard lock(mutex_);
  return beginLocked();
}

bool SseWriter::event(std::string_view name, std::string_view data) {
  auto frame = sseFrame(name, data);
  std::lock_guard lock(mutex_);
  return writeLocked(frame);
}

bool SseWriter::events(const std::vector<Event>& batch) {
  std::string frames;
  for (const auto& e : batch) {
    if (!e.id.empty()) {
      frames += "id: ";
      frames += e.id;
      frames += '\n';
    }
    frames += sseFrame(e.name, e.data);
  }
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
  writers_.insert(writer);
}

void SseHub::remove(SseWriter* writer) {
  std::lock_guard lock(mutex_);
  writers_.erase(writer);
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
