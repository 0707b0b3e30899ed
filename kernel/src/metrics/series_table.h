// SeriesTable: the series of one metric, found by their label values without
// a lock once they exist (an open-addressing table of atomic pointers that
// only grows; superseded tables are kept until the metric goes), created
// under a lock, at most sdk::Metrics::kMaxSeries of them — later
// combinations share one overflow series.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/metrics.h"

namespace abx::kernel {

/** @p value cut to sdk::Metrics::kMaxLabelValueBytes, never inside a UTF-8 sequence. */
std::string_view boundedLabelValue(std::string_view value);
std::size_t hashLabelValues(const std::string_view* values, std::size_t count);

template <class Cell>
class SeriesTable {
 public:
  using Factory = std::function<std::unique_ptr<Cell>()>;
  struct Series {
    std::vector<std::string> values;
    std::size_t hash = 0;
    std::unique_ptr<Cell> cell;
  };

  SeriesTable(std::size_t label_count, Factory make, std::size_t max_series)
      : label_count_(label_count), make_(std::move(make)), max_series_(max_series) {
    publish(16);
    stray_ = make_();
  }

  /** THREAD: any. A wrong @p count gets a series that is never exported. */
  Cell& find(const std::string_view* values, std::size_t count) {
    if (count != label_count_) return *stray_;
    std::string_view bounded[kMaxLabels];
    if (count > kMaxLabels) return *stray_;
    for (std::size_t i = 0; i < count; ++i) bounded[i] = boundedLabelValue(values[i]);
    const std::size_t hash = hashLabelValues(bounded, count);
    if (Series* s = lookup(*table_.load(std::memory_order_acquire), bounded, count, hash))
      return *s->cell;
    return insert(bounded, count, hash);
  }

  /** Calls @p visit(values, cell) for each exported series, in creation order. THREAD: any. */
  void forEach(const std::function<void(const std::vector<std::string>&, const Cell&)>& visit) {
    std::lock_guard lock(mutex_);
    for (const auto& s : series_) visit(s->values, *s->cell);
    if (overflow_) visit(overflow_->values, *overflow_->cell);
  }

  static constexpr std::size_t kMaxLabels = 16;

 private:
  struct Table {
    std::size_t mask;
    std::unique_ptr<std::atomic<Series*>[]> slots;
  };

  static bool same(const Series& s, const std::string_view* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
      if (s.values[i] != values[i]) return false;
    return true;
  }

  static Series* lookup(const Table& t, const std::string_view* values, std::size_t count,
                        std::size_t hash) {
    for (std::size_t i = hash & t.mask;; i = (i + 1) & t.mask) {
      Series* s = t.slots[i].load(std::memory_order_acquire);
      if (!s) return nullptr;
      if (s->hash == hash && same(*s, values, count)) return s;
    }
  }

  static void place(Table& t, Series* s) {
    std::size_t i = s->hash & t.mask;
    while (t.slots[i].load(std::memory_order_relaxed)) i = (i + 1) & t.mask;
    t.slots[i].store(s, std::memory_order_release);
  }

  // Under mutex_ (or from the constructor): a new empty-enough table with every series.
  void publish(std::size_t size) {
    auto t = std::make_unique<Table>();
    t->mask = size - 1;
    t->slots.reset(new std::atomic<Series*>[size]());
    for (const auto& s : series_) place(*t, s.get());
    table_.store(t.get(), std::memory_order_release);
    tables_.push_back(std::move(t));
  }

  Cell& insert(const std::string_view* values, std::size_t count, std::size_t hash) {
    std::lock_guard lock(mutex_);
    Table& current = *table_.load(std::memory_order_relaxed);
    if (Series* s = lookup(current, values, count, hash)) return *s->cell;
    if (series_.size() >= max_series_) {
      if (!overflow_) {
        overflow_ = std::make_unique<Series>();
        overflow_->values.assign(count, std::string(sdk::Metrics::kOverflowValue));
        overflow_->cell = make_();
      }
      return *overflow_->cell;
    }
    auto s = std::make_unique<Series>();
    s->values.assign(values, values + count);
    s->hash = hash;
    s->cell = make_();
    series_.push_back(std::move(s));
    // At most half full, so a probe always meets an empty slot soon.
    if (series_.size() * 2 > current.mask + 1)
      publish((current.mask + 1) * 2);
    else
      place(current, series_.back().get());
    return *series_.back()->cell;
  }

  const std::size_t label_count_;
  const Factory make_;
  const std::size_t max_series_;
  std::atomic<Table*> table_{nullptr};
  std::mutex mutex_;
  std::vector<std::unique_ptr<Table>> tables_;   // under mutex_; readers may hold any
  std::vector<std::unique_ptr<Series>> series_;  // under mutex_
  std::unique_ptr<Series> overflow_;             // under mutex_
  std::unique_ptr<Cell> stray_;
};

}  // namespace abx::kernel
