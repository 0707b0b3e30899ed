#include "agent_runtime.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "agent_child_env.h"
#include "session_file.h"
#include "turn_items.h"
#include "turn_process.h"

namespace abx::plugins::agents {
namespace {

namespace fs = std::filesystem;
using sdk::Status;

std::optional<std::chrono::milliseconds> toMillis(const std::optional<double>& seconds) {
  if (!seconds || *seconds <= 0) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(*seconds * 1000.0 + 0.5));
}

// A private directory for one turn's files: 0700, removed afterwards;
// the agent's own when agents run as a child user.
std::optional<std::string> makeTurnDir() {
  std::error_code ec;
  auto base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / "abx-turn-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) return std::nullopt;
  if (!sdk::Subprocess::giveToChildUser(pattern)) {
    fs::remove_all(pattern, ec);
    return std::nullopt;
  }
  return pattern;
}

Status writeTurnFiles(const std::string& dir,
                      const std::vector<sdk::agents::InvocationFile>& files) {
  for (const auto& file : files) {
    fs::path rel(file.relpath);
    if (file.relpath.empty() || rel.is_absolute() ||
        std::any_of(rel.begin(), rel.end(), [](const fs::path& p) { return p == ".."; }))
      return Status::error("adapter file path '" + file.relpath + "' leaves the turn directory");
    fs::path path = fs::path(dir) / rel;
    std::error_code ec;
    for (fs::path p = dir; auto& part : rel.parent_path()) {
      p /= part;
      if (fs::create_directory(p, ec)) sdk::Subprocess::giveToChildUser(p.string());
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << file.content;
    if (!out) return Status::error("could not write " + file.relpath);
    out.close();
    ::chmod(path.c_str(), file.mode & 07777);
    if (auto given = sdk::Subprocess::giveToChildUser(path.string()); !given) return given;
  }
  return Status::ok();
}

std::string failureMessageFor(TurnStop stop, const sdk::agents::AgentSpec& spec) {
  auto seconds = [](const std::optional<double>& v) {
    auto text = std::to_string(v.value_or(0));
    text.erase(text.find_last_not_of('0') + 1);
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  };
  switch (stop) {
    case TurnStop::turn_timeout:
      return "turn timed out after " + seconds(spec.limits.turn_timeout_s) + " s";
    case TurnStop::idle_timeout:
      return "agent produced no output for " + seconds(spec.limits.idle_timeout_s) + " s";
    case TurnStop::output_limit:
      return "agent output passed max_output_bytes (" +
             std::to_string(spec.limits.max_output_bytes.value_or(0)) + ")";
    default:
      return {};
  }
}

}  // namespace

AgentRuntime::AgentRuntime(RuntimeOptions options, AgentResolver resolver)
    : options_(std::move(options)), resolver_(std::move(resolver)) {
  if (!options_.clock) options_.clock = std::make_shared<SystemRuntimeClock>();
  if (!options_.ids) options_.ids = randomId;
  if (!options_.base_env) options_.base_env = [] { return std::vector<std::string>{}; };
  // The writer and the workers start on first use (persist(), submitTurn()):
  // an idle server holds no thread (nor its stack) for them.
  if (!options_.state_dir.empty()) file_ = std::make_unique<SessionFile>(options_.state_dir);
}

Status AgentRuntime::startWorkersLocked() {
  if (!workers_.empty()) return Status::ok();
  const std::size_t workers = std::max<std::size_t>(options_.max_concurrent_turns, 1);
  try {
    for (std::size_t i = 0; i < workers; ++i) {
      workers_.emplace_back([this] { workerLoop(); });
      // Named here, not by the thread: named (ps -L, top -H) from the start.
      ::pthread_setname_np(workers_.back().native_handle(), "abx-agents-turn");
    }
  } catch (const std::system_error& e) {
    if (workers_.empty())
      return Status::error(std::string("cannot start a turn worker: ") + e.what(), "unavailable");
  }
  return Status::ok();
}

AgentRuntime::~AgentRuntime() { shutdown(); }

void AgentRuntime::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    for (auto& [id, state] : turns_) state.cancel->store(true);
  }
  work_.notify_all();
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
  workers_.clear();
  // Queued turns never run now: whoever waits for one is told it is gone.
  std::vector<TurnEndHook> unended;
  {
    std::lock_guard lock(mutex_);
    end_hooks_closed_ = true;
    for (auto& [id, hooks] : end_hooks_)
      for (auto& hook : hooks) unended.push_back(std::move(hook));
    end_hooks_.clear();
  }
  for (auto& hook : unended) hook(std::nullopt);
  // The last state is on disk before shutdown returns.
  bool unsaved = false;
  {
    std::lock_guard lock(persist_mutex_);
    writer_stopping_ = true;
    unsaved = dirty_ && !writer_.joinable();
  }
  persist_wanted_.notify_all();
  if (writer_.joinable()) writer_.join();
  if (unsaved) writeState();
}

Status AgentRuntime::restore() {
  if (!file_) return Status::ok();
  auto loaded = file_->load(options_.clock->unixSeconds());
  if (!loaded) return loaded.status();
  {
    std::lock_guard lock(mutex_);
    for (auto& record : loaded->sessions) {
      SessionState state;
      state.info = std::move(record);
      state.info.status = SessionStatus::idle;
      sessions_[state.info.id] = std::move(state);
    }
    for (auto& turn : loaded->turns) {
      TurnState state;
      state.turn = std::move(turn);
      turns_[state.turn.id] = std::move(state);
    }
  }
  if (loaded->interrupted) persist();
  return Status::ok();
}

sdk::Result<SessionInfo> AgentRuntime::createSession(const std::string& agent,
                                                     std::map<std::string, std::string> metadata,
                                                     std::string owner) {
  std::string why;
  if (!resolver_(agent, why)) return Status::error(why, "not_found");
  SessionInfo info;
  {
    std::lock_guard lock(mutex_);
    evictLocked();
    SessionState state;
    state.info.id = options_.ids("agsess");
    state.info.agent = agent;
    state.info.owner = std::move(owner);
    state.info.created_at = state.info.last_active_at = options_.clock->unixSeconds();
    state.info.metadata = std::move(metadata);
    info = state.info;
    sessions_[info.id] = std::move(state);
  }
  announceEnded();
  persist();
  return info;
}

void AgentRuntime::publish(const std::string& session_id, const RuntimeEvent& event,
                           const TurnObserver& observer) {
  if (observer) observer(event);
  if (options_.listener) options_.listener(session_id, event);
}

sdk::Result<Turn> AgentRuntime::submitTurn(const std::string& session_id, TurnRequest request) {
  Turn snapshot;
  TurnObserver observer = request.observer;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end())
      return Status::error("No session with id '" + session_id + "'.", "not_found");
    if (stopping_) return Status::error("the server is shutting down", "unavailable");
    if (auto started = startWorkersLocked(); !started) return started;
    TurnState state;
    state.turn.id = request.turn_id.empty() ? options_.ids("turn") : request.turn_id;
    if (turns_.count(state.turn.id))
      return Status::error("Turn id '" + state.turn.id + "' is taken.", "conflict");
    state.turn.session_id = session_id;
    state.turn.created_at = options_.clock->unixSeconds();
    state.turn.input = request.input;
    state.request = std::move(request);
    snapshot = state.turn;
    it->second.info.turn_ids.push_back(snapshot.id);
    it->second.info.last_active_at = snapshot.created_at;
    turns_[snapshot.id] = std::move(state);
  }
  // turn.queued goes out before a worker can see the turn, so no
  // turn.started can overtake it.
  RuntimeEvent queued;
  queued.type = "turn.queued";
  queued.turn_id = snapshot.id;
  queued.turn = std::make_shared<const Turn>(snapshot);
  publish(session_id, std::move(queued), observer);
  {
    std::lock_guard lock(mutex_);
    if (turns_.count(snapshot.id)) pending_.push_back(snapshot.id);
  }
  work_.notify_one();
  return snapshot;
}

void AgentRuntime::workerLoop() {
  std::unique_lock lock(mutex_);
  while (true) {
    std::string turn_id;
    work_.wait(lock, [&] {
      if (stopping_) return true;
      for (const auto& id : pending_) {
        auto& session = sessions_.at(turns_.at(id).turn.session_id);
        if (!session.running) return true;
      }
      return false;
    });
    if (stopping_) return;
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      auto& session = sessions_.at(turns_.at(*it).turn.session_id);
      if (session.running) continue;
      turn_id = *it;
      pending_.erase(it);
      session.running = true;
      break;
    }
    lock.unlock();
    try {
      runTurn(turn_id);
    } catch (const std::exception& e) {
      // Whatever escaped fails this turn only, never the server.
      finishTurn(turn_id, TurnStatus::failed,
                 TurnError{"internal_error", std::string("turn failed: ") + e.what()}, {}, {},
                 std::nullopt);
    }
    lock.lock();
    work_.notify_all();
  }
}

void AgentRuntime::runTurn(const std::string& turn_id) {
  std::string session_id, agent_name, native_id;
  sdk::agents::TokenUsage session_usage;
  TurnObserver observer;
  std::shared_ptr<std::atomic<bool>> cancel;
  TurnRequest request;
  {
    std::lock_guard lock(mutex_);
    auto& state = turns_.at(turn_id);
    session_id = state.turn.session_id;
    auto& session = sessions_.at(session_id);
    agent_name = session.info.agent;
    native_id = session.info.native_session_id;
    for (const auto& id : session.info.turn_ids) {
      auto earlier = turns_.find(id);
      if (id == turn_id || earlier == turns_.end()) continue;
      const auto& u = earlier->second.turn.usage;
      session_usage.input_tokens += u.input_tokens;
      session_usage.cached_input_tokens += u.cached_input_tokens;
      session_usage.output_tokens += u.output_tokens;
      session_usage.reasoning_tokens += u.reasoning_tokens;
      session_usage.cost_usd += u.cost_usd;
    }
    observer = state.request.observer;
    cancel = state.cancel;
    request = state.request;
    state.turn.status = TurnStatus::in_progress;
    state.turn.started_at = options_.clock->unixSeconds();
    session.info.status = SessionStatus::in_progress;
    session.info.last_active_at = state.turn.started_at;
  }
  {
    RuntimeEvent started;
    started.type = "turn.started";
    started.turn_id = turn_id;
    if (auto now = turn(turn_id)) started.turn = std::make_shared<const Turn>(std::move(*now));
    publish(session_id, std::move(started), observer);
  }
  // The turn directory is gone before the turn is reported finished.
  std::string turn_dir_path;
  auto removeTurnDir = [&] {
    if (turn_dir_path.empty()) return;
    std::error_code ec;
    fs::remove_all(turn_dir_path, ec);
    turn_dir_path.clear();
  };
  auto fail = [&](std::string code, std::string message) {
    removeTurnDir();
    finishTurn(turn_id, TurnStatus::failed, TurnError{std::move(code), std::move(message)}, {}, {},
               std::nullopt);
  };
  if (cancel->load()) {
    finishTurn(turn_id, TurnStatus::cancelled, std::nullopt, {}, {}, std::nullopt);
    return;
  }
  std::string why;
  auto agent = resolver_(agent_name, why);
  if (!agent || !agent->adapter) return fail("invalid_request", why);
  // Session vault tokens go to the matching MCP servers of this turn only.
  sdk::agents::AgentSpec bound_spec;
  const sdk::agents::AgentSpec* spec_ptr = &agent->spec;
  auto extra_mcp_servers = request.extra_mcp_servers;
  if (!request.mcp_bearer_tokens.empty()) {
    bound_spec = agent->spec;
    applyMcpBearers(bound_spec.mcp_servers, request.mcp_bearer_tokens);
    applyMcpBearers(extra_mcp_servers, request.mcp_bearer_tokens);
    spec_ptr = &bound_spec;
  }
  const auto& spec = *spec_ptr;
  const auto& adapter = *agent->adapter;
  auto redaction = agent->redaction;
  {
    auto extra = request.extra_secrets;
    for (const auto& [name, value] : request.secret_env) extra.push_back(value);
    for (const auto& [url, token] : request.mcp_bearer_tokens) extra.push_back(token);
    if (!extra.empty() && options_.redaction_for) redaction = options_.redaction_for(spec, extra);
  }

  sdk::agents::TurnContext ctx;
  ctx.spec = &spec;
  ctx.prompt = request.prompt;
  ctx.extra_instructions = request.extra_instructions;
  if (!native_id.empty()) ctx.native_session_id = native_id;
  ctx.is_first_turn = native_id.empty();
  ctx.workdir = spec.workspace.path;
  ctx.extra_mcp_servers = std::move(extra_mcp_servers);
  ctx.reasoning_effort = request.reasoning_effort;
  ctx.session_usage = session_usage;
  {
    std::error_code ec;
    fs::create_directories(ctx.workdir, ec);
    if (ec)
      return fail("sandbox_error",
                  "could not create workspace " + ctx.workdir + ": " + ec.message());
  }
  auto turn_dir = makeTurnDir();
  if (!turn_dir) return fail("sandbox_error", "could not create the turn directory");
  ctx.turn_dir = turn_dir_path = *turn_dir;

  sdk::agents::Invocation invocation;
  std::unique_ptr<sdk::agents::EventParser> parser;
  sdk::agents::EnvList credentials;
  try {
    auto built = adapter.buildInvocation(ctx);
    if (!built) return fail("invalid_request", redaction->redact(built.status().message()));
    invocation = std::move(*built);
    parser = adapter.newParser(ctx);
    credentials = adapter.credentialEnv(spec);
  } catch (const std::exception& e) {
    return fail("internal_error", redaction->redact(e.what()));
  }
  if (!parser || invocation.argv.empty())
    return fail("internal_error", "adapter '" + adapter.name() + "' built no command");
  if (auto s = writeTurnFiles(ctx.turn_dir, invocation.files); !s)
    return fail("internal_error", s.message());

  sdk::SpawnOptions spawn;
  spawn.argv = invocation.argv;
  spawn.cwd = invocation.cwd.empty() ? ctx.workdir : invocation.cwd;
  auto secrets = spec.secrets;
  secrets.insert(secrets.end(), request.secret_env.begin(), request.secret_env.end());
  spawn.env = buildAgentEnv({options_.base_env(), options_.passthrough_env, credentials, spec.env,
                             secrets, invocation.env});

  TurnProcessLimits limits;
  limits.turn_timeout = toMillis(spec.limits.turn_timeout_s);
  limits.idle_timeout = toMillis(spec.limits.idle_timeout_s);
  if (spec.limits.max_output_bytes && *spec.limits.max_output_bytes > 0)
    limits.max_output_bytes = static_cast<std::uint64_t>(*spec.limits.max_output_bytes);
  limits.ladder = options_.ladder;

  TurnItems items(turn_id, adapter.name(), *redaction, options_.ids, *options_.clock,
                  [&](RuntimeEvent event) {
                    if (event.item) {
                      std::lock_guard lock(mutex_);
                      auto& stored = turns_.at(turn_id).turn.items;
                      auto it = std::find_if(stored.begin(), stored.end(),
                                             [&](const Item& i) { return i.id == event.item_id; });
                      if (it == stored.end())
                        stored.push_back(*event.item);
                      else
                        *it = *event.item;
                    }
                    publish(session_id, std::move(event), observer);
                  });
  std::vector<sdk::agents::ParsedEvent> parsed;
  auto outcome =
      runTurnProcess(spawn, invocation.stdin_data, limits, *cancel, [&](std::string_view line) {
        parsed.clear();
        parser->feed(line, parsed);
        for (const auto& e : parsed) items.apply(e);
      });
  std::optional<TurnError> error;
  if (outcome.stop == TurnStop::exited) {
    try {
      parsed.clear();
      parser->finish(outcome.exit_code, parsed);
      for (const auto& e : parsed) items.apply(e);
    } catch (const std::exception& e) {
      outcome.stop = TurnStop::line_rejected;
      outcome.handler_error = e.what();
    }
  }
  TurnStatus status = TurnStatus::failed;
  switch (outcome.stop) {
    case TurnStop::cancelled:
      status = TurnStatus::cancelled;
      break;
    case TurnStop::spawn_failed:
      error = outcome.spawn_error_type == "FileNotFoundError"
                  ? TurnError{"runtime_not_installed", "agent CLI '" + invocation.argv.front() +
                                                           "' is not installed (not found on PATH)"}
                  : TurnError{"sandbox_error", redaction->redact(outcome.spawn_error)};
      break;
    case TurnStop::turn_timeout:
    case TurnStop::idle_timeout:
      error = TurnError{"request_timeout", failureMessageFor(outcome.stop, spec)};
      break;
    case TurnStop::output_limit:
      error = TurnError{"output_limit_exceeded", failureMessageFor(outcome.stop, spec)};
      break;
    case TurnStop::line_rejected:
      error = TurnError{"internal_error", "the " + adapter.name() + " output parser failed: " +
                                              redaction->redact(outcome.handler_error)};
      break;
    case TurnStop::exited: {
      const auto& reported = items.reportedFailure();
      if (outcome.exit_code == 0 && !reported) {
        status = TurnStatus::completed;
        break;
      }
      // Classify on everything the CLI said: its stderr and the error it
      // reported on stdout (claude reports a bad key only there).
      std::string said = redaction->redact(outcome.stderr_tail);
      if (reported) said += "\n" + reported->message;
      auto info = adapter.classifyFailure(outcome.exit_code, said);
      if (reported && reported->code != "internal_error")
        error = *reported;
      else if (info.code == "internal_error" && reported)
        error = TurnError{info.code, reported->message};
      else
        error = TurnError{info.code, redaction->redact(info.message)};
      break;
    }
  }
  items.closeOpen(status == TurnStatus::completed);
  removeTurnDir();
  finishTurn(turn_id, status, std::move(error), items.items(), items.usage(),
             items.nativeSessionId());
}

void AgentRuntime::finishTurn(const std::string& turn_id, TurnStatus status,
                              std::optional<TurnError> error, std::vector<Item> items,
                              sdk::agents::TokenUsage usage,
                              std::optional<std::string> native_session_id) {
  RuntimeEvent done;
  std::string session_id;
  TurnObserver observer;
  std::vector<TurnEndHook> hooks;
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(turn_id);
    if (it == turns_.end()) return;
    auto& state = it->second;
    state.turn.status = status;
    state.turn.error = std::move(error);
    if (!items.empty() || status != TurnStatus::cancelled) state.turn.items = std::move(items);
    state.turn.usage = usage;
    state.turn.completed_at = options_.clock->unixSeconds();
    observer = std::move(state.request.observer);
    // Nothing of the request outlives the turn (it may hold per-turn secrets).
    state.request = TurnRequest{};
    session_id = state.turn.session_id;
    if (auto s = sessions_.find(session_id); s != sessions_.end()) {
      if (native_session_id) s->second.info.native_session_id = *native_session_id;
      s->second.info.status = SessionStatus::idle;
      s->second.info.last_active_at = state.turn.completed_at;
      s->second.running = false;
    }
    done.type = std::string("turn.") + turnStatusName(status);
    done.turn_id = turn_id;
    done.turn = std::make_shared<const Turn>(state.turn);
    hooks = takeEndHooksLocked(turn_id);
    if (!sessions_.count(session_id)) turns_.erase(it);
  }
  for (auto& hook : hooks) hook(*done.turn);
  publish(session_id, std::move(done), observer);
  turn_changed_.notify_all();
  persist();
}

sdk::Result<Turn> AgentRuntime::cancelTurn(const std::string& turn_id) {
  bool was_queued = false;
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(turn_id);
    if (it == turns_.end()) return Status::error("No turn with id '" + turn_id + "'.", "not_found");
    auto& state = it->second;
    if (isTerminal(state.turn.status)) return state.turn;
    state.cancel->store(true);
    if (state.turn.status == TurnStatus::queued) {
      auto pos = std::find(pending_.begin(), pending_.end(), turn_id);
      if (pos != pending_.end()) {
        pending_.erase(pos);
        was_queued = true;
      }
    }
  }
  if (was_queued) {
    // Never started: the session's running flag is not this turn's to clear.
    RuntimeEvent done;
    std::string session_id;
    TurnObserver observer;
    std::vector<TurnEndHook> hooks;
    {
      std::lock_guard lock(mutex_);
      auto& state = turns_.at(turn_id);
      state.turn.status = TurnStatus::cancelled;
      state.turn.completed_at = options_.clock->unixSeconds();
      observer = std::move(state.request.observer);
      state.request = TurnRequest{};
      session_id = state.turn.session_id;
      done.type = "turn.cancelled";
      done.turn_id = turn_id;
      done.turn = std::make_shared<const Turn>(state.turn);
      hooks = takeEndHooksLocked(turn_id);
    }
    for (auto& hook : hooks) hook(*done.turn);
    publish(session_id, std::move(done), observer);
    turn_changed_.notify_all();
    persist();
  }
  auto snapshot = turn(turn_id);
  if (!snapshot) return Status::error("No turn with id '" + turn_id + "'.", "not_found");
  return *snapshot;
}

std::optional<Turn> AgentRuntime::waitTurn(const std::string& turn_id,
                                           std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  std::optional<Turn> out;
  turn_changed_.wait_for(lock, timeout, [&] {
    auto it = turns_.find(turn_id);
    return it == turns_.end() || isTerminal(it->second.turn.status);
  });
  if (auto it = turns_.find(turn_id); it != turns_.end()) out = it->second.turn;
  return out;
}

void AgentRuntime::whenTurnEnds(const std::string& turn_id, TurnEndHook then) {
  std::optional<Turn> ended;
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(turn_id);
    // Checked and added under the lock that records a turn's end: an end
    // between the two cannot slip by.
    if (it != turns_.end() && !isTerminal(it->second.turn.status) && !end_hooks_closed_) {
      end_hooks_[turn_id].push_back(std::move(then));
      return;
    }
    if (it != turns_.end() && isTerminal(it->second.turn.status)) ended = it->second.turn;
  }
  then(ended);
}

std::vector<TurnEndHook> AgentRuntime::takeEndHooksLocked(const std::string& turn_id) {
  auto it = end_hooks_.find(turn_id);
  if (it == end_hooks_.end()) return {};
  auto hooks = std::move(it->second);
  end_hooks_.erase(it);
  return hooks;
}

std::optional<SessionInfo> AgentRuntime::session(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  return it->second.info;
}

std::vector<SessionInfo> AgentRuntime::sessions() const {
  std::lock_guard lock(mutex_);
  std::vector<SessionInfo> out;
  for (const auto& [id, s] : sessions_) out.push_back(s.info);
  return out;
}

std::optional<Turn> AgentRuntime::turn(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = turns_.find(id);
  if (it == turns_.end()) return std::nullopt;
  return it->second.turn;
}

void AgentRuntime::eraseSessionLocked(std::map<std::string, SessionState>::iterator it,
                                      std::string why) {
  for (const auto& turn_id : it->second.info.turn_ids) {
    auto t = turns_.find(turn_id);
    if (t == turns_.end()) continue;
    t->second.cancel->store(true);
    pending_.erase(std::remove(pending_.begin(), pending_.end(), turn_id), pending_.end());
    // The running turn keeps its record until its worker finishes it
    // (finishTurn then drops it: its session is gone).
    if (t->second.turn.status == TurnStatus::in_progress) continue;
    for (auto& hook : takeEndHooksLocked(turn_id)) orphaned_hooks_.push_back(std::move(hook));
    turns_.erase(t);
  }
  ended_.emplace_back(std::move(it->second.info), std::move(why));
  sessions_.erase(it);
}

void AgentRuntime::announceEnded() {
  std::vector<std::pair<SessionInfo, std::string>> ended;
  std::vector<TurnEndHook> orphaned;
  {
    std::lock_guard lock(mutex_);
    ended.swap(ended_);
    orphaned.swap(orphaned_hooks_);
  }
  for (auto& hook : orphaned) hook(std::nullopt);
  if (!options_.listener) return;
  for (auto& [info, why] : ended) {
    RuntimeEvent event;
    event.type = "session.ended";
    event.delta = std::move(why);
    const std::string id = info.id;
    event.session = std::make_shared<const SessionInfo>(std::move(info));
    options_.listener(id, event);
  }
}

bool AgentRuntime::deleteSession(const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    eraseSessionLocked(it, "The session was deleted.");
  }
  announceEnded();
  turn_changed_.notify_all();
  persist();
  return true;
}

bool AgentRuntime::setMetadata(const std::string& id, std::map<std::string, std::string> metadata) {
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    it->second.info.metadata = std::move(metadata);
  }
  persist();
  return true;
}

bool AgentRuntime::forgetTurn(const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(id);
    if (it == turns_.end() || !isTerminal(it->second.turn.status)) return false;
    if (auto s = sessions_.find(it->second.turn.session_id); s != sessions_.end()) {
      auto& ids = s->second.info.turn_ids;
      ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
    }
    turns_.erase(it);
  }
  persist();
  return true;
}

void AgentRuntime::evictLocked() {
  const auto now = options_.clock->unixSeconds();
  auto busy = [&](const SessionState& s) {
    if (s.running) return true;
    for (const auto& id : s.info.turn_ids)
      if (auto t = turns_.find(id); t != turns_.end() && !isTerminal(t->second.turn.status))
        return true;
    return false;
  };
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    auto next = std::next(it);
    if (!busy(it->second) && now - it->second.info.last_active_at > options_.session_ttl_s)
      eraseSessionLocked(it, "The session expired: it was idle longer than " +
                                 std::to_string(options_.session_ttl_s) +
                                 " s (ABX_AGENTS_SESSION_TTL_S).");
    it = next;
  }
  // Room for the session about to be created: drop the least recently
  // active idle ones; running sessions are never evicted.
  while (sessions_.size() >= options_.max_sessions) {
    auto victim = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (!busy(it->second) &&
          (victim == sessions_.end() ||
           it->second.info.last_active_at < victim->second.info.last_active_at))
        victim = it;
    if (victim == sessions_.end()) break;
    eraseSessionLocked(victim, "The session was evicted: the server keeps at most " +
                                   std::to_string(options_.max_sessions) +
                                   " sessions (ABX_AGENTS_MAX_SESSIONS).");
  }
}

void AgentRuntime::persist() {
  if (!file_) return;
  {
    std::lock_guard lock(persist_mutex_);
    dirty_ = true;
    if (!writer_.joinable() && !writer_stopping_) {
      try {
        writer_ = std::thread([this] { writerLoop(); });
        ::pthread_setname_np(writer_.native_handle(), "abx-agents-save");
      } catch (const std::system_error&) {
        // No thread to be had: the next persist() tries again, shutdown() saves.
      }
    }
  }
  persist_wanted_.notify_one();
}

void AgentRuntime::writerLoop() {
  std::unique_lock lock(persist_mutex_);
  while (true) {
    persist_wanted_.wait(lock, [&] { return dirty_ || writer_stopping_; });
    if (dirty_) {
      // One write covers every change made before it starts.
      dirty_ = false;
      lock.unlock();
      writeState();
      lock.lock();
    }
    if (writer_stopping_ && !dirty_) return;
  }
}

void AgentRuntime::writeState() {
  std::vector<SessionInfo> sessions;
  std::vector<Turn> turns;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, s] : sessions_) sessions.push_back(s.info);
    for (const auto& [id, t] : turns_) turns.push_back(t.turn);
  }
  (void)file_->save(sessions, turns);
}

}  // namespace abx::plugins::agents
