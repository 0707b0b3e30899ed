// MetricsRegistry: every metric GET /metrics exports, the kernel's and the
// plugins', by name; it checks the rules of abx/sdk/metrics.h at
// registration and renders the Prometheus text format (0.0.4) at a scrape.
// OwnedMetrics is the sdk::Metrics one owner (a plugin, or the kernel) gets:
// a refused registration is logged there and answered with a metric that is
// never exported.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "abx/sdk/logger.h"
#include "abx/sdk/metrics.h"
#include "abx/sdk/status.h"
#include "metrics/series_table.h"

namespace abx::kernel {

/** A metric's series behind the SDK interface @p Base. */
template <class Cell, class Base>
class MetricFamily final : public Base {
 public:
  MetricFamily(std::size_t label_count, std::vector<double> bucket_bounds)
      : bounds(std::move(bucket_bounds)),
        table(
            label_count, [this] { return makeCell(); }, sdk::Metrics::kMaxSeries) {}
  Cell& cell(const std::string_view* values, std::size_t count) override {
    return table.find(values, count);
  }

  const std::vector<double> bounds;
  SeriesTable<Cell> table;

 private:
  std::unique_ptr<Cell> makeCell() {
    if constexpr (std::is_same_v<Cell, sdk::HistogramCell>)
      return std::make_unique<Cell>(bounds);
    else
      return std::make_unique<Cell>();
  }
};

using CounterMetric = MetricFamily<sdk::CounterCell, sdk::CounterFamily>;
using GaugeMetric = MetricFamily<sdk::GaugeCell, sdk::GaugeFamily>;
using HistogramMetric = MetricFamily<sdk::HistogramCell, sdk::HistogramFamily>;

class MetricsRegistry {
 public:
  /** The text format's media type. */
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  sdk::Result<sdk::CounterFamily*> counter(std::string_view name, std::string_view help,
                                           std::vector<std::string> label_names);
  sdk::Result<sdk::GaugeFamily*> gauge(std::string_view name, std::string_view help,
                                       std::vector<std::string> label_names);
  sdk::Result<sdk::HistogramFamily*> histogram(std::string_view name, std::string_view help,
                                               std::vector<double> bounds,
                                               std::vector<std::string> label_names);
  /** @p owner: whose callback it is, for dropCallbacks(). */
  sdk::Status callbackGauge(std::string_view owner, std::string_view name, std::string_view help,
                            std::vector<std::string> label_names, sdk::GaugeCallback fn);
  /** Forgets @p owner's callbacks; returns once no scrape runs one of them. */
  void dropCallbacks(std::string_view owner);

  /** A metric that counts but is never exported (for a refused registration). */
  template <class Family>
  Family& detached(std::size_t label_count, std::vector<double> bounds = {}) {
    std::lock_guard lock(mutex_);
    auto family = std::make_shared<Family>(label_count, std::move(bounds));
    detached_.push_back(family);
    return *family;
  }

  /** Every metric in the text format, sorted by name. THREAD: any. */
  std::string scrape() const;

 private:
  enum class Type { counter, gauge, histogram };
  struct Metric {
    Type type = Type::counter;
    std::string help;
    std::vector<std::string> label_names;
    std::vector<double> bounds;
    std::unique_ptr<CounterMetric> counter;
    std::unique_ptr<GaugeMetric> gauge;
    std::unique_ptr<HistogramMetric> histogram;
    std::string owner;  // a callback gauge's
    sdk::GaugeCallback callback;
  };

  /** The registered metric of @p name, or a new one; the refusal when they differ. */
  sdk::Result<Metric*> claim(std::string_view name, std::string_view help, Type type,
                             std::vector<std::string>& label_names,
                             const std::vector<double>& bounds);
  void render(std::string& out, const std::string& name, const Metric& m) const;

  mutable std::mutex mutex_;  // the map, and registration
  // Held shared by a scrape while it runs callbacks, exclusively by dropCallbacks().
  mutable std::shared_mutex calling_;
  std::map<std::string, Metric, std::less<>> metrics_;
  std::vector<std::shared_ptr<void>> detached_;
};

class OwnedMetrics final : public sdk::Metrics {
 public:
  OwnedMetrics(MetricsRegistry& registry, std::string owner, sdk::Logger& log)
      : registry_(registry), owner_(std::move(owner)), log_(log) {}

  sdk::CounterFamily& counter(std::string_view name, std::string_view help,
                              std::vector<std::string> label_names) override;
  sdk::GaugeFamily& gauge(std::string_view name, std::string_view help,
                          std::vector<std::string> label_names) override;
  sdk::HistogramFamily& histogram(std::string_view name, std::string_view help,
                                  std::vector<double> bounds,
                                  std::vector<std::string> label_names) override;
  void labeledCallbackGauge(std::string_view name, std::string_view help,
                            std::vector<std::string> label_names, sdk::GaugeCallback fn) override;

 private:
  void refused(std::string_view name, const sdk::Status& why);
  /** @p registered's metric, or (logged) one that is never exported. */
  template <class Metric, class Family>
  Family& kept(std::string_view name, sdk::Result<Family*> registered, std::size_t label_count,
               std::vector<double> bounds = {});

  MetricsRegistry& registry_;
  const std::string owner_;
  sdk::Logger& log_;
};

}  // namespace abx::kernel
