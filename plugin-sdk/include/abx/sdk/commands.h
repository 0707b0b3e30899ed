// Named commands: typed functions that GET /commands lists and
// POST /commands/{name} runs. Any plugin may register them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::sdk {

enum class ArgType { string, integer, floating, boolean };

/** "string", "integer", "float", "boolean": the wire names. */
ABX_SDK_API std::string_view argTypeName(ArgType type);

using CommandValue = std::variant<std::string, std::int64_t, double, bool>;
using CommandArgs = std::map<std::string, CommandValue, std::less<>>;

struct CommandArg {
  std::string name;
  ArgType type = ArgType::string;
  bool required = false;
  std::optional<CommandValue> default_value;
  std::string description;
};

/**
 * The command body. @return the JSON text of the value sent as
 * {"result": <value>}, or a failure sent as 500 {"error", "type"}.
 * THREAD: may run concurrently on several worker threads.
 */
using CommandFn = std::function<Result<std::string>(const CommandArgs& args)>;

struct CommandSpec {
  std::string name;
  std::string description;
  std::vector<CommandArg> args;
  bool hidden = false;             /**< runnable, but not listed */
  std::vector<std::string> scopes; /**< extra scopes the caller needs */
  CommandFn fn;
};

/**
 * The host's command registry. add() is accepted during Plugin::start()
 * only; afterwards the registry is frozen and safe to read from any thread.
 */
class ABX_SDK_API CommandRegistry {
 public:
  virtual Status add(CommandSpec command) = 0;
  /** In registration order. LIFETIME: the process. */
  virtual std::vector<const CommandSpec*> list() const = 0;
  virtual const CommandSpec* find(std::string_view name) const = 0;

 protected:
  ~CommandRegistry();
};

}  // namespace abx::sdk
