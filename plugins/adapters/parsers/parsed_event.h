// The one constructor of a ParsedEvent every parser uses for its common
// fields (kind, id, text); parsers fill the rest by name.
#pragma once

#include <string>
#include <utility>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

inline sdk::agents::ParsedEvent parsedEvent(sdk::agents::ParsedKind kind, std::string id = {},
                                            std::string text = {}) {
  sdk::agents::ParsedEvent e;
  e.kind = kind;
  e.id = std::move(id);
  e.text = std::move(text);
  return e;
}

}  // namespace abx::plugins::adapters
