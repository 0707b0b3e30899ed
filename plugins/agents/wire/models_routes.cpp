#include "models_routes.h"

#include <string>

#include "abx/sdk/json.h"
#include "abx/sdk/route_table.h"
#include "definition_lock.h"
#include "openai_error.h"

namespace abx::plugins::agents {
namespace {

using Ctx = std::shared_ptr<const ResponsesContext>;

// A model registered over HTTP was created with it; the others when the group started.
void writeModel(const Ctx& ctx, sdk::JsonWriter& w, const std::string& id) {
  auto definition = ctx->catalog->definition(id);
  w.beginObject().member("id", id).member("object", "model");
  // Config-file definitions carry no time of their own.
  const std::int64_t created = definition ? definition->created_at : 0;
  w.member("created", created > 0 ? created : ctx->started_at);
  w.member("owned_by", "agent-sandbox").endObject();
}

sdk::Response listModels(const Ctx& ctx, const sdk::Request&) {
  sdk::JsonWriter w;
  w.beginObject().member("object", "list").key("data").beginArray();
  for (const auto& id : ctx->catalog->models()) writeModel(ctx, w, id);
  w.endArray().endObject();
  return sdk::Response::json(w.take());
}

sdk::Response getModel(const Ctx& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  std::string why;
  if (!ctx->catalog->resolve(id, why))
    return openAiError(unresolvedAgent(*ctx->catalog, id, why, "model"));
  sdk::JsonWriter w;
  writeModel(ctx, w, id);
  return sdk::Response::json(w.take());
}

}  // namespace

sdk::Status addModelsRoutes(sdk::RouteRegistry& registry, Ctx context) {
  return sdk::addSharedRoutes(
      registry, "agents", std::move(context),
      {
          {"GET",
           "/v1/models",
           "models_list",
           "Agents and runtimes usable as model",
           {"agents:run"},
           &listModels},
          {"GET", "/v1/models/{id}", "models_get", "One model", {"agents:run"}, &getModel},
      });
}

}  // namespace abx::plugins::agents
