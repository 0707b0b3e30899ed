// FakeMetrics: an in-memory Metrics for plugin unit tests (fake_host.h hands
// it out), so a test reads back what a plugin counted without a kernel. It
// checks no names and keeps every series; the kernel's registry enforces the
// rules of metrics.h.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "abx/sdk/metrics.h"

namespace abx::sdk::testing {

template <class Cell, class Base>
class FakeFamily final : public Base {
 public:
  explicit FakeFamily(std::vector<double> bounds = {}) : bounds_(std::move(bounds)) {}
  Cell& cell(const std::string_view* values, std::size_t count) override {
    std::vector<std::string> key(values, values + count);
    std::lock_guard lock(mutex_);
    auto& slot = cells_[key];
    if constexpr (std::is_same_v<Cell, HistogramCell>) {
      if (!slot) slot = std::make_unique<Cell>(bounds_);
    } else {
      if (!slot) slot = std::make_unique<Cell>();
    }
    return *slot;
  }

 private:
  const std::vector<double> bounds_;
  std::mutex mutex_;
  std::map<std::vector<std::string>, std::unique_ptr<Cell>> cells_;
};

class FakeMetrics final : public Metrics {
 public:
  using Counter = FakeFamily<CounterCell, CounterFamily>;
  using Gauge = FakeFamily<GaugeCell, GaugeFamily>;
  using Histogram = FakeFamily<HistogramCell, HistogramFamily>;

  CounterFamily& counter(std::string_view name, std::string_view,
                         std::vector<std::string>) override {
    return find(counters, name);
  }
  GaugeFamily& gauge(std::string_view name, std::string_view, std::vector<std::string>) override {
    return find(gauges, name);
  }
  HistogramFamily& histogram(std::string_view name, std::string_view, std::vector<double> bounds,
                             std::vector<std::string>) override {
    return find(histograms, name, std::move(bounds));
  }
  void labeledCallbackGauge(std::string_view name, std::string_view, std::vector<std::string>,
                            GaugeCallback fn) override {
    std::lock_guard lock(mutex);
    callbacks[std::string(name)] = std::move(fn);
  }

  /** The value of a callback gauge's series @p values now; -1 when it has none. */
  double callbackValue(std::string_view name, const std::vector<std::string>& values = {}) {
    GaugeCallback fn;
    {
      std::lock_guard lock(mutex);
      auto it = callbacks.find(std::string(name));
      if (it == callbacks.end()) return -1;
      fn = it->second;
    }
    for (const auto& sample : fn())
      if (sample.label_values == values) return sample.value;
    return -1;
  }

  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Counter>, std::less<>> counters;
  std::map<std::string, std::unique_ptr<Gauge>, std::less<>> gauges;
  std::map<std::string, std::unique_ptr<Histogram>, std::less<>> histograms;
  std::map<std::string, GaugeCallback, std::less<>> callbacks;

 private:
  template <class Family, class... Args>
  Family& find(std::map<std::string, std::unique_ptr<Family>, std::less<>>& in,
               std::string_view name, Args&&... args) {
    std::lock_guard lock(mutex);
    auto& slot = in[std::string(name)];
    if (!slot) slot = std::make_unique<Family>(std::forward<Args>(args)...);
    return *slot;
  }
};

}  // namespace abx::sdk::testing
