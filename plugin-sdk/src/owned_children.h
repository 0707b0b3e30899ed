// The children that Subprocess objects own, so Subprocess::reapOrphans()
// never reaps one whose exit code its owner will read. Private to the SDK;
// the one registry is the shared library's, so the kernel and every plugin
// share it.
#pragma once

#include <sys/types.h>

#include <shared_mutex>

namespace abx::sdk::subprocess_detail {

/**
 * Held by a spawn from before its clone until addOwned() registered the new
 * pid: the reaper cannot run meanwhile, so a child that exits at once is
 * never taken for an orphan. Spawns do not exclude each other.
 */
std::shared_lock<std::shared_mutex> holdForSpawn();
void addOwned(pid_t pid);
/**
 * waitpid(@p pid, &@p status, @p options), retried on EINTR. Unless it
 * answered 0 (WNOHANG: still running), @p pid is no longer owned.
 */
pid_t reapOwned(pid_t pid, int& status, int options);

}  // namespace abx::sdk::subprocess_detail
