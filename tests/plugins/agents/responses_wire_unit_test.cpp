// The Responses wire's pure parts: request parsing and its refusals, the
// mapping of runtime events onto the Responses stream, the Response object,
// and list pagination.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "wire/list_page.h"
#include "wire/response_object.h"
#include "wire/response_run.h"
#include "wire/responses_request.h"

namespace abx::plugins::agents {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The body as the pipeline hands it over (r.json); text that is not JSON
// reaches the reader as a missing value, which it refuses like any non-object.
std::variant<ResponsesRequest, WireError> readBody(const std::string& body) {
  auto json = sdk::Json::parse(body);
  return parseResponsesRequest(json ? *json : sdk::Json::missing());
}

ResponsesRequest parse(const std::string& body) {
  auto parsed = readBody(body);
  if (auto* e = std::get_if<WireError>(&parsed)) ADD_FAILURE() << e->message;
  return std::get_if<ResponsesRequest>(&parsed) ? std::get<ResponsesRequest>(parsed)
                                                : ResponsesRequest{};
}

WireError refusal(const std::string& body) {
  auto parsed = readBody(body);
  EXPECT_TRUE(std::holds_alternative<WireError>(parsed)) << body;
  return std::holds_alternative<WireError>(parsed) ? std::get<WireError>(parsed) : WireError{};
}

Poco::JSON::Object::Ptr json(std::string_view text) {
  Poco::JSON::Parser parser;
  return parser.parse(std::string(text)).extract<Poco::JSON::Object::Ptr>();
}

TEST(ResponsesRequest, StringInputIsThePrompt) {
  auto r = parse(R"({"model":"codex","input":"fix it","instructions":"be brief"})");
  EXPECT_EQ(r.model, "codex");
  EXPECT_EQ(r.prompt, "fix it");
  EXPECT_EQ(r.extra_instructions, "be brief");
  EXPECT_EQ(r.preface, "");
  ASSERT_EQ(r.input.size(), 1u);
  EXPECT_EQ(r.input[0].role, "user");
}

TEST(ResponsesRequest, MessageListGivesPromptInstructionsAndPreface) {
  auto r = parse(R"({"model":"m","input":[
    {"role":"developer","content":"dev rule"},
    {"role":"user","content":[{"type":"input_text","text":"first"}]},
    {"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer"}]},
    {"type":"mcp_call","id":"mcp_1","name":"x","arguments":"{}","server_label":"codex"},
    {"role":"user","content":"second"}]})");
  EXPECT_EQ(r.prompt, "second");
  EXPECT_EQ(r.extra_instructions, "dev rule");
  EXPECT_EQ(r.preface, "User: first\n\nAssistant: answer\n\n");
  EXPECT_EQ(r.input.size(), 4u);
  EXPECT_EQ(
      promptWithPreface(r),
      "Conversation so far:\n\nUser: first\n\nAssistant: answer\n\nCurrent request:\n\nsecond");
}

TEST(ResponsesRequest, PrefaceKeepsTheNewest64KiB) {
  std::string old(70000, 'a');
  auto r = parse(R"({"model":"m","input":[{"role":"user","content":")" + old +
                 R"("},{"role":"assistant","content":"recent"},{"role":"user","content":"now"}]})");
  EXPECT_EQ(r.preface.size(), kMaxPrefaceBytes);
  EXPECT_THAT(r.preface, HasSubstr("Assistant: recent"));
}

TEST(ResponsesRequest, McpToolHeadersAreKeptButMaskedInTheEcho) {
  auto r = parse(R"({"model":"m","input":"x","tools":[{"type":"mcp","server_label":"docs",
    "server_url":"https://mcp.example/mcp","headers":{"Authorization":"Bearer tok-123456"}}]})");
  ASSERT_EQ(r.mcp_tools.size(), 1u);
  EXPECT_EQ(r.mcp_tools[0].name, "docs");
  ASSERT_EQ(r.mcp_tools[0].headers.size(), 1u);
  EXPECT_EQ(r.mcp_tools[0].headers[0].value, "Bearer tok-123456");
  EXPECT_TRUE(r.mcp_tools[0].headers[0].secret);
  EXPECT_THAT(r.tools_json, Not(HasSubstr("tok-123456")));
  EXPECT_THAT(r.tools_json, HasSubstr("***"));
}

TEST(ResponsesRequest, SamplingParametersAreIgnoredByName) {
  auto r = parse(R"({"model":"m","input":"x","temperature":0.3,"max_output_tokens":5,
    "truncation":null,"include":[],"tools":[],"store":true,"user":"u"})");
  EXPECT_THAT(r.ignored_params, ElementsAre("max_output_tokens", "temperature"));
  EXPECT_EQ(*r.temperature, 0.3);
}

TEST(ResponsesRequest, RefusesWhatAnAgentRuntimeCannotHonour) {
  EXPECT_EQ(refusal(R"({"input":"x"})").param, "model");
  EXPECT_EQ(refusal(R"({"model":"m"})").param, "input");
  EXPECT_EQ(refusal("not json").status, 400);
  EXPECT_EQ(refusal(R"({"model":"m","input":[{"role":"assistant","content":"only me"}]})").param,
            "input");
  auto image = refusal(R"({"model":"m","input":[{"role":"user","content":[
      {"type":"input_image","image_url":"u"}]}]})");
  EXPECT_EQ(image.code, "unsupported_parameter");
  auto function = refusal(
      R"({"model":"m","input":"x","tools":[{"type":"function","name":"f","parameters":{}}]})");
  EXPECT_EQ(function.code, "unsupported_parameter");
  EXPECT_EQ(function.param, "tools");
  EXPECT_EQ(refusal(R"({"model":"m","input":"x","tool_choice":"required"})").param, "tool_choice");
  EXPECT_EQ(refusal(R"({"model":"m","input":"x","text":{"format":{"type":"json_object"}}})").param,
            "text.format");
  EXPECT_EQ(refusal(R"({"model":"m","input":"x","conversation":"c"})").param, "conversation");
  EXPECT_EQ(refusal(R"({"model":"m","input":"x","tools":[{"type":"mcp"}]})").param, "tools");
}

std::string mcpTool(const std::string& fields) {
  return R"({"model":"m","input":"x","tools":[{"type":"mcp","server_label":"docs",)"
         R"("server_url":"https://mcp.example/mcp")" +
         fields + "}]}";
}

// Names reach adapters that join them into argv (Claude Code's comma-separated
// --allowedTools): the same rule as a definition's MCP servers and tools.
TEST(ResponsesRequest, McpNamesUrlsAndHeadersFollowTheDefinitionRules) {
  auto r = parse(mcpTool(R"(,"allowed_tools":["read_file","list-dir"])"));
  ASSERT_EQ(r.mcp_tools.size(), 1u);
  EXPECT_EQ(r.mcp_tools[0].allowed_tools, (std::vector<std::string>{"read_file", "list-dir"}));
  auto filter = parse(mcpTool(R"(,"allowed_tools":{"tool_names":["search"],"read_only":false})"));
  EXPECT_EQ(filter.mcp_tools[0].allowed_tools, std::vector<std::string>{"search"});

  const std::pair<std::string, std::string> bad[] = {
      {R"(,"allowed_tools":["ok","t,Bash"])", "tools[0].allowed_tools[1]"},
      {R"(,"allowed_tools":["t Bash"])", "tools[0].allowed_tools[0]"},
      {R"(,"allowed_tools":[7])", "tools[0].allowed_tools[0]"},
      {R"(,"allowed_tools":"t")", "tools[0].allowed_tools"},
      {R"j(,"allowed_tools":{"tool_names":["Bash(*)"]})j", "tools[0].allowed_tools.tool_names[0]"},
      {R"(,"allowed_tools":{"tool_names":"t"})", "tools[0].allowed_tools.tool_names"},
      {R"(,"allowed_tools":{"read_only":true})", "tools[0].allowed_tools.read_only"},
      {R"(,"headers":{"X-A\r\nInjected":"v"})", "tools[0].headers"},
      {R"(,"headers":{"X-A":"v\r\nInjected: 1"})", "tools[0].headers"},
      {R"(,"headers":{"X-A":1})", "tools[0].headers"},
      {R"(,"headers":"X-A: v")", "tools[0].headers"},
  };
  for (const auto& [fields, param] : bad) {
    auto e = refusal(mcpTool(fields));
    EXPECT_EQ(e.status, 400) << fields;
    EXPECT_EQ(e.param, param) << fields;
  }
  auto label = refusal(R"({"model":"m","input":"x","tools":[{"type":"mcp",)"
                       R"("server_label":"m,Bash","server_url":"https://mcp.example/mcp"}]})");
  EXPECT_EQ(label.param, "tools[0].server_label");
  auto url = refusal(R"({"model":"m","input":"x","tools":[{"type":"mcp",)"
                     R"("server_label":"m","server_url":"file:///etc/passwd"}]})");
  EXPECT_EQ(url.param, "tools[0].server_url");
}

Item item(std::string id, std::string type, std::string text = {}) {
  Item i;
  i.id = std::move(id);
  i.type = std::move(type);
  i.text = std::move(text);
  return i;
}

RuntimeEvent event(std::string type, std::optional<Item> item = {}, std::string delta = {}) {
  RuntimeEvent e;
  e.type = std::move(type);
  if (item) e.item_id = item->id;
  if (item) e.item = std::make_shared<const Item>(std::move(*item));
  e.delta = std::move(delta);
  return e;
}

std::vector<ResponseRun::Event> drain(ResponseRun& run) {
  std::vector<ResponseRun::Event> out;
  const int reader = run.attach();
  EXPECT_GE(reader, 0);
  while (run.read(reader, out, std::chrono::milliseconds(1))) {
  }
  run.detach(reader);
  return out;
}

TEST(ResponseRun, MapsATurnOntoTheCanonicalSequence) {
  ResponseEcho echo;
  echo.model = "codex";
  ResponseRun run("resp_1", 100, echo);
  run.onEvent(event("turn.started"));
  auto reasoning = item("rs_1", "reasoning");
  run.onEvent(event("item.added", reasoning));
  run.onEvent(event("item.reasoning.delta", reasoning, "Looking"));
  reasoning.text = "Looking";
  reasoning.status = "completed";
  run.onEvent(event("item.done", reasoning));
  auto tool = item("mcp_1", "command_execution");
  tool.server_label = "codex";
  tool.name = "command_execution";
  run.onEvent(event("item.added", tool));
  tool.arguments = R"({"command":"ls"})";
  tool.output = "a.txt\n";
  tool.status = "completed";
  run.onEvent(event("item.done", tool));
  auto message = item("msg_1", "message");
  run.onEvent(event("item.added", message));
  run.onEvent(event("item.text.delta", message, "Do"));
  run.onEvent(event("item.text.delta", message, "ne."));
  message.text = "Done.";
  message.status = "completed";
  run.onEvent(event("item.done", message));
  Turn turn;
  turn.status = TurnStatus::completed;
  turn.usage.input_tokens = 12;
  turn.usage.output_tokens = 5;
  RuntimeEvent end = event("turn.completed");
  end.turn = std::make_shared<const Turn>(turn);
  run.onEvent(end);
  EXPECT_TRUE(run.finished());

  auto events = drain(run);
  std::vector<std::string> types;
  for (std::size_t i = 0; i < events.size(); ++i) {
    types.push_back(events[i].type);
    EXPECT_EQ(events[i].sequence_number, static_cast<std::int64_t>(i));
    auto data = json(events[i].data());
    EXPECT_EQ(data->getValue<std::string>("type"), events[i].type);
    EXPECT_EQ(data->getValue<std::int64_t>("sequence_number"), static_cast<std::int64_t>(i));
    EXPECT_FALSE(data->has("error"));  // a top-level error would make the SDK throw
  }
  EXPECT_THAT(
      types,
      ElementsAre("response.created", "response.in_progress", "response.output_item.added",
                  "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
                  "response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
                  "response.output_item.done", "response.output_item.added",
                  "response.mcp_call.in_progress", "response.mcp_call_arguments.done",
                  "response.mcp_call.completed", "response.output_item.done",
                  "response.output_item.added", "response.content_part.added",
                  "response.output_text.delta", "response.output_text.delta",
                  "response.output_text.done", "response.content_part.done",
                  "response.output_item.done", "response.completed"));
  auto completed = json(events.back().data())->getObject("response");
  EXPECT_EQ(completed->getValue<std::string>("id"), "resp_1");
  EXPECT_EQ(completed->getValue<std::string>("object"), "response");
  EXPECT_EQ(completed->getValue<std::string>("status"), "completed");
  auto output = completed->getArray("output");
  ASSERT_EQ(output->size(), 3u);
  EXPECT_EQ(output->getObject(1)->getValue<std::string>("type"), "mcp_call");
  EXPECT_EQ(output->getObject(1)->getValue<std::string>("output"), "a.txt\n");
  EXPECT_EQ(output->getObject(1)->getValue<std::string>("arguments"), R"({"command":"ls"})");
  EXPECT_EQ(output->getObject(2)->getArray("content")->getObject(0)->getValue<std::string>("text"),
            "Done.");
  EXPECT_EQ(completed->getObject("usage")->getValue<int>("total_tokens"), 17);
  auto added = json(events[8].data())->getObject("item");
  EXPECT_EQ(added->getValue<std::string>("arguments"), "");  // pre-initialised string
  EXPECT_EQ(json(events[15].data())->getValue<int>("output_index"), 2);
}

TEST(ResponseRun, AFailedTurnEndsWithResponseFailedCarryingTheError) {
  ResponseRun run("resp_2", 100, {});
  run.onEvent(event("turn.started"));
  Turn turn;
  turn.status = TurnStatus::failed;
  turn.error = TurnError{"authentication_error", "bad key"};
  RuntimeEvent end = event("turn.failed");
  end.turn = std::make_shared<const Turn>(turn);
  run.onEvent(end);
  auto events = drain(run);
  ASSERT_EQ(events.back().type, "response.failed");
  auto response = json(events.back().data())->getObject("response");
  EXPECT_EQ(response->getValue<std::string>("status"), "failed");
  EXPECT_EQ(response->getObject("error")->getValue<std::string>("code"), "authentication_error");
  EXPECT_EQ(response->getObject("usage")->getValue<int>("total_tokens"), 0);  // never null
}

TEST(ResponseRun, AnOutputLimitStopEndsWithResponseIncompleteAndItsReason) {
  ResponseRun run("resp_4", 100, {});
  run.onEvent(event("turn.started"));
  Turn turn;
  turn.status = TurnStatus::failed;
  turn.error = TurnError{"output_limit_exceeded", "the agent wrote more than 100000 bytes"};
  RuntimeEvent end = event("turn.failed");
  end.turn = std::make_shared<const Turn>(turn);
  run.onEvent(end);
  auto events = drain(run);
  ASSERT_EQ(events.back().type, "response.incomplete");
  auto response = json(events.back().data())->getObject("response");
  EXPECT_EQ(response->getValue<std::string>("status"), "incomplete");
  EXPECT_TRUE(response->isNull("error"));
  EXPECT_EQ(response->getObject("incomplete_details")->getValue<std::string>("reason"),
            "max_output_tokens");
  EXPECT_EQ(responseJsonForTurn(turn, {}).find(R"("status":"incomplete")") != std::string::npos,
            true);
  // The turn limit is incomplete too; any other failure stays failed.
  turn.error = TurnError{"max_turns_exceeded", "the agent stopped at its max_turns limit"};
  EXPECT_THAT(responseJsonForTurn(turn, {}),
              HasSubstr(R"("incomplete_details":{"reason":"max_messages"})"));
  turn.error = TurnError{"internal_error", "boom"};
  EXPECT_EQ(responseStatus(turn), "failed");
}

TEST(ResponseRun, ATurnThatWaitsIsQueuedBeforeInProgress) {
  ResponseRun run("resp_5", 100, {});
  run.onEvent(event("turn.queued"));
  run.onEvent(event("turn.waiting"));
  run.onEvent(event("turn.started"));
  std::vector<ResponseRun::Event> events;
  const int reader = run.attach();
  ASSERT_GE(reader, 0);
  EXPECT_TRUE(run.read(reader, events, std::chrono::milliseconds(1)));  // not finished
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "response.created");
  EXPECT_EQ(events[1].type, "response.queued");
  EXPECT_EQ(json(events[1].data())->getObject("response")->getValue<std::string>("status"),
            "queued");
  EXPECT_EQ(events[2].type, "response.in_progress");
}

TEST(ResponseRun, ALateReaderStillSeesEverythingFromCreated) {
  ResponseRun run("resp_3", 100, {});
  run.onEvent(event("turn.started"));
  const int reader = run.attach();
  ASSERT_GE(reader, 0);
  std::vector<ResponseRun::Event> seen;
  EXPECT_TRUE(run.read(reader, seen, std::chrono::milliseconds(1)));  // not finished yet
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].type, "response.created");
  EXPECT_EQ(seen[1].type, "response.in_progress");
  Turn turn;
  turn.status = TurnStatus::completed;
  RuntimeEvent end = event("turn.completed");
  end.turn = std::make_shared<const Turn>(turn);
  run.onEvent(end);
  EXPECT_FALSE(run.read(reader, seen, std::chrono::milliseconds(1)));  // the end, delivered
  EXPECT_EQ(seen.back().type, "response.completed");
  run.detach(reader);
}

TEST(ResponseRun, APullSendsTheEncodedEventsAfterItsPositionWithinItsBudget) {
  ResponseRun run("resp_4", 100, {});
  run.onEvent(event("turn.started"));
  const int reader = run.attach();
  ASSERT_GE(reader, 0);
  std::string out;
  // The first event always fits: a pull never stalls on a small budget.
  EXPECT_EQ(run.pull(reader, -1, out, 1), sdk::SseFeed::Pull::more);
  EXPECT_EQ(out.rfind("event: response.created\ndata: {\"type\":\"response.created\"", 0), 0u)
      << out;
  EXPECT_TRUE(out.ends_with("}\n\n"));
  out.clear();
  EXPECT_EQ(run.pull(reader, -1, out, 1 << 20), sdk::SseFeed::Pull::wait);
  EXPECT_EQ(out.rfind("event: response.in_progress\n", 0), 0u) << out;
  Turn turn;
  turn.status = TurnStatus::completed;
  RuntimeEvent end = event("turn.completed");
  end.turn = std::make_shared<const Turn>(turn);
  run.onEvent(end);
  out.clear();
  EXPECT_EQ(run.pull(reader, -1, out, 1 << 20), sdk::SseFeed::Pull::end);
  EXPECT_EQ(out.rfind("event: response.completed\n", 0), 0u) << out;
  run.detach(reader);
  // A reader resuming after sequence number 1 skips created and in_progress.
  const int late = run.attach();
  out.clear();
  EXPECT_EQ(run.pull(late, 1, out, 1 << 20), sdk::SseFeed::Pull::end);
  EXPECT_EQ(out.rfind("event: response.completed\n", 0), 0u) << out;
  run.detach(late);
}

TEST(ResponseRun, AReaderFarBehindIsCutWithAnErrorWhileReadersThatKeepUpAreNot) {
  ResponseRun run("resp_6", 100, {});
  run.onEvent(event("turn.started"));
  run.onEvent(event("item.added", item("msg_1", "message")));
  const int stalled = run.attach();
  const int pinned = run.attach(/*pinned=*/true);
  const int reading = run.attach();
  std::string out;
  const std::string chunk(64 * 1024, 'x');
  // 12 MiB of deltas: the reader that never pulls falls past the bound.
  for (int i = 0; i < 192; ++i) {
    run.onEvent(event("item.text.delta", item("msg_1", "message"), chunk));
    out.clear();
    run.pull(reading, -1, out, 1 << 20);
  }
  out.clear();
  EXPECT_EQ(run.pull(stalled, -1, out, 1 << 20), sdk::SseFeed::Pull::end);
  EXPECT_EQ(out.rfind("event: error\ndata: {\"type\":\"error\",\"sequence_number\":0,"
                      "\"code\":\"events_dropped\"",
                      0),
            0u)
      << out.substr(0, 200);
  EXPECT_NE(out.find("GET /v1/responses/resp_6 gives it"), std::string::npos) << out;
  // The pinned reader still gets everything from its start; the reading one goes on.
  out.clear();
  EXPECT_EQ(run.pull(pinned, -1, out, 1 << 20), sdk::SseFeed::Pull::more);
  EXPECT_EQ(out.rfind("event: response.created\n", 0), 0u);
  out.clear();
  EXPECT_EQ(run.pull(reading, -1, out, 1 << 20), sdk::SseFeed::Pull::wait);
  run.detach(stalled);
  run.detach(pinned);
  run.detach(reading);
}

TEST(ResponseObject, IdsMapBetweenTurnsAndResponses) {
  EXPECT_EQ(responseIdForTurn("turn_abc"), "resp_abc");
  EXPECT_EQ(turnIdForResponse("resp_abc"), "turn_abc");
  EXPECT_EQ(turnIdForResponse("msg_abc"), "");
  EXPECT_EQ(turnIdForResponse("resp_"), "");
}

TEST(ResponseObject, FailedToolCarriesAnExecutionError) {
  auto tool = item("mcp_9", "command_execution");
  tool.status = "failed";
  tool.exit_code = 2;
  auto o = json(outputItemJson(tool));
  EXPECT_EQ(o->getValue<std::string>("status"), "failed");
  EXPECT_EQ(o->getObject("error")->getValue<std::string>("type"), "mcp_tool_execution_error");
  EXPECT_EQ(o->getObject("error")->getValue<std::string>("content"), "exit code 2");
}

sdk::Request query(std::map<std::string, std::string> params) {
  sdk::Request r;
  for (auto& [k, v] : params) r.query[k] = v;
  return r;
}

TEST(ListPage, PagesNewestFirstByDefaultWithCursor) {
  PageItems items = {{"a", R"({"id":"a"})"}, {"b", R"({"id":"b"})"}, {"c", R"({"id":"c"})"}};
  auto page = json(std::get<std::string>(listPage(query({{"limit", "2"}}), items)));
  EXPECT_EQ(page->getValue<std::string>("first_id"), "c");
  EXPECT_EQ(page->getValue<std::string>("last_id"), "b");
  EXPECT_TRUE(page->getValue<bool>("has_more"));
  auto next = json(std::get<std::string>(listPage(query({{"limit", "2"}, {"after", "b"}}), items)));
  EXPECT_EQ(next->getArray("data")->size(), 1u);
  EXPECT_FALSE(next->getValue<bool>("has_more"));
  auto asc = json(std::get<std::string>(listPage(query({{"order", "asc"}}), items)));
  EXPECT_EQ(asc->getValue<std::string>("first_id"), "a");
  EXPECT_TRUE(std::holds_alternative<WireError>(listPage(query({{"limit", "0"}}), items)));
  EXPECT_TRUE(std::holds_alternative<WireError>(listPage(query({{"order", "up"}}), items)));
  EXPECT_TRUE(std::holds_alternative<WireError>(listPage(query({{"after", "zz"}}), items)));
}

}  // namespace
}  // namespace abx::plugins::agents
