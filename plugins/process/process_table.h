// ProcessTable: the background processes of POST /process/start, by pid.
// At most max_running run at once (the spec's 100: 429 ResourceError);
// exited ones are kept, newest first, up to max_exited so their exit code and
// output stay readable, then forgotten. Every process is reaped by its own
// reader thread the moment it exits; none becomes a lasting zombie.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "abx/sdk/http_error.h"
#include "abx/sdk/metrics.h"
#include "abx/sdk/subprocess.h"
#include "managed_process.h"
#include "thread_gate.h"

namespace abx::plugins::process {

struct TableOptions {
  std::size_t max_running = 100;
  std::size_t max_exited = 100;
  /** At shutdown: SIGINT, grace, SIGTERM, grace, SIGKILL on every running group. */
  std::chrono::milliseconds shutdown_grace{500};
  /** Counts every process started (a metric); null: not counted. */
  sdk::CounterCell* started = nullptr;
};

/** THREAD: safe. */
class ProcessTable {
 public:
  explicit ProcessTable(TableOptions options = {});
  ProcessTable(const ProcessTable&) = delete;
  ProcessTable& operator=(const ProcessTable&) = delete;
  ~ProcessTable();

  /**
   * Spawns @p spawn (stdin and merged output piped) in the background for
   * the identity @p owner. 429 ResourceError at the cap, 503 after
   * shutdown, 500 when it cannot start (the Subprocess's type:
   * FileNotFoundError, ...).
   */
  std::variant<std::shared_ptr<ManagedProcess>, sdk::HttpError> start(
      sdk::SpawnOptions spawn, std::string command, std::string owner, std::size_t ring_bytes,
      std::optional<std::chrono::milliseconds> lifetime = std::nullopt);

  std::shared_ptr<ManagedProcess> find(pid_t pid) const;
  /** Every known process, in start order (exited ones beyond max_exited forgotten first). */
  std::vector<ProcessSnapshot> list();
  std::size_t runningCount() const;

  /** Stops every running process (kill ladder) and waits for the workers. */
  void shutdown() noexcept;

 private:
  std::size_t runningLocked() const;
  /** Forgets the oldest exited records beyond max_exited, into @p evicted. */
  void trimLocked(std::vector<std::shared_ptr<ManagedProcess>>& evicted);

  TableOptions options_;
  std::shared_ptr<ThreadGate> gate_ = std::make_shared<ThreadGate>();
  mutable std::mutex mutex_;
  std::map<pid_t, std::shared_ptr<ManagedProcess>> processes_;
  std::uint64_t next_sequence_ = 1;
  std::size_t reserved_ = 0;  // starts between the cap check and the insert
  bool closed_ = false;
};

}  // namespace abx::plugins::process
