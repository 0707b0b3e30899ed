// OpenApiCatalog: the OpenAPI fragments of the loaded plugins (and core's),
// checked once at start-up against the route table. A fragment adds what the
// route table does not know (descriptions, parameters, bodies, responses,
// component schemas); docs/openapi.md describes its format. What is wrong in
// a fragment is a warning, never a failed start: the document then falls
// back to what the route table says.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"
#include "routing/route_table.h"

namespace abx::kernel {

class OpenApiCatalog {
 public:
  /** "<dir>/abx_files.so" -> "<dir>/abx_files.openapi.json". */
  static std::string fragmentPathFor(const std::string& library_path);

  /** Reads the fragment beside @p library_path, if there is one. */
  void addFile(const std::string& owner, const std::string& library_path);
  /**
   * Adds a fragment for the routes @p owner registers; @p origin names it in
   * warnings. Components clashing with an earlier one are dropped.
   */
  void addText(const std::string& owner, std::string_view text, const std::string& origin);
  /** Warns about operations of ids their owner does not register, and refs to nothing. */
  void check(const RouteTable& routes);

  /** The fragment's operation object for @p endpoint, or nullptr. */
  const sdk::Json* operation(std::string_view endpoint) const;
  /** section ("schemas", "parameters", ...) -> name -> definition. */
  using Components = std::map<std::string, std::map<std::string, sdk::Json>, std::less<>>;
  const Components& components() const { return components_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Operation {
    std::string owner;
    std::string origin;
    sdk::Json body;
  };
  void addComponents(const sdk::Json& components, const std::string& origin);

  std::map<std::string, Operation, std::less<>> operations_;
  Components components_;
  std::vector<std::string> warnings_;
};

/** Every "#/components/<section>/<name>" that @p value refers to, as {section, name}. */
void collectRefs(const sdk::Json& value, std::vector<std::pair<std::string, std::string>>& out);

}  // namespace abx::kernel
