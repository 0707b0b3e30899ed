// SessionFile: $ABX_AGENTS_STATE_DIR/sessions.json (agents spec §6.1) —
// session records (with their owner), resume handles and finished turns
// with their items; no
// secrets (everything in it was redacted before it was kept) and no event
// history. Written atomically (temp file, fsync, rename) with mode 0600.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/status.h"
#include "runtime_types.h"

namespace abx::plugins::agents {

class SessionFile {
 public:
  explicit SessionFile(std::string state_dir);

  sdk::Status save(const std::vector<SessionInfo>& sessions, const std::vector<Turn>& turns) const;

  struct Loaded {
    std::vector<SessionInfo> sessions;
    std::vector<Turn> turns;
    bool interrupted = false; /**< some turns were in flight and are now failed */
  };
  /** A missing file is an empty state. In-flight turns come back failed:
   *  internal_error "server restarted", completed at @p now. */
  sdk::Result<Loaded> load(std::int64_t now) const;

  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace abx::plugins::agents
