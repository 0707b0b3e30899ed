// MetricsRegistry and the exposition writer: the text format's HELP/TYPE
// lines and escaping, a histogram's cumulative buckets with +Inf, _sum and
// _count, the naming rules promtool checks, the cap on label-value
// combinations (the overflow series), cut label values, callback gauges and
// their removal, and exact counts under concurrent updates.
#include "metrics/metrics_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "abx/sdk/testing/fakes.h"
#include "metrics/exposition.h"

namespace abx::kernel {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// How many lines of @p text start with @p prefix.
std::size_t linesStartingWith(const std::string& text, const std::string& prefix) {
  std::size_t n = 0;
  for (std::size_t at = 0; at < text.size();) {
    auto end = text.find('\n', at);
    if (text.compare(at, prefix.size(), prefix) == 0) ++n;
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return n;
}

TEST(MetricsExposition, WritesHelpTypeAndEscapedLabels) {
  MetricsRegistry registry;
  auto counter = registry.counter("abx_test_events_total", "Events, with a \\ and a\nnewline.",
                                  {"kind", "where"});
  ASSERT_TRUE(counter) << counter.status().message();
  (*counter)->labels({"a\"quoted\"", "back\\slash\nline"}).inc();
  (*counter)->labels({"plain", "x"}).inc(2.5);
  const std::string text = registry.scrape();
  EXPECT_THAT(text, HasSubstr("# HELP abx_test_events_total Events, with a \\\\ and a\\nnewline.\n"
                              "# TYPE abx_test_events_total counter\n"));
  EXPECT_THAT(text, HasSubstr("abx_test_events_total{kind=\"a\\\"quoted\\\"\","
                              "where=\"back\\\\slash\\nline\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("abx_test_events_total{kind=\"plain\",where=\"x\"} 2.5\n"));
}

TEST(MetricsExposition, FormatsSpecialValues) {
  EXPECT_EQ(formatMetricValue(3), "3");
  EXPECT_EQ(formatMetricValue(0.25), "0.25");
  EXPECT_EQ(formatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(formatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(formatMetricValue(std::nan("")), "NaN");
}

TEST(MetricsExposition, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricsRegistry registry;
  auto h = registry.histogram("abx_test_latency_seconds", "Latency.", {0.25, 1, 10}, {"route"});
  ASSERT_TRUE(h) << h.status().message();
  auto& cell = (*h)->labels({"r"});
  for (double v : {0.125, 0.25, 0.5, 1.0, 7.0, 20.0}) cell.observe(v);  // le is inclusive
  const std::string text = registry.scrape();
  EXPECT_THAT(text, HasSubstr("# TYPE abx_test_latency_seconds histogram\n"
                              "abx_test_latency_seconds_bucket{route=\"r\",le=\"0.25\"} 2\n"
                              "abx_test_latency_seconds_bucket{route=\"r\",le=\"1\"} 4\n"
                              "abx_test_latency_seconds_bucket{route=\"r\",le=\"10\"} 5\n"
                              "abx_test_latency_seconds_bucket{route=\"r\",le=\"+Inf\"} 6\n"
                              "abx_test_latency_seconds_sum{route=\"r\"} 28.875\n"
                              "abx_test_latency_seconds_count{route=\"r\"} 6\n"));
}

TEST(MetricsExposition, UnlabeledHistogramHasOnlyLe) {
  MetricsRegistry registry;
  auto h = registry.histogram("abx_test_size_bytes", "Sizes.", {100}, {});
  ASSERT_TRUE(h);
  (*h)->observe(5);
  EXPECT_THAT(registry.scrape(), HasSubstr("abx_test_size_bytes_bucket{le=\"100\"} 1\n"
                                           "abx_test_size_bytes_bucket{le=\"+Inf\"} 1\n"
                                           "abx_test_size_bytes_sum 5\n"
                                           "abx_test_size_bytes_count 1\n"));
}

TEST(MetricsRegistry, RefusesWhatPromtoolWouldFlag) {
  MetricsRegistry r;
  EXPECT_FALSE(r.counter("http_requests_total", "h", {}));  // not abx_
  EXPECT_FALSE(r.counter("abx_requests", "h", {}));         // a counter without _total
  EXPECT_FALSE(r.gauge("abx_open_total", "h", {}));         // a gauge with _total
  EXPECT_FALSE(r.gauge("abx_thing_count", "h", {}));
  EXPECT_FALSE(r.gauge("abx-dash", "h", {}));
  EXPECT_FALSE(r.gauge("abx_ok", "h", {"le"}));
  EXPECT_FALSE(r.gauge("abx_ok", "h", {"__reserved"}));
  EXPECT_FALSE(r.gauge("abx_ok", "h", {"a", "a"}));
  EXPECT_FALSE(r.gauge("abx_ok", "h", {"1st"}));
  EXPECT_FALSE(r.histogram("abx_ok_seconds", "h", {1, 1}, {}));
  EXPECT_FALSE(r.histogram("abx_ok_seconds", "h", {std::nan("")}, {}));
  EXPECT_TRUE(r.gauge("abx_ok", "h", {"a"}));
  EXPECT_EQ(r.scrape().find("abx_ok_seconds"), std::string::npos);
}

TEST(MetricsRegistry, SameSpecReturnsTheSameMetricAnotherIsRefused) {
  MetricsRegistry r;
  auto first = r.counter("abx_test_restarts_total", "h", {"plugin"});
  auto again = r.counter("abx_test_restarts_total", "h", {"plugin"});
  ASSERT_TRUE(first && again);
  EXPECT_EQ(*first, *again);
  EXPECT_FALSE(r.counter("abx_test_restarts_total", "h", {"other"}));
  EXPECT_FALSE(r.gauge("abx_test_restarts_total", "h", {"plugin"}));
}

TEST(MetricsRegistry, OwnedMetricsLogsARefusalAndExportsNothing) {
  MetricsRegistry registry;
  sdk::testing::FakeLogger log;
  OwnedMetrics owned(registry, "abx.test", log);
  auto& bad = owned.counter("abx_bad", "no _total", {"x"});
  bad.labels({"y"}).inc();  // counts somewhere, harmlessly
  ASSERT_EQ(log.snapshot().size(), 1u);
  EXPECT_THAT(log.snapshot()[0], HasSubstr("abx_bad"));
  EXPECT_THAT(registry.scrape(), Not(HasSubstr("abx_bad")));
}

TEST(MetricsRegistry, CapsSeriesAndAggregatesTheRestIntoOverflow) {
  MetricsRegistry registry;
  auto c = registry.counter("abx_test_by_user_total", "h", {"user"});
  ASSERT_TRUE(c);
  const std::size_t extra = 7;
  for (std::size_t i = 0; i < sdk::Metrics::kMaxSeries + extra; ++i)
    (*c)->labels({"user-" + std::to_string(i)}).inc();
  (*c)->labels({"user-0"}).inc();  // an existing series still counts as itself
  const std::string text = registry.scrape();
  EXPECT_EQ(linesStartingWith(text, "abx_test_by_user_total{"), sdk::Metrics::kMaxSeries + 1);
  EXPECT_THAT(text, HasSubstr("abx_test_by_user_total{user=\"overflow\"} 7\n"));
  EXPECT_THAT(text, HasSubstr("abx_test_by_user_total{user=\"user-0\"} 2\n"));
}

TEST(MetricsRegistry, WrongLabelCountIsNeverExported) {
  MetricsRegistry registry;
  auto c = registry.counter("abx_test_pairs_total", "h", {"a", "b"});
  ASSERT_TRUE(c);
  (*c)->labels({"only-one"}).inc();
  (*c)->inc();
  EXPECT_EQ(linesStartingWith(registry.scrape(), "abx_test_pairs_total"), 0u);
}

TEST(MetricsRegistry, CutsLongLabelValuesOnACharacterBoundary) {
  MetricsRegistry registry;
  auto g = registry.gauge("abx_test_named", "h", {"name"});
  ASSERT_TRUE(g);
  // 127 ASCII bytes then a 2-byte character across the 128-byte cut.
  const std::string long_value = std::string(127, 'a') + "\xc3\xa9" + std::string(50, 'b');
  (*g)->labels({long_value}).set(1);
  (*g)->labels({long_value + "different tail"}).inc();  // the same series once cut
  EXPECT_THAT(registry.scrape(),
              HasSubstr("abx_test_named{name=\"" + std::string(127, 'a') + "\"} 2\n"));
}

TEST(MetricsRegistry, CallbackGaugesAreEvaluatedAtScrapeAndDroppedWithTheirOwner) {
  MetricsRegistry registry;
  int open = 3;
  ASSERT_TRUE(registry.callbackGauge("abx.test", "abx_test_open", "Open now.", {"kind"}, [&open] {
    return std::vector<sdk::GaugeSample>{{{"b"}, 1.0 * open}, {{"a"}, 2}, {{"x", "extra"}, 9}};
  }));
  open = 4;
  std::string text = registry.scrape();
  EXPECT_THAT(text, HasSubstr("# TYPE abx_test_open gauge\n"
                              "abx_test_open{kind=\"a\"} 2\n"
                              "abx_test_open{kind=\"b\"} 4\n"));
  EXPECT_THAT(text, Not(HasSubstr("extra")));
  registry.dropCallbacks("someone.else");
  EXPECT_THAT(registry.scrape(), HasSubstr("abx_test_open{"));
  registry.dropCallbacks("abx.test");
  EXPECT_THAT(registry.scrape(), Not(HasSubstr("abx_test_open")));
}

TEST(MetricsRegistry, ConcurrentUpdatesAndNewSeriesCountExactly) {
  MetricsRegistry registry;
  auto c = registry.counter("abx_test_hits_total", "h", {"series"});
  auto h = registry.histogram("abx_test_hit_seconds", "h", {0.5}, {});
  ASSERT_TRUE(c && h);
  constexpr int kThreads = 4, kEach = 20000, kSeries = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        (*c)->labels({std::to_string((i * 7 + t) % kSeries)}).inc();
        (*h)->observe(1);
      }
    });
  for (auto& t : threads) t.join();
  double total = 0;
  const std::string text = registry.scrape();
  EXPECT_EQ(linesStartingWith(text, "abx_test_hits_total{"), static_cast<std::size_t>(kSeries));
  for (int s = 0; s < kSeries; ++s) {
    auto cell = &(*c)->labels({std::to_string(s)});
    total += cell->value();
  }
  EXPECT_EQ(total, kThreads * kEach);
  EXPECT_THAT(text, HasSubstr("abx_test_hit_seconds_count " + std::to_string(kThreads * kEach)));
}

}  // namespace
}  // namespace abx::kernel
