#include "openapi/openapi_document.h"

#include <algorithm>
#include <set>
#include <utility>

#include "abx/sdk/json.h"
#include "support/api_error.h"

namespace abx::kernel {
namespace {

using Ref = std::pair<std::string, std::string>;

// The error responses every route given a token can answer, whatever its
// handler does: the pipeline's own refusals.
constexpr std::pair<const char*, const char*> kAuthErrors[] = {
    {"401", "Missing or unknown access token"},
    {"403", "Denied by the policy: a missing scope, a path rule, or the group is disabled"},
    {"404", "No such route, or no such resource"},
    {"429", "Rate or concurrency limit reached (Retry-After says when to try again)"},
};

struct Writer {
  sdk::JsonWriter w{64 * 1024};
  std::vector<Ref> refs;

  // A fragment's value, as it is; the components it names are kept.
  void fragment(const sdk::Json& value) {
    collectRefs(value, refs);
    w.value(value);
  }
};

std::string envelopeName(const Route& route) {
  return isOpenAiPath(route.spec.path) ? "OpenAIError" : "Error";
}

void writeEnvelope(Writer& out, const std::string& name) {
  out.refs.emplace_back("schemas", name);
  out.w.key("content").beginObject().key("application/json").beginObject().key("schema");
  out.w.beginObject().member("$ref", "#/components/schemas/" + name).endObject();
  out.w.endObject().endObject();
}

void writeParameters(Writer& out, const Route& route, const sdk::Json* op) {
  std::vector<sdk::Json> listed = op ? op->get("parameters").elements() : std::vector<sdk::Json>{};
  std::set<std::string> path_params;
  for (const auto& s : route.segments)
    if (s.param) path_params.insert(s.text);
  if (path_params.empty() && listed.empty()) return;
  auto& w = out.w;
  w.key("parameters").beginArray();
  for (const auto& s : route.segments) {
    if (!s.param) continue;
    w.beginObject();
    bool typed = false;
    for (const auto& p : listed) {
      if (p.get("in").stringView() != "path" || p.get("name").stringView() != s.text) continue;
      for (const auto& [key, value] : p.members()) {
        if (key == "in" || key == "name" || key == "required") continue;
        typed = typed || key == "schema" || key == "content";
        w.key(key);
        out.fragment(value);
      }
    }
    w.member("name", s.text).member("in", "path").member("required", true);
    if (!typed) w.key("schema").beginObject().member("type", "string").endObject();
    w.endObject();
  }
  for (const auto& p : listed) {
    // A path parameter the template does not have would make the document
    // invalid; the catalog's warning names it at start-up.
    if (p.get("in").stringView() == "path") continue;
    out.fragment(p);
  }
  w.endArray();
}

bool isErrorCode(std::string_view code) {
  return code == "default" || code.starts_with('4') || code.starts_with('5');
}

void writeResponses(Writer& out, const Route& route, const sdk::Json* op) {
  auto& w = out.w;
  const std::string envelope = envelopeName(route);
  std::set<std::string> written;
  bool success = false;
  w.key("responses").beginObject();
  const sdk::Json listed = op ? op->get("responses") : sdk::Json::missing();
  for (const auto& [code, response] : listed.members()) {
    written.insert(code);
    success = success || code.starts_with('1') || code.starts_with('2') || code.starts_with('3');
    w.key(code);
    if (!isErrorCode(code) || !response.isObject() || response.has("$ref") ||
        response.has("content")) {
      out.fragment(response);
      continue;
    }
    w.beginObject();
    for (const auto& [key, value] : response.members()) {
      w.key(key);
      out.fragment(value);
    }
    writeEnvelope(out, envelope);
    w.endObject();
  }
  // A fragment that lists responses says what succeeds (maybe nothing: a
  // route that only refuses); without one, a generic success.
  if (!success && listed.size() == 0) {
    w.key("200").beginObject();
    if (route.spec.streaming) {
      w.member("description", "A stream of server-sent events");
      w.key("content").beginObject().key("text/event-stream").beginObject();
      w.key("schema").beginObject().member("type", "string").endObject();
      w.endObject().endObject();
    } else {
      w.member("description", "Success");
    }
    w.endObject();
  }
  if (route.spec.auth_required) {
    for (const auto& [code, description] : kAuthErrors) {
      if (written.count(code)) continue;
      w.key(code).beginObject().member("description", description);
      writeEnvelope(out, envelope);
      w.endObject();
    }
  }
  if (!written.count("default")) {
    w.key("default").beginObject().member("description", "An error");
    writeEnvelope(out, envelope);
    w.endObject();
  }
  w.endObject();
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return text;
}

void writeOperation(Writer& out, const Route& route, const sdk::Json* op) {
  auto& w = out.w;
  const auto& spec = route.spec;
  w.key(lower(spec.method)).beginObject();
  w.member("operationId", spec.endpoint).member("summary", spec.summary);
  if (op && op->has("description")) {
    w.key("description");
    out.fragment(op->get("description"));
  }
  w.key("tags").beginArray().value(spec.group).endArray();
  w.member("x-group", spec.group).member("x-scopes", spec.scopes);
  writeParameters(out, route, op);
  if (op && op->has("requestBody")) {
    w.key("requestBody");
    out.fragment(op->get("requestBody"));
  }
  writeResponses(out, route, op);
  w.key("security").beginArray();
  if (spec.auth_required) {
    w.beginObject().key("accessToken").beginArray().endArray().endObject();
    w.beginObject().key("bearerAuth").beginArray().endArray().endObject();
  }
  w.endArray();
  if (op) {
    for (const auto& [key, value] : op->members()) {
      if (key != "deprecated" && key != "externalDocs" && !key.starts_with("x-")) continue;
      w.key(key);
      out.fragment(value);
    }
  }
  w.endObject();
}

void writePaths(Writer& out, const OpenApiInputs& in) {
  // One path item per template, its methods in registration order.
  std::vector<std::pair<std::string, std::vector<const Route*>>> paths;
  for (const Route* route : in.routes) {
    auto it = std::find_if(paths.begin(), paths.end(),
                           [&](const auto& p) { return p.first == route->spec.path; });
    if (it == paths.end()) it = paths.insert(paths.end(), {route->spec.path, {}});
    it->second.push_back(route);
  }
  out.w.key("paths").beginObject();
  for (const auto& [path, routes] : paths) {
    out.w.key(path).beginObject();
    for (const Route* route : routes)
      writeOperation(out, *route,
                     in.catalog ? in.catalog->operation(route->spec.endpoint) : nullptr);
    out.w.endObject();
  }
  out.w.endObject();
}

// The components the operations reach, directly or through other components.
void writeComponents(Writer& out, const OpenApiCatalog::Components& all) {
  std::set<Ref> kept;
  for (std::size_t i = 0; i < out.refs.size(); ++i) {
    const Ref ref = out.refs[i];  // a copy: collectRefs below may grow the vector
    auto section = all.find(ref.first);
    if (section == all.end() || !kept.insert(ref).second) continue;
    auto definition = section->second.find(ref.second);
    if (definition != section->second.end()) collectRefs(definition->second, out.refs);
  }
  auto& w = out.w;
  w.key("components").beginObject();
  for (const auto& [section, entries] : all) {
    // Security schemes are named by `security`, never by a $ref.
    const bool every = section == "securitySchemes";
    bool open = false;
    for (const auto& [name, definition] : entries) {
      if (!every && !kept.count({section, name})) continue;
      if (!open) w.key(section).beginObject();
      open = true;
      w.key(name).value(definition);
    }
    if (open) w.endObject();
  }
  w.endObject();
}

void writeTags(Writer& out, const OpenApiInputs& in) {
  std::vector<std::string> names;
  for (const Route* route : in.routes)
    if (std::find(names.begin(), names.end(), route->spec.group) == names.end())
      names.push_back(route->spec.group);
  out.w.key("tags").beginArray();
  for (const auto& name : names) {
    out.w.beginObject().member("name", name);
    if (in.groups)
      for (const auto& g : *in.groups)
        if (g.spec.name == name && !g.spec.description.empty())
          out.w.member("description", g.spec.description);
    out.w.endObject();
  }
  out.w.endArray();
}

}  // namespace

std::string openApiDocument(const OpenApiInputs& in) {
  Writer out;
  auto& w = out.w;
  w.beginObject().member("openapi", "3.1.0").key("info").beginObject();
  w.member("title", "agent-sandbox-server").member("version", in.version);
  w.member("description",
           "The operations this server has loaded and enabled, and the caller may use.");
  w.endObject();
  w.key("servers").beginArray().beginObject().member("url", in.server_url).endObject().endArray();
  writeTags(out, in);
  writePaths(out, in);
  writeComponents(out, in.catalog ? in.catalog->components() : OpenApiCatalog::Components{});
  w.endObject();
  return w.take();
}

std::string serverUrlFor(std::string_view host_header) {
  // The pipeline already held Host to the names this server answers.
  if (host_header.empty() || host_header.find_first_of("/ \t\"\\") != std::string_view::npos)
    return "/";
  return "http://" + std::string(host_header);
}

}  // namespace abx::kernel
