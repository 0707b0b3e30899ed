#include "metrics/metrics_registry.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <utility>

#include "metrics/exposition.h"

namespace abx::kernel {
namespace {

using sdk::Status;

bool nameChar(char c, bool first, bool colon) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return letter || (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

bool validName(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!nameChar(name[i], i == 0, colon)) return false;
  return true;
}

Status refuse(std::string message) { return Status::error(std::move(message), "ValueError"); }

// The Prometheus naming rules promtool checks, so every exported name passes it.
Status checkName(std::string_view name, bool counter) {
  const std::string quoted = "metric '" + std::string(name) + "'";
  if (!validName(name, true) || !name.starts_with("abx_"))
    return refuse(quoted + ": a name matches [a-zA-Z_:][a-zA-Z0-9_:]* and starts with abx_");
  if (counter != name.ends_with("_total"))
    return refuse(quoted + (counter ? ": a counter's name ends with _total"
                                    : ": only a counter's name ends with _total"));
  for (std::string_view reserved : {"_count", "_sum", "_bucket"})
    if (name.ends_with(reserved))
      return refuse(quoted + ": a name may not end with " + std::string(reserved));
  return Status::ok();
}

Status checkLabels(std::string_view name, const std::vector<std::string>& labels) {
  const std::string quoted = "metric '" + std::string(name) + "'";
  if (labels.size() > SeriesTable<sdk::CounterCell>::kMaxLabels)
    return refuse(quoted + ": at most 16 label names");
  std::set<std::string_view> seen;
  for (const auto& label : labels) {
    if (!validName(label, false) || label.starts_with("__") || label == "le")
      return refuse(quoted + ": label name '" + label +
                    "' must match [a-zA-Z_][a-zA-Z0-9_]*, not start with __ and not be le");
    if (!seen.insert(label).second) return refuse(quoted + ": label '" + label + "' twice");
  }
  return Status::ok();
}

Status checkBounds(std::string_view name, const std::vector<double>& bounds) {
  for (std::size_t i = 0; i < bounds.size(); ++i)
    if (!std::isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1]))
      return refuse("metric '" + std::string(name) +
                    "': bucket bounds must be finite and strictly increasing");
  return Status::ok();
}

std::string_view typeName(int type) {
  static constexpr std::string_view kNames[] = {"counter", "gauge", "histogram"};
  return kNames[type];
}

// Series in label-value order, so scrapes read alike.
template <class Cell>
std::vector<std::pair<const std::vector<std::string>*, const Cell*>> sorted(
    SeriesTable<Cell>& table) {
  std::vector<std::pair<const std::vector<std::string>*, const Cell*>> out;
  table.forEach([&](const std::vector<std::string>& values, const Cell& cell) {
    out.emplace_back(&values, &cell);
  });
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return *a.first < *b.first; });
  return out;
}

}  // namespace

sdk::Result<MetricsRegistry::Metric*> MetricsRegistry::claim(std::string_view name,
                                                             std::string_view help, Type type,
                                                             std::vector<std::string>& label_names,
                                                             const std::vector<double>& bounds) {
  if (auto s = checkName(name, type == Type::counter); !s) return s;
  if (auto s = checkLabels(name, label_names); !s) return s;
  if (auto s = checkBounds(name, bounds); !s) return s;
  auto it = metrics_.find(name);
  if (it == metrics_.end()) {
    Metric& m = metrics_[std::string(name)];
    m.type = type;
    m.help = std::string(help);
    m.label_names = label_names;
    m.bounds = bounds;
    return &m;
  }
  Metric& m = it->second;
  if (m.type != type || m.label_names != label_names || m.bounds != bounds)
    return refuse("metric '" + std::string(name) +
                  "' is already registered with another type, labels or buckets");
  return &m;
}

sdk::Result<sdk::CounterFamily*> MetricsRegistry::counter(std::string_view name,
                                                          std::string_view help,
                                                          std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  auto m = claim(name, help, Type::counter, label_names, {});
  if (!m) return m.status();
  if (!(*m)->counter)
    (*m)->counter = std::make_unique<CounterMetric>(label_names.size(), std::vector<double>{});
  return static_cast<sdk::CounterFamily*>((*m)->counter.get());
}

sdk::Result<sdk::GaugeFamily*> MetricsRegistry::gauge(std::string_view name, std::string_view help,
                                                      std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  auto m = claim(name, help, Type::gauge, label_names, {});
  if (!m) return m.status();
  if ((*m)->callback) return refuse("metric '" + std::string(name) + "' is a callback gauge");
  if (!(*m)->gauge)
    (*m)->gauge = std::make_unique<GaugeMetric>(label_names.size(), std::vector<double>{});
  return static_cast<sdk::GaugeFamily*>((*m)->gauge.get());
}

sdk::Result<sdk::HistogramFamily*> MetricsRegistry::histogram(
    std::string_view name, std::string_view help, std::vector<double> bounds,
    std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  auto m = claim(name, help, Type::histogram, label_names, bounds);
  if (!m) return m.status();
  if (!(*m)->histogram)
    (*m)->histogram = std::make_unique<HistogramMetric>(label_names.size(), std::move(bounds));
  return static_cast<sdk::HistogramFamily*>((*m)->histogram.get());
}

Status MetricsRegistry::callbackGauge(std::string_view owner, std::string_view name,
                                      std::string_view help, std::vector<std::string> label_names,
                                      sdk::GaugeCallback fn) {
  std::lock_guard lock(mutex_);
  auto m = claim(name, help, Type::gauge, label_names, {});
  if (!m) return m.status();
  if ((*m)->gauge) return refuse("metric '" + std::string(name) + "' is a gauge of its own");
  (*m)->owner = std::string(owner);
  (*m)->callback = std::move(fn);
  return Status::ok();
}

void MetricsRegistry::dropCallbacks(std::string_view owner) {
  std::vector<sdk::GaugeCallback> dropped;  // destroyed outside the lock
  {
    std::lock_guard lock(mutex_);
    for (auto it = metrics_.begin(); it != metrics_.end();) {
      if (it->second.callback && it->second.owner == owner) {
        dropped.push_back(std::move(it->second.callback));
        it = metrics_.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::unique_lock wait_for_scrapes(calling_);
}

void MetricsRegistry::render(std::string& out, const std::string& name, const Metric& m) const {
  appendHeader(out, name, m.help, typeName(static_cast<int>(m.type)));
  if (m.counter)
    for (auto [values, cell] : sorted(m.counter->table))
      appendSample(out, name, m.label_names, *values, cell->value());
  if (m.gauge)
    for (auto [values, cell] : sorted(m.gauge->table))
      appendSample(out, name, m.label_names, *values, cell->value());
  if (m.histogram)
    for (auto [values, cell] : sorted(m.histogram->table))
      appendHistogram(out, name, m.label_names, *values, *cell);
}

std::string MetricsRegistry::scrape() const {
  struct Pending {
    std::string name;
    std::string help;
    std::vector<std::string> label_names;
    sdk::GaugeCallback fn;
  };
  std::string out;
  std::vector<Pending> callbacks;
  std::shared_lock calling(calling_);
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, m] : metrics_) {
      if (m.callback)
        callbacks.push_back({name, m.help, m.label_names, m.callback});
      else
        render(out, name, m);
    }
  }
  // Outside the registry's lock: a callback may take its plugin's locks, and
  // that plugin may be registering a metric meanwhile.
  for (const auto& c : callbacks) {
    auto samples = c.fn();
    std::sort(samples.begin(), samples.end(),
              [](const auto& a, const auto& b) { return a.label_values < b.label_values; });
    appendHeader(out, c.name, c.help, "gauge");
    std::size_t kept = 0;
    for (const auto& s : samples) {
      if (s.label_values.size() != c.label_names.size()) continue;
      if (++kept > sdk::Metrics::kMaxSeries) break;
      appendSample(out, c.name, c.label_names, s.label_values, s.value);
    }
  }
  return out;
}

void OwnedMetrics::refused(std::string_view name, const Status& why) {
  log_.error("metric " + std::string(name) + " not exported: " + why.message());
}

template <class Metric, class Family>
Family& OwnedMetrics::kept(std::string_view name, sdk::Result<Family*> registered,
                           std::size_t label_count, std::vector<double> bounds) {
  if (registered) return **registered;
  refused(name, registered.status());
  return registry_.detached<Metric>(label_count, std::move(bounds));
}

sdk::CounterFamily& OwnedMetrics::counter(std::string_view name, std::string_view help,
                                          std::vector<std::string> label_names) {
  const std::size_t count = label_names.size();
  return kept<CounterMetric>(name, registry_.counter(name, help, std::move(label_names)), count);
}

sdk::GaugeFamily& OwnedMetrics::gauge(std::string_view name, std::string_view help,
                                      std::vector<std::string> label_names) {
  const std::size_t count = label_names.size();
  return kept<GaugeMetric>(name, registry_.gauge(name, help, std::move(label_names)), count);
}

sdk::HistogramFamily& OwnedMetrics::histogram(std::string_view name, std::string_view help,
                                              std::vector<double> bounds,
                                              std::vector<std::string> label_names) {
  const std::size_t count = label_names.size();
  auto registered = registry_.histogram(name, help, bounds, std::move(label_names));
  // An unexported stand-in still needs buckets it can count in.
  std::erase_if(bounds, [](double b) { return !std::isfinite(b); });
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  return kept<HistogramMetric>(name, std::move(registered), count, std::move(bounds));
}

void OwnedMetrics::labeledCallbackGauge(std::string_view name, std::string_view help,
                                        std::vector<std::string> label_names,
                                        sdk::GaugeCallback fn) {
  if (auto s = registry_.callbackGauge(owner_, name, help, std::move(label_names), std::move(fn));
      !s)
    refused(name, s);
}

}  // namespace abx::kernel
