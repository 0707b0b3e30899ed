// Workspace bootstrap: a definition's `workspace.git` checked out into its
// workspace before the agent runs, on the turn's worker. A shallow
// `git clone` (a full commit sha: init + fetch of that commit), shown to the
// session as one command_execution item; a workspace that already holds a
// checkout of the same URL is used as it is. The token (and a password in
// the URL) reaches git only as an `http.<origin>/.extraHeader` in
// GIT_CONFIG_* environment entries: never on argv, never in .git/config,
// and every text that leaves goes through the turn's redaction.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/subprocess.h"
#include "runtime_types.h"
#include "text_redaction.h"

namespace abx::plugins::agents {

class TurnItems;
struct TurnLaunch;
struct RuntimeOptions;

/** A git URL split for cloning: the URL git is given (and keeps as
 *  remote.origin.url) carries no password; the credential goes to a header. */
struct GitRemote {
  std::string url;      /**< without the user info's password (https: without any user info) */
  std::string origin;   /**< scheme://host[:port]/ of an https URL, else "" */
  std::string user;     /**< https: the URL's user name, if it had one */
  std::string password; /**< https: the URL's password, if it had one */
  bool has_credential = false; /**< https: the URL had user info (sent as a header instead) */
};

GitRemote splitGitRemote(std::string_view url);

/** A full commit id (40 or 64 hex digits): fetched by id instead of cloned by name. */
bool isCommitId(std::string_view ref);

/** What the clone's git children run with. */
struct GitPlan {
  std::vector<std::vector<std::string>> steps; /**< argv of each git child, in order */
  std::vector<std::string> env;                /**< "NAME=value", the whole environment */
  std::string display;                         /**< the command line shown to the session */
};

/**
 * The plan for checking @p git out into @p dest with history @p depth. @p base
 * is the server's child environment (only the agent allowlist of it is
 * kept), @p is_protected the host's ChildEnvironment::isProtected.
 */
GitPlan gitClonePlan(const sdk::agents::GitSpec& git, const std::string& dest, int depth,
                     const std::vector<std::string>& base,
                     const std::function<bool(std::string_view)>& is_protected);

struct BootstrapRequest {
  const sdk::agents::GitSpec* git = nullptr;
  std::string workspace; /**< the definition's workspace.path: where the checkout goes */
  /** The turn's working directory (the workspace or a directory in it), made after the checkout. */
  std::string workdir;
  int depth = 1;
  std::vector<std::string> base_env;
  std::function<bool(std::string_view)> is_protected;
  std::chrono::milliseconds timeout{600000};
  sdk::KillLadder ladder;
  const TextRedaction* redaction = nullptr; /**< the turn's: every error message goes through it */
};

/**
 * Makes sure @p request.workspace holds the checkout: clones when it is
 * absent or empty (the item and its output go to @p items), reuses a
 * checkout of the same URL, refuses anything else. Serialised per
 * workspace: sessions of one agent share it. @return the error that fails
 * the turn (a failed clone leaves the workspace empty again); code
 * "cancelled" when @p cancel stopped it.
 */
std::optional<TurnError> bootstrapWorkspace(const BootstrapRequest& request,
                                            const std::atomic<bool>& cancel, TurnItems& items);

/**
 * bootstrapWorkspace() for a prepared turn whose agent has `workspace.git`
 * (nothing to do, nullopt, for one without): its workspace and working
 * directory, the server's child environment, the turn's redaction, and a
 * deadline of ten minutes or the turn's timeout if that is shorter.
 */
std::optional<TurnError> bootstrapTurnWorkspace(const TurnLaunch& launch,
                                                const RuntimeOptions& options,
                                                const std::atomic<bool>& cancel, TurnItems& items);

}  // namespace abx::plugins::agents
