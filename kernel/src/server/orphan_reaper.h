// The server adopts the orphans its commands leave and reaps them: a
// grandchild whose parent exits becomes the server's child (a child
// subreaper), and the main thread reaps it when SIGCHLD says a child ended.
// Without this, a server running as PID 1 (a container's entrypoint) would
// collect zombies, and elsewhere orphans would escape to the host's init.
#pragma once

#include <signal.h>

#include <cstddef>

namespace abx::kernel {

/**
 * Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER): orphaned
 * descendants are reparented to it rather than to init. @return false if
 * the kernel refused (they still go to init, which reaps them).
 */
bool adoptOrphans();

/**
 * sigwait() for @p signals, which must include SIGCHLD and be blocked in
 * every thread: on SIGCHLD the exited children no Subprocess owns are
 * reaped and the wait goes on. @return the first other signal.
 */
int waitReapingOrphans(const sigset_t& signals);

/**
 * At shutdown, after the drain and the plugins' stop: SIGKILLs the process
 * group of every child still running (the commands of requests that
 * outlived the drain timeout), so their handlers return and the server
 * exits. Their owners reap them. @return how many children it signalled.
 */
std::size_t endChildrenLeft();

}  // namespace abx::kernel
