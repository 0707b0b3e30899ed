#include "secret_redaction.h"

#include "abx/sdk/secret_redactor.h"
#include "secrets/secret_bag.h"
#include "secrets/stream_redactor.h"

namespace abx::plugins::agents {
namespace {

class BagDeltaRedaction final : public DeltaRedaction {
 public:
  explicit BagDeltaRedaction(std::shared_ptr<const sdk::RedactionPatterns> patterns)
      : stream_(std::move(patterns)) {}
  std::string push(std::string_view delta) override { return stream_.push(delta); }
  std::string flush() override { return stream_.flush(); }

 private:
  StreamRedactor stream_;
};

class BagRedaction final : public TextRedaction {
 public:
  explicit BagRedaction(const SecretBag& bag) { redactor_.addSecrets(bag.values()); }
  std::string redact(std::string_view text) const override { return redactor_.redact(text); }
  std::unique_ptr<DeltaRedaction> newStream() const override {
    return std::make_unique<BagDeltaRedaction>(redactor_.patterns());
  }

 private:
  sdk::SecretRedactor redactor_;
};

}  // namespace

std::shared_ptr<const TextRedaction> redactionFor(const sdk::agents::AgentSpec& spec,
                                                  const std::vector<std::string>& extra) {
  auto bag = SecretBag::of(spec);
  for (const auto& value : extra) bag.add(value);
  return std::make_shared<BagRedaction>(bag);
}

}  // namespace abx::plugins::agents
