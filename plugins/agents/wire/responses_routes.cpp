#include "responses_routes.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <variant>

#include "abx/sdk/policy_limits.h"
#include "abx/sdk/route_table.h"
#include "definition_lock.h"
#include "event_position.h"
#include "openai_error.h"
#include "ownership.h"
#include "response_object.h"
#include "responses_request.h"
#include "runtime/id_factory.h"
#include "wire_route.h"

namespace abx::plugins::agents {
namespace {

using std::chrono::milliseconds;
using Ctx = std::shared_ptr<const ResponsesContext>;

constexpr const char* kScope = "agents:run";
constexpr milliseconds kReadSlice{1000};

sdk::Response notFoundResponse(const std::string& id) {
  return openAiError(
      {.status = 404, .message = "No response with id '" + id + "' found.", .code = "not_found"});
}

// The echo of a response: its run's if still held, else rebuilt from the turn.
ResponseEcho echoFor(const ResponsesContext& ctx, const std::string& response_id,
                     const Turn& turn) {
  if (auto run = ctx.store->find(response_id)) return run->echo();
  ResponseEcho echo;
  if (auto session = ctx.runtime->session(turn.session_id)) echo.model = session->agent;
  return echo;
}

// What a detached Responses stream sends: the run's events after a
// sequence number, pulled by the event loop from the run's history.
class ResponseFeed final : public sdk::SseFeed {
 public:
  ResponseFeed(std::shared_ptr<ResponseRun> run, int reader, std::int64_t after)
      : run_(std::move(run)), reader_(reader), after_(after) {}
  ~ResponseFeed() override { run_->detach(reader_); }
  Pull pull(std::string& out, std::size_t budget) override {
    return run_->pull(reader_, after_, out, budget);
  }

 private:
  const std::shared_ptr<ResponseRun> run_;
  const int reader_;
  const std::int64_t after_;
};

// Streams a run's events to @p sse from the first one, skipping sequence
// numbers <= @p after: from the event loop (the handler's thread is then
// free at once), or on this thread until the run ends when the stream
// cannot be detached. @return false if the run's start is gone.
bool streamRun(const std::shared_ptr<ResponseRun>& shared_run, sdk::SseStream& sse,
               std::int64_t after) {
  ResponseRun& run = *shared_run;
  const int reader = run.attach();
  if (reader < 0) return false;
  sse.begin();
  // The feed lets the reader go when it ends, on the loop or here.
  auto feed = std::make_shared<ResponseFeed>(shared_run, reader, after);
  if (auto waker = sse.detach(feed)) {
    run.setWaker(reader, waker);
    waker->wake();  // events pushed before setWaker woke no one
    return true;
  }
  std::vector<ResponseRun::Event> events;
  std::vector<sdk::SseStream::Event> batch;
  bool more = true;
  while (more && sse.open()) {
    events.clear();
    batch.clear();
    more = run.read(reader, events, kReadSlice);
    for (const auto& e : events)
      if (e.sequence_number > after) batch.push_back({e.type, e.data(), {}});
    if (!batch.empty() && !sse.events(batch)) break;
  }
  return true;
}

// A finished turn replayed as if it were streamed again: created,
// in_progress, each item in full (one delta), the terminal event. The whole
// replay is kept (a reader holds its start while it is built), however long.
std::shared_ptr<ResponseRun> replayOf(const Turn& turn, const ResponseEcho& echo) {
  auto run = std::make_shared<ResponseRun>(responseIdForTurn(turn.id), turn.created_at, echo);
  const int holder = run->attach(/*pinned=*/true);
  RuntimeEvent started;
  started.type = "turn.started";
  run->onEvent(started);
  for (const auto& item : turn.items) {
    RuntimeEvent added;
    added.type = "item.added";
    added.item_id = item.id;
    added.item = std::make_shared<const Item>(item);
    run->onEvent(added);
    if (!item.text.empty() && (item.type == "message" || item.type == "reasoning")) {
      RuntimeEvent delta;
      delta.type = item.type == "message" ? "item.text.delta" : "item.reasoning.delta";
      delta.item_id = item.id;
      delta.delta = item.text;
      run->onEvent(delta);
    }
    RuntimeEvent done = added;
    done.type = "item.done";
    run->onEvent(done);
  }
  if (isTerminal(turn.status)) {
    RuntimeEvent end;
    end.type = std::string("turn.") + turnStatusName(turn.status);
    end.turn = std::make_shared<const Turn>(turn);
    run->onEvent(end);
  }
  run->detach(holder);
  return run;
}

// A finished turn's replay as one whole SSE answer (for a request that
// waited for the end without a stream of its own).
sdk::Response replayAnswer(const Turn& turn, const ResponseEcho& echo, std::int64_t after) {
  auto run = replayOf(turn, echo);
  const int reader = run->attach();
  sdk::Response answer;
  answer.content_type = "text/event-stream";
  answer.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  run->pull(reader, after, answer.body, SIZE_MAX);  // all of it: the run is finished
  run->detach(reader);
  return answer;
}

// Makes the answer to a turn's end (nullopt: the turn went without one),
// doing first whatever must precede it (forgetting an unstored turn).
using TurnAnswer = std::function<sdk::Response(const std::optional<Turn>&)>;

// Answers with @p answer when the turn has ended. The request waits
// without a thread: on the event loop, answered from the runtime's end
// hook. The answer is made even when no one waits any more (the client
// left, the server stops). Only a stream that cannot wait on the loop (a
// test double) waits on this thread.
std::optional<sdk::Response> answerAtTurnEnd(const Ctx& ctx, sdk::SseStream& sse,
                                             const std::string& turn_id, TurnAnswer answer) {
  auto deferred = sse.defer({});
  if (deferred || !sse.open()) {
    ctx->runtime->whenTurnEnds(turn_id, [deferred, answer](const std::optional<Turn>& turn) {
      auto made = answer(turn);
      if (deferred) deferred->answer(std::move(made));
    });
    return std::nullopt;
  }
  auto ended = std::make_shared<std::promise<sdk::Response>>();
  auto given = ended->get_future();
  ctx->runtime->whenTurnEnds(turn_id, [ended, answer](const std::optional<Turn>& turn) {
    ended->set_value(answer(turn));
  });
  return given.get();
}

sdk::Response lostTurnResponse() {
  return openAiError(
      {.status = 500, .message = "The response's turn was lost.", .code = "internal_error"});
}

constexpr char kIgnoredParamsHeader[] = "X-Agent-Sandbox-Ignored-Params";

// Names the request parameters this server accepted but ignores.
sdk::Response withIgnoredParams(sdk::Response response, const std::string& ignored) {
  if (!ignored.empty()) response.headers.emplace_back(kIgnoredParamsHeader, ignored);
  return response;
}

std::int64_t startingAfter(const sdk::Request& r) {
  auto text = r.queryParam("starting_after");
  const auto position = text ? parseEventPosition(*text) : std::nullopt;
  if (!position) return -1;
  return static_cast<std::int64_t>(std::min<std::uint64_t>(*position, INT64_MAX));
}

std::optional<sdk::Response> getResponse(const Ctx& ctx, const sdk::Request& r,
                                         sdk::SseStream& sse) {
  const std::string id(r.param("id").value_or(""));
  auto turn = visibleTurn(*ctx->runtime, turnIdForResponse(id), r.identity);
  if (!turn) return notFoundResponse(id);
  const auto echo = echoFor(*ctx, id, *turn);
  if (r.queryParam("stream").value_or("false") != "true")
    return sdk::Response::json(responseJsonForTurn(*turn, echo));
  auto run = ctx->store->find(id);
  const auto after = startingAfter(r);
  if (run && streamRun(run, sse, after)) return std::nullopt;
  // No history to follow (an old response, one of the Agents wire, or one
  // whose history was cut): the replay of the final state, at once or when
  // the turn has ended.
  if (isTerminal(turn->status)) {
    streamRun(replayOf(*turn, echo), sse, after);
    return std::nullopt;
  }
  return answerAtTurnEnd(ctx, sse, turn->id, [id, echo, after](const std::optional<Turn>& ended) {
    return ended ? replayAnswer(*ended, echo, after) : notFoundResponse(id);
  });
}

// The session a request continues through previous_response_id, or its
// refusal: unknown (another identity's response is not found, neither its
// conversation nor whether it is the latest one leaks), not the latest, or
// another model.
std::variant<std::string, sdk::Response> chainedSession(const AgentRuntime& runtime,
                                                        const ResponsesRequest& req,
                                                        const sdk::Identity& caller) {
  const auto notFound = [&] {
    return openAiError(
        {.status = 404,
         .message = "Previous response with id '" + req.previous_response_id + "' not found.",
         .code = "previous_response_not_found",
         .param = "previous_response_id"});
  };
  auto previous = visibleTurn(runtime, turnIdForResponse(req.previous_response_id), caller);
  if (!previous) return notFound();
  auto session = visibleSession(runtime, previous->session_id, caller);
  if (!session) return notFound();
  if (session->turn_ids.empty() || session->turn_ids.back() != previous->id)
    return openAiError({.status = 400,
                        .message = "Previous response '" + req.previous_response_id +
                                   "' is not the latest response of its conversation; branching is "
                                   "not supported.",
                        .code = "previous_response_not_latest",
                        .param = "previous_response_id"});
  if (session->agent != req.model)
    return openAiError({.status = 400,
                        .message = "The model must stay '" + session->agent +
                                   "' across a conversation chained with previous_response_id.",
                        .code = "invalid_request",
                        .param = "model"});
  return session->id;
}

// What a response repeats of its request.
ResponseEcho echoOf(const ResponsesRequest& req) {
  ResponseEcho echo;
  echo.model = req.model;
  echo.instructions = req.instructions;
  echo.metadata = req.metadata;
  echo.tools_json = req.tools_json;
  echo.tool_choice = req.tool_choice;
  echo.temperature = req.temperature;
  echo.top_p = req.top_p;
  echo.parallel_tool_calls = req.parallel_tool_calls;
  echo.background = req.background;
  echo.store = req.store;
  echo.previous_response_id = req.previous_response_id;
  echo.reasoning_effort = req.reasoning_effort;
  return echo;
}

// The answer to a repeated request (an SDK retry, say): the original
// response, no new turn.
std::optional<sdk::Response> answerRepeat(const Ctx& ctx, const sdk::Request& r,
                                          sdk::SseStream& sse, const ResponsesRequest& req,
                                          const std::string& response_id, const Turn& turn,
                                          const std::string& ignored) {
  sdk::Request again = r;
  again.path_params["id"] = response_id;
  if (req.stream) again.query["stream"] = "true";
  if (req.stream || req.background) return getResponse(ctx, again, sse);
  const auto echo = echoFor(*ctx, response_id, turn);
  return answerAtTurnEnd(ctx, sse, turn.id, [echo, ignored](const std::optional<Turn>& ended) {
    if (!ended) return lostTurnResponse();
    return withIgnoredParams(sdk::Response::json(responseJsonForTurn(*ended, echo)), ignored);
  });
}

// The session the turn runs in: the one chained to, or a new one of the caller's.
std::variant<std::string, sdk::Response> sessionFor(const Ctx& ctx, const ResponsesRequest& req,
                                                    const sdk::Identity& caller) {
  if (!req.previous_response_id.empty()) return chainedSession(*ctx->runtime, req, caller);
  auto created = ctx->runtime->createSession(req.model, {}, caller.id);
  if (!created)
    return openAiError({.status = 404,
                        .message = created.status().message(),
                        .code = "model_not_found",
                        .param = "model"});
  return created->id;
}

// The turn a request asks for, its events told to @p run.
TurnRequest turnRequestOf(const ResponsesRequest& req, std::string turn_id,
                          std::shared_ptr<ResponseRun> run) {
  TurnRequest turn;
  turn.turn_id = std::move(turn_id);
  turn.prompt = req.previous_response_id.empty() ? promptWithPreface(req) : req.prompt;
  turn.extra_instructions = req.extra_instructions;
  turn.extra_mcp_servers = req.mcp_tools;
  turn.reasoning_effort = req.reasoning_effort;
  turn.input = req.input;
  for (auto& message : turn.input) message.id = randomId("msg");
  for (const auto& server : req.mcp_tools)
    for (const auto& header : server.headers) turn.extra_secrets.push_back(header.value);
  turn.observer = [run = std::move(run)](const RuntimeEvent& event) { run->onEvent(event); };
  return turn;
}

// The answer to a request whose turn was submitted: its stream, at once
// (background), or when the turn has ended.
std::optional<sdk::Response> answerSubmitted(const Ctx& ctx, sdk::SseStream& sse,
                                             const ResponsesRequest& req, const Turn& submitted,
                                             const std::shared_ptr<ResponseRun>& run,
                                             const std::string& ignored) {
  const std::string turn_id = submitted.id;
  // An unstored response (not background) is forgotten when its turn ends,
  // whether or not its client still waits: from the runtime's end hook, so
  // before the end is published (a stream's last event) or answered.
  const bool forget = !req.store && !req.background;
  auto forgetUnstored = [runtime = ctx->runtime, store = ctx->store, turn_id,
                         response_id = run->id()] {
    runtime->forgetTurn(turn_id);
    store->erase(response_id);
  };
  if (req.stream) {
    if (forget)
      ctx->runtime->whenTurnEnds(
          turn_id, [forgetUnstored](const std::optional<Turn>&) { forgetUnstored(); });
    streamRun(run, sse, -1);
    return std::nullopt;
  }
  const ResponseEcho& echo = run->echo();
  if (req.background)
    return withIgnoredParams(sdk::Response::json(responseJsonForTurn(submitted, echo)), ignored);
  return answerAtTurnEnd(
      ctx, sse, turn_id, [echo, ignored, forget, forgetUnstored](const std::optional<Turn>& ended) {
        if (forget) forgetUnstored();
        if (!ended) return lostTurnResponse();
        return withIgnoredParams(sdk::Response::json(responseJsonForTurn(*ended, echo)), ignored);
      });
}

std::optional<sdk::Response> createResponse(const Ctx& ctx, const sdk::Request& r,
                                            sdk::SseStream& sse) {
  auto parsed = parseResponsesRequest(r.json);
  if (auto* error = std::get_if<WireError>(&parsed)) return openAiError(*error);
  auto& req = std::get<ResponsesRequest>(parsed);
  if (auto locked =
          definitionLockRefusal(*ctx->catalog, {req.model, "model", !req.mcp_tools.empty(), false}))
    return openAiError(*locked);
  std::string ignored;
  for (const auto& name : req.ignored_params) ignored += (ignored.empty() ? "" : ",") + name;
  // A streamed answer names them too: on its 200 head, before any event.
  if (!ignored.empty()) sse.header(kIgnoredParamsHeader, ignored);

  // An Idempotency-Key is the caller's own: another identity's equal key is
  // a different key.
  const auto header = r.header("idempotency-key");
  const std::optional<std::string> key =
      header && !header->empty() ? std::optional(callerKey(r.identity, *header)) : std::nullopt;
  const auto earlier = key ? ctx->store->idempotent(*key, unixNow()) : std::nullopt;
  if (auto turn = earlier ? visibleTurn(*ctx->runtime, turnIdForResponse(*earlier), r.identity)
                          : std::nullopt)
    return answerRepeat(ctx, r, sse, req, *earlier, *turn, ignored);

  std::string why;
  if (!ctx->catalog->resolve(req.model, why))
    return openAiError(unresolvedAgent(*ctx->catalog, req.model, why, "model"));
  auto session = sessionFor(ctx, req, r.identity);
  if (auto* refusal = std::get_if<sdk::Response>(&session)) return *refusal;

  const std::string turn_id = randomId("turn");
  const std::string response_id = responseIdForTurn(turn_id);
  auto run = std::make_shared<ResponseRun>(response_id, unixNow(), echoOf(req));
  ctx->store->add(run);
  auto turn = turnRequestOf(req, turn_id, run);
  turn.max_duration = sdk::policyMaxDuration(r.policy);
  auto submitted = ctx->runtime->submitTurn(std::get<std::string>(session), std::move(turn));
  if (!submitted) {
    ctx->store->erase(response_id);
    return openAiError(
        {.status = 500, .message = submitted.status().message(), .code = "internal_error"});
  }
  if (key) ctx->store->remember(*key, response_id, unixNow());
  return answerSubmitted(ctx, sse, req, *submitted, run, ignored);
}

sdk::Response deleteResponse(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  const std::string turn_id = turnIdForResponse(id);
  auto turn = visibleTurn(*ctx->runtime, turn_id, r.identity);
  if (!turn) return notFoundResponse(id);
  if (!isTerminal(turn->status)) {
    (void)ctx->runtime->cancelTurn(turn_id);
    ctx->runtime->waitTurn(turn_id, ctx->cancel_wait);
  }
  ctx->runtime->forgetTurn(turn_id);
  ctx->store->erase(id);
  return deletedResponse(id, "response.deleted");
}

sdk::Response cancelResponse(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  const std::string turn_id = turnIdForResponse(id);
  auto turn = visibleTurn(*ctx->runtime, turn_id, r.identity);
  if (!turn) return notFoundResponse(id);
  const auto echo = echoFor(*ctx, id, *turn);
  if (!echo.background)
    return openAiError({.status = 400,
                        .message = "Only responses created with background: true can be cancelled.",
                        .code = "invalid_request"});
  if (!isTerminal(turn->status)) {
    (void)ctx->runtime->cancelTurn(turn_id);
    if (auto after = ctx->runtime->waitTurn(turn_id, ctx->cancel_wait)) turn = after;
  }
  return sdk::Response::json(responseJsonForTurn(*turn, echo));
}

sdk::Response inputItems(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto turn = visibleTurn(*ctx->runtime, turnIdForResponse(id), r.identity);
  if (!turn) return notFoundResponse(id);
  PageItems items;
  for (const auto& message : turn->input) items.emplace_back(message.id, inputItemJson(message));
  return pageResponse(r, std::move(items));
}

}  // namespace

sdk::Status addResponsesRoutes(sdk::RouteRegistry& registry, Ctx context) {
  return sdk::addSharedRoutes(registry, "agents", std::move(context),
                              {
                                  {"POST",
                                   "/v1/responses",
                                   "responses_create",
                                   "Run a turn of an agent (JSON, SSE with stream, or background)",
                                   {kScope},
                                   nullptr,
                                   &createResponse},
                                  {"GET",
                                   "/v1/responses/{id}",
                                   "responses_get",
                                   "A response; ?stream=true replays and follows its events",
                                   {kScope},
                                   nullptr,
                                   &getResponse},
                                  {"DELETE",
                                   "/v1/responses/{id}",
                                   "responses_delete",
                                   "Delete a response",
                                   {kScope},
                                   &deleteResponse},
                                  {"POST",
                                   "/v1/responses/{id}/cancel",
                                   "responses_cancel",
                                   "Cancel a background response",
                                   {kScope},
                                   &cancelResponse},
                                  {"GET",
                                   "/v1/responses/{id}/input_items",
                                   "responses_input_items",
                                   "The input messages of a response",
                                   {kScope},
                                   &inputItems},
                              });
}

}  // namespace abx::plugins::agents
