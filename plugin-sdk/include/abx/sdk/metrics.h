// Metrics: the counters, gauges and histograms GET /metrics exports in the
// Prometheus text format, for the kernel and plugins alike (reached through
// HostContext::metrics()). Since ABI 2.2.
//
//   auto& turns = host.metrics().counter("abx_agent_turns_finished_total",
//                                        "Agent turns finished.", {"runtime", "outcome"});
//   turns.labels({"codex", "completed"}).inc();   // hot path: no lock once the series exists
//
// Rules the host enforces:
// - A name matches [a-zA-Z_:][a-zA-Z0-9_:]* and starts with "abx_"; the host
//   prefixes nothing. Label names match [a-zA-Z_][a-zA-Z0-9_]*, never start
//   with "__", and "le" is reserved for histograms.
// - Registering a name again with the same type and label names returns the
//   same metric (a restarted plugin keeps counting); anything else is a
//   programming error: the host logs it and returns a metric that counts but
//   is never exported, so a metric can never take a plugin down.
// - Label names are fixed at registration; labels() takes one value per name,
//   in order (a wrong count lands in the unexported series as well).
// - Cardinality is bounded: a metric keeps at most kMaxSeries label-value
//   combinations; updates for new combinations beyond that are aggregated into
//   one series whose every label value is kOverflowValue. Values longer than
//   kMaxLabelValueBytes are cut. Never use an unbounded value (a path, an id)
//   as a label.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/version.h"

namespace abx::sdk {

/** One series of a counter: only goes up. THREAD: any; lock-free. */
class CounterCell {
 public:
  void inc(double by = 1.0) noexcept {
    if (by > 0) value_.fetch_add(by, std::memory_order_relaxed);
  }
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

/** One series of a gauge: a value that goes up and down. THREAD: any; lock-free. */
class GaugeCell {
 public:
  void set(double value) noexcept { value_.store(value, std::memory_order_relaxed); }
  void inc(double by = 1.0) noexcept { value_.fetch_add(by, std::memory_order_relaxed); }
  void dec(double by = 1.0) noexcept { value_.fetch_sub(by, std::memory_order_relaxed); }
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

/**
 * One series of a histogram: observations counted into buckets by upper
 * bound (le), with their sum. THREAD: any; lock-free.
 */
class HistogramCell {
 public:
  /** @p bounds: strictly increasing, finite; LIFETIME: outlives the cell (the metric's). */
  explicit HistogramCell(const std::vector<double>& bounds)
      : bounds_(bounds), counts_(new std::atomic<std::uint64_t>[bounds.size() + 1]()) {}

  void observe(double value) noexcept {
    // The first bound >= value; past the last one: the +Inf bucket.
    auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
    counts_[static_cast<std::size_t>(at)].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
  }
  const std::vector<double>& bounds() const noexcept { return bounds_; }
  /** Observations in bucket @p i alone (not cumulative); i == bounds().size(): above the last. */
  std::uint64_t bucket(std::size_t i) const noexcept {
    return counts_[i].load(std::memory_order_relaxed);
  }
  double sum() const noexcept { return sum_.load(std::memory_order_relaxed); }

 private:
  const std::vector<double>& bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;
  std::atomic<double> sum_{0.0};
};

/**
 * A counter and its series. LIFETIME: the host's; valid until the server
 * exits, also after the plugin that registered it stopped. A cell reference
 * stays valid as long, so hot paths may keep it.
 */
class ABX_SDK_API CounterFamily {
 public:
  /** The series of @p values, one per label name; created on first use. THREAD: any. */
  virtual CounterCell& cell(const std::string_view* values, std::size_t count) = 0;
  CounterCell& labels(std::initializer_list<std::string_view> values) {
    return cell(values.begin(), values.size());
  }
  /** The series of a metric without labels. */
  void inc(double by = 1.0) { cell(nullptr, 0).inc(by); }

 protected:
  ~CounterFamily();
};

/** A gauge and its series (see CounterFamily). */
class ABX_SDK_API GaugeFamily {
 public:
  virtual GaugeCell& cell(const std::string_view* values, std::size_t count) = 0;
  GaugeCell& labels(std::initializer_list<std::string_view> values) {
    return cell(values.begin(), values.size());
  }
  GaugeCell& unlabeled() { return cell(nullptr, 0); }

 protected:
  ~GaugeFamily();
};

/** A histogram and its series (see CounterFamily). */
class ABX_SDK_API HistogramFamily {
 public:
  virtual HistogramCell& cell(const std::string_view* values, std::size_t count) = 0;
  HistogramCell& labels(std::initializer_list<std::string_view> values) {
    return cell(values.begin(), values.size());
  }
  void observe(double value) { cell(nullptr, 0).observe(value); }

 protected:
  ~HistogramFamily();
};

/** One series a callback gauge reports: a value per label name, and the value. */
struct GaugeSample {
  std::vector<std::string> label_values;
  double value = 0.0;
};
/** Evaluated at each scrape. */
using GaugeCallback = std::function<std::vector<GaugeSample>()>;

/** The registry. THREAD: any. LIFETIME: outlives the plugin. */
class ABX_SDK_API Metrics {
 public:
  /** Label-value combinations one metric keeps before it aggregates the rest. */
  static constexpr std::size_t kMaxSeries = 1000;
  static constexpr std::size_t kMaxLabelValueBytes = 128;
  static constexpr std::string_view kOverflowValue = "overflow";

  virtual CounterFamily& counter(std::string_view name, std::string_view help,
                                 std::vector<std::string> label_names) = 0;
  virtual GaugeFamily& gauge(std::string_view name, std::string_view help,
                             std::vector<std::string> label_names) = 0;
  /** @p bounds: the buckets' upper bounds, strictly increasing, finite (+Inf is implied). */
  virtual HistogramFamily& histogram(std::string_view name, std::string_view help,
                                     std::vector<double> bounds,
                                     std::vector<std::string> label_names) = 0;
  /**
   * A gauge whose series @p fn computes at each scrape ("how many X exist
   * now"), cut to kMaxSeries. @p fn runs on the scraping thread while the
   * registry is locked: it must be quick and must not register metrics.
   * LIFETIME: the host drops a plugin's callbacks when the plugin stops,
   * before its library is unloaded; a second registration of the name
   * replaces the first.
   */
  virtual void labeledCallbackGauge(std::string_view name, std::string_view help,
                                    std::vector<std::string> label_names, GaugeCallback fn) = 0;
  /** A callback gauge without labels. */
  void callbackGauge(std::string_view name, std::string_view help, std::function<double()> fn) {
    labeledCallbackGauge(name, help, {}, [fn = std::move(fn)] {
      return std::vector<GaugeSample>{GaugeSample{{}, fn()}};
    });
  }

 protected:
  ~Metrics();
};

}  // namespace abx::sdk
