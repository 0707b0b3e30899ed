// The MCP plugin's tools: derived from an OpenAPI document's operations
// (parameters and request body, $refs inlined) and from declared commands;
// arguments checked against the derived schema and placed as the route
// expects; endpoint answers turned into CallToolResults.
#include <gtest/gtest.h>

#include "tool_arguments.h"
#include "tool_call.h"
#include "tool_catalog.h"

namespace abx::plugins::mcp {
namespace {

constexpr const char* kDoc = R"({
  "paths": {
    "/files/download": {"get": {"operationId": "download", "summary": "Read a file",
      "parameters": [{"name": "path", "in": "query", "required": true,
                      "description": "The file", "schema": {"type": "string"}}]}},
    "/process/{pid}/signal": {"post": {"operationId": "process_signal", "summary": "Signal",
      "parameters": [{"name": "pid", "in": "path", "schema": {"type": "string"}}],
      "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Sig"}}}}}},
    "/commands/{name}": {"post": {"operationId": "commands_run", "summary": "Run"}},
    "/agents": {"get": {"operationId": "agents_list", "summary": "Not a tool"}}
  },
  "components": {"schemas": {"Sig": {"type": "object", "required": ["signal"],
    "properties": {"signal": {"$ref": "#/components/schemas/Num"}}},
    "Num": {"type": "integer", "x-internal": true}}}
})";

const Tool& named(const std::vector<Tool>& tools, std::string_view name) {
  for (const auto& t : tools)
    if (t.name == name) return t;
  throw std::runtime_error("no tool " + std::string(name));
}

std::vector<Tool> sampleTools(const sdk::Identity& caller = {}) {
  static sdk::CommandSpec hello{"hello", "Say hello", {}, false, {}, {}};
  hello.args = {{"name", sdk::ArgType::string, false, std::string("World"), "Who"},
                {"times", sdk::ArgType::integer, true, std::nullopt, ""}};
  static sdk::CommandSpec hidden{"secret", "", {}, true, {}, {}};
  return toolsFor(*sdk::Json::parse(kDoc), {&hello, &hidden}, caller);
}

TEST(McpTools, OnlyBoundOperationsAndVisibleCommandsBecomeTools) {
  auto tools = sampleTools();
  std::vector<std::string> names;
  for (const auto& t : tools) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"file_read", "process_signal", "command_hello"}));
  sdk::Identity narrow;
  narrow.scopes = {"files:read"};
  EXPECT_EQ(sampleTools(narrow).size(), 2u) << "no commands:run:hello scope";
}

TEST(McpTools, SchemasAreDerivedWithRefsInlined) {
  auto tools = sampleTools();
  auto read = *sdk::Json::parse(named(tools, "file_read").input_schema);
  EXPECT_EQ(read.get("properties").get("path").dump(),
            R"({"type":"string","description":"The file"})");
  EXPECT_EQ(read.get("required").dump(), R"(["path"])");
  const auto& signal = named(tools, "process_signal");
  EXPECT_EQ(signal.path_params, std::vector<std::string>{"pid"});
  auto schema = *sdk::Json::parse(signal.input_schema);
  EXPECT_EQ(schema.get("properties").get("signal").dump(), R"({"type":"integer"})");
  EXPECT_EQ(schema.get("required").dump(), R"(["pid","signal"])");
  auto hello = *sdk::Json::parse(named(tools, "command_hello").input_schema);
  EXPECT_EQ(hello.get("properties").get("name").dump(),
            R"({"type":"string","description":"Who","default":"World"})");
  EXPECT_EQ(hello.get("additionalProperties").dump(), "false");
}

TEST(McpTools, InlinesACyclicRefOnlyToABound) {
  auto doc = *sdk::Json::parse(
      R"({"components":{"schemas":{"A":{"properties":{"a":{"$ref":"#/components/schemas/A"}}}}}})");
  sdk::JsonWriter w;
  writeInlined(w, *sdk::Json::parse(R"({"$ref":"#/components/schemas/A"})"), doc);
  EXPECT_TRUE(sdk::Json::parse(w.text()));
}

TEST(McpTools, ArgumentsAreCheckedAgainstTheSchema) {
  auto tools = sampleTools();
  const auto& read = named(tools, "file_read");
  EXPECT_FALSE(checkArguments(read, *sdk::Json::parse(R"({"path":"a"})")));
  EXPECT_TRUE(checkArguments(read, *sdk::Json::parse(R"({})")));
  // A URL parameter is text: any scalar is taken, an object is not.
  EXPECT_FALSE(checkArguments(read, *sdk::Json::parse(R"({"path":5})")));
  EXPECT_TRUE(checkArguments(read, *sdk::Json::parse(R"({"path":{}})")));
  const auto& signal = named(tools, "process_signal");
  EXPECT_FALSE(checkArguments(signal, *sdk::Json::parse(R"({"pid":12,"signal":15})")));
  EXPECT_TRUE(checkArguments(signal, *sdk::Json::parse(R"({"pid":12,"signal":"TERM"})")));
  EXPECT_TRUE(checkArguments(read, *sdk::Json::parse(R"([1])")));
  const auto& hello = named(tools, "command_hello");
  EXPECT_TRUE(checkArguments(hello, *sdk::Json::parse(R"({"times":1,"extra":1})")));
  EXPECT_FALSE(checkArguments(hello, *sdk::Json::parse(R"({"times":2})")));
}

TEST(McpTools, ArgumentsGoWhereTheRouteReadsThem) {
  auto tools = sampleTools();
  sdk::LocalCall call;
  ASSERT_FALSE(buildCall(named(tools, "process_signal"),
                         *sdk::Json::parse(R"({"pid":12,"signal":15})"), call));
  EXPECT_EQ(call.endpoint, "process_signal");
  EXPECT_EQ(call.path_params.at("pid"), "12");
  EXPECT_EQ(call.body, R"({"signal":15})");
  sdk::LocalCall read;
  ASSERT_FALSE(buildCall(named(tools, "file_read"), *sdk::Json::parse(R"({"path":"a b"})"), read));
  EXPECT_EQ(read.query, (std::vector<std::pair<std::string, std::string>>{{"path", "a b"}}));
  EXPECT_TRUE(read.body.empty());
  sdk::LocalCall command;
  ASSERT_FALSE(buildCall(named(tools, "command_hello"), sdk::Json::missing(), command));
  EXPECT_EQ(command.path_params.at("name"), "hello");
  EXPECT_EQ(command.body, "{}");
}

TEST(McpTools, AnswersBecomeToolResults) {
  Tool read;
  read.endpoint = "download";
  auto ok = toolResult(read, sdk::Response::json(R"({"path":"a","content_base64":"aGk="})"));
  EXPECT_EQ(ok.outcome, "ok");
  EXPECT_EQ(ok.result, R"({"content":[{"type":"text","text":"hi"}],"isError":false})");
  auto denied =
      toolResult(read, sdk::Response::error(403, "Path denied", "PermissionError", "path_denied"));
  EXPECT_EQ(denied.outcome, "denied");
  auto parsed = *sdk::Json::parse(denied.result);
  EXPECT_EQ(parsed.get("isError").dump(), "true");
  EXPECT_NE(parsed.get("content").at(0).get("text").stringView().find("path_denied"),
            std::string_view::npos);
  EXPECT_EQ(toolResult(read, sdk::Response::error(429, "slow", "RateLimitError")).outcome,
            "limited");
  Tool shot;
  shot.endpoint = "browser_screenshot";
  shot.image = true;
  auto image = *sdk::Json::parse(
      toolResult(shot, sdk::Response::json(R"({"image_base64":"iVBO","width":2,"height":3})"))
          .result);
  EXPECT_EQ(image.get("content").at(0).get("type").stringView(), "image");
  EXPECT_EQ(image.get("content").at(0).get("mimeType").stringView(), "image/png");
}

TEST(McpTools, Base64AndUtf8) {
  EXPECT_EQ(decodeBase64("aGVsbG8=").value_or("x"), "hello");
  EXPECT_EQ(decodeBase64("aGVs\nbG8=").value_or("x"), "hello");
  EXPECT_FALSE(decodeBase64("a$b="));
  EXPECT_FALSE(decodeBase64("aG=Vs"));
  EXPECT_TRUE(validUtf8("h\xc3\xa9llo"));
  EXPECT_FALSE(validUtf8("\xc3"));
  EXPECT_FALSE(validUtf8("\xff"));
  EXPECT_FALSE(validUtf8("\xc0\x80"));
}

}  // namespace
}  // namespace abx::plugins::mcp
