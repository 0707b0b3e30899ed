// The OpenAPI generator: fragments merged into the route table's operations,
// the kernel's keys and error envelopes, path parameters, security, the
// components kept, and the warnings a bad fragment gives.
#include "openapi/openapi_document.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "abx/sdk/json.h"
#include "openapi/openapi_catalog.h"
#include "routing/route_table.h"

namespace {

using abx::kernel::OpenApiCatalog;
using abx::kernel::OpenApiInputs;
using abx::kernel::RouteTable;
using abx::sdk::Json;
using ::testing::HasSubstr;

abx::sdk::RouteSpec spec(std::string method, std::string path, std::string id, bool auth = true) {
  abx::sdk::RouteSpec s;
  s.method = std::move(method);
  s.path = std::move(path);
  s.endpoint = std::move(id);
  s.group = "things";
  s.summary = "summary of " + s.endpoint;
  s.scopes = {"things:read"};
  s.auth_required = auth;
  s.handler = [](const abx::sdk::Request&) { return abx::sdk::Response::json("{}"); };
  return s;
}

struct Fixture {
  RouteTable routes;
  OpenApiCatalog catalog;

  Fixture() {
    routes.add(spec("GET", "/things/{pid}", "thing_get"), "abx.things");
    routes.add(spec("POST", "/things", "thing_make"), "abx.things");
    routes.add(spec("GET", "/open", "open_probe", false), "abx.things");
    routes.add(spec("POST", "/v1/things", "v1_thing"), "abx.things");
    routes.add(spec("GET", "/other", "other_get"), "abx.other");
    catalog.addText("core", abx::kernel::coreOpenApiFragment(), "core");
  }

  Json document() {
    OpenApiInputs in;
    in.catalog = &catalog;
    for (const auto& r : routes.routes()) in.routes.push_back(r.get());
    in.version = "9.9.9";
    auto parsed = Json::parse(abx::kernel::openApiDocument(in));
    EXPECT_TRUE(parsed.isOk());
    return *parsed;
  }
  bool warned(const std::string& part) const {
    const auto& w = catalog.warnings();
    return std::any_of(w.begin(), w.end(),
                       [&](const std::string& s) { return s.find(part) != std::string::npos; });
  }
};

constexpr const char* kThings = R"({
  "abx_openapi_fragment": 1,
  "operations": {
    "thing_get": {
      "description": "Reads a thing.",
      "operationId": "stolen",
      "parameters": [
        {"name": "pid", "in": "path", "description": "the id", "schema": {"type": "integer"}},
        {"name": "ghost", "in": "path", "schema": {"type": "string"}},
        {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}
      ],
      "responses": {
        "200": {"description": "it", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ThingsThing"}}}},
        "409": {"description": "busy"}
      }
    },
    "v1_thing": {"responses": {"404": {"description": "no such thing"}}},
    "other_get": {"description": "not mine"},
    "nope": {"description": "no such endpoint"}
  },
  "components": {"schemas": {
    "ThingsThing": {"type": "object", "properties": {"part": {"$ref": "#/components/schemas/ThingsPart"}}},
    "ThingsPart": {"type": "string"},
    "ThingsUnused": {"type": "string"},
    "Error": {"type": "string"}
  }}
})";

TEST(OpenApiDocument, FragmentMergedWithTheRouteTable) {
  Fixture f;
  f.catalog.addText("abx.things", kThings, "things.openapi.json");
  f.catalog.check(f.routes);
  Json doc = f.document();
  EXPECT_EQ(doc.get("openapi").stringView(), "3.1.0");
  EXPECT_EQ(doc.get("info").get("version").stringView(), "9.9.9");
  EXPECT_EQ(doc.get("servers").at(0).get("url").stringView(), "/");
  Json op = doc.get("paths").get("/things/{pid}").get("get");
  EXPECT_EQ(op.get("operationId").stringView(), "thing_get");  // the kernel's, not the fragment's
  EXPECT_TRUE(f.warned("'operationId' is written by the server"));
  EXPECT_EQ(op.get("summary").stringView(), "summary of thing_get");
  EXPECT_EQ(op.get("description").stringView(), "Reads a thing.");
  EXPECT_EQ(op.get("tags").dump(), R"(["things"])");
  EXPECT_EQ(op.get("x-group").stringView(), "things");
  EXPECT_EQ(op.get("x-scopes").dump(), R"(["things:read"])");
  EXPECT_EQ(op.get("responses").get("200").get("description").stringView(), "it");
  // A route without a fragment still gets an operation.
  Json make = doc.get("paths").get("/things").get("post");
  EXPECT_EQ(make.get("operationId").stringView(), "thing_make");
  EXPECT_EQ(make.get("responses").get("200").get("description").stringView(), "Success");
}

TEST(OpenApiDocument, PathParametersComeFromTheTemplate) {
  Fixture f;
  f.catalog.addText("abx.things", kThings, "things.openapi.json");
  f.catalog.check(f.routes);
  Json params = f.document().get("paths").get("/things/{pid}").get("get").get("parameters");
  ASSERT_EQ(params.size(), 2u);  // pid (merged) and verbose; ghost is not in the template
  EXPECT_EQ(params.at(0).get("name").stringView(), "pid");
  EXPECT_EQ(params.at(0).get("in").stringView(), "path");
  EXPECT_EQ(params.at(0).get("required").dump(), "true");
  EXPECT_EQ(params.at(0).get("description").stringView(), "the id");
  EXPECT_EQ(params.at(0).get("schema").dump(), R"({"type":"integer"})");
  EXPECT_EQ(params.at(1).get("name").stringView(), "verbose");

  Fixture bare;  // no fragment: a string path parameter
  Json generated = bare.document().get("paths").get("/things/{pid}").get("get").get("parameters");
  ASSERT_EQ(generated.size(), 1u);
  EXPECT_EQ(generated.at(0).dump(),
            R"({"name":"pid","in":"path","required":true,"schema":{"type":"string"}})");
}

TEST(OpenApiDocument, ErrorEnvelopeFollowsThePath) {
  Fixture f;
  f.catalog.addText("abx.things", kThings, "things.openapi.json");
  f.catalog.check(f.routes);
  Json doc = f.document();
  auto schemaOf = [](const Json& response) {
    return std::string(
        response.get("content").get("application/json").get("schema").get("$ref").stringView());
  };
  Json native = doc.get("paths").get("/things/{pid}").get("get").get("responses");
  EXPECT_EQ(native.get("409").get("description").stringView(), "busy");
  EXPECT_EQ(schemaOf(native.get("409")), "#/components/schemas/Error");
  EXPECT_EQ(schemaOf(native.get("default")), "#/components/schemas/Error");
  for (const char* code : {"401", "403", "404", "429"})
    EXPECT_EQ(schemaOf(native.get(code)), "#/components/schemas/Error") << code;
  Json openai = doc.get("paths").get("/v1/things").get("post").get("responses");
  EXPECT_EQ(openai.get("404").get("description").stringView(), "no such thing");
  EXPECT_EQ(schemaOf(openai.get("404")), "#/components/schemas/OpenAIError");
  EXPECT_EQ(schemaOf(openai.get("default")), "#/components/schemas/OpenAIError");
}

TEST(OpenApiDocument, SecurityOnlyForRoutesThatNeedAToken) {
  Fixture f;
  Json doc = f.document();
  Json open = doc.get("paths").get("/open").get("get");
  EXPECT_EQ(open.get("security").dump(), "[]");
  EXPECT_FALSE(open.get("responses").has("401"));
  EXPECT_TRUE(open.get("responses").has("default"));
  Json guarded = doc.get("paths").get("/other").get("get");
  EXPECT_EQ(guarded.get("security").dump(), R"([{"accessToken":[]},{"bearerAuth":[]}])");
  EXPECT_TRUE(guarded.get("responses").has("401"));
  Json schemes = doc.get("components").get("securitySchemes");
  EXPECT_EQ(schemes.get("accessToken").get("name").stringView(), "X-Access-Token");
  EXPECT_EQ(schemes.get("bearerAuth").get("scheme").stringView(), "bearer");
}

TEST(OpenApiDocument, OnlyReachableComponentsAreKept) {
  Fixture f;
  f.catalog.addText("abx.things", kThings, "things.openapi.json");
  f.catalog.check(f.routes);
  Json schemas = f.document().get("components").get("schemas");
  EXPECT_TRUE(schemas.has("ThingsThing"));
  EXPECT_TRUE(schemas.has("ThingsPart"));  // through ThingsThing
  EXPECT_FALSE(schemas.has("ThingsUnused"));
  EXPECT_FALSE(schemas.has("CoreCapabilities"));  // no core route in this table
  EXPECT_EQ(schemas.get("Error").get("type").stringView(), "object");  // the kernel's kept
}

TEST(OpenApiDocument, ClashAndUnknownIdsAreWarnings) {
  Fixture f;
  f.catalog.addText("abx.things", kThings, "things.openapi.json");
  f.catalog.addText("abx.other",
                    R"({"abx_openapi_fragment": 1, "operations": {},
                        "components": {"schemas": {"ThingsPart": {"type": "integer"}}}})",
                    "other.openapi.json");
  f.catalog.check(f.routes);
  EXPECT_TRUE(f.warned("things.openapi.json: component schemas/Error is already defined"));
  EXPECT_TRUE(f.warned("other.openapi.json: component schemas/ThingsPart is already defined"));
  EXPECT_TRUE(f.warned("operation 'nope' names no endpoint of abx.things"));
  EXPECT_TRUE(f.warned("operation 'other_get' names no endpoint of abx.things"));
  EXPECT_EQ(f.catalog.operation("other_get"), nullptr);
  EXPECT_EQ(f.catalog.components().at("schemas").at("ThingsPart").dump(), R"({"type":"string"})");
  // The dropped definition's owner's route still gets its generated operation.
  EXPECT_EQ(f.document().get("paths").get("/other").get("get").get("description").kind(),
            abx::sdk::JsonKind::missing);
}

TEST(OpenApiDocument, BrokenFragmentsAreWarnings) {
  Fixture f;
  f.catalog.addText("abx.things", "{not json", "a.openapi.json");
  f.catalog.addText("abx.things", R"({"operations": {}})", "b.openapi.json");
  f.catalog.addText("abx.things",
                    R"({"abx_openapi_fragment": 1, "operations": {"thing_make": {
                        "requestBody": {"$ref": "#/components/requestBodies/Missing"}}}})",
                    "c.openapi.json");
  f.catalog.check(f.routes);
  EXPECT_TRUE(f.warned("a.openapi.json: Invalid JSON"));
  EXPECT_TRUE(f.warned("b.openapi.json: not a fragment"));
  EXPECT_TRUE(f.warned("#/components/requestBodies/Missing is referred to"));
}

TEST(OpenApiDocument, CoreFragmentDescribesOnlyCoreRoutes) {
  RouteTable routes;
  for (const char* id : {"health", "ready", "capabilities", "capabilities_check", "openapi",
                         "audit_recent", "metrics"})
    routes.add(spec("GET", std::string("/") + id, id), "core");
  OpenApiCatalog catalog;
  catalog.addText("core", abx::kernel::coreOpenApiFragment(), "core");
  catalog.check(routes);
  EXPECT_THAT(catalog.warnings(), ::testing::IsEmpty());
  EXPECT_NE(catalog.operation("capabilities_check"), nullptr);
}

TEST(OpenApiDocument, FragmentFileAndServerUrl) {
  EXPECT_EQ(OpenApiCatalog::fragmentPathFor("/usr/lib/x/abx_files.so"),
            "/usr/lib/x/abx_files.openapi.json");
  EXPECT_EQ(abx::kernel::serverUrlFor("127.0.0.1:9000"), "http://127.0.0.1:9000");
  EXPECT_EQ(abx::kernel::serverUrlFor(""), "/");
  EXPECT_EQ(abx::kernel::serverUrlFor("a/b"), "/");
  OpenApiCatalog catalog;
  catalog.addFile("abx.none", "/nonexistent/abx_none.so");  // no fragment: no warning
  EXPECT_THAT(catalog.warnings(), ::testing::IsEmpty());
}

}  // namespace
