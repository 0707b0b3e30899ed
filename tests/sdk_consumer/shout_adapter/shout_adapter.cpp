// com.acme.adapter.shout: the smallest useful AgentAdapter a third party
// could ship. Its "CLI" is `tr a-z A-Z` reading the prompt on stdin; every
// output line becomes the turn's message. It proves the adapter ABI works
// from outside the tree: a service registration, an Invocation, a parser.
#include <memory>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/declare_adapter.h"

namespace {

namespace agents = abx::sdk::agents;

class ShoutParser final : public agents::EventParser {
 public:
  void feed(std::string_view line, std::vector<agents::ParsedEvent>& out) override {
    text_ += (text_.empty() ? "" : "\n") + std::string(line);
    agents::ParsedEvent e;
    e.kind = agents::ParsedKind::message;
    e.id = "shout";
    e.text = text_;
    out.push_back(std::move(e));
  }
  void finish(int exit_code, std::vector<agents::ParsedEvent>& out) override {
    agents::ParsedEvent e;
    e.kind = agents::ParsedKind::result;
    e.ok = exit_code == 0;
    e.text = text_;
    out.push_back(std::move(e));
  }

 private:
  std::string text_;
};

class ShoutAdapter final : public agents::AgentAdapter {
 public:
  std::string name() const override { return "acme-shout"; }
  std::string binary() const override { return "tr"; }
  agents::AdapterCapabilities capabilities() const override {
    agents::AdapterCapabilities c;
    c.experimental = true;
    return c;
  }
  std::vector<std::string> validate(const agents::AgentSpec&) const override { return {}; }
  abx::sdk::Result<agents::Invocation> buildInvocation(
      const agents::TurnContext& turn) const override {
    agents::Invocation inv;
    inv.argv = {"tr", "a-z", "A-Z"};
    inv.stdin_data = turn.prompt + "\n";
    return inv;
  }
  std::unique_ptr<agents::EventParser> newParser(const agents::TurnContext&) const override {
    return std::make_unique<ShoutParser>();
  }
  agents::EnvList credentialEnv(const agents::AgentSpec&) const override { return {}; }
};

}  // namespace

// The plugin: one default-constructed ShoutAdapter provided as the
// abx.agent_adapter.v1 service "shout" (SDK 2.0).
ABX_DECLARE_ADAPTER(ShoutAdapter, "com.acme.adapter.shout", "0.1.0")
