// The Prometheus text exposition format, version 0.0.4: the HELP and TYPE
// lines, samples with escaped label values, and a histogram's cumulative
// _bucket series (ending with le="+Inf"), _sum and _count.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/metrics.h"

namespace abx::kernel {

/** A sample value: shortest round-trip decimal, "+Inf", "-Inf" or "NaN". */
std::string formatMetricValue(double value);
/** A label value with '\', '"' and newline escaped. */
std::string escapeLabelValue(std::string_view value);
/** HELP text with '\' and newline escaped. */
std::string escapeHelp(std::string_view help);

/** "# HELP name help" and "# TYPE name type". */
void appendHeader(std::string& out, std::string_view name, std::string_view help,
                  std::string_view type);
/** One line; @p le (a histogram bucket's bound) is added after the other labels when set. */
void appendSample(std::string& out, std::string_view name,
                  const std::vector<std::string>& label_names,
                  const std::vector<std::string>& label_values, double value,
                  std::string_view le = {});
/** A histogram series: its buckets cumulated, then _sum and _count. */
void appendHistogram(std::string& out, std::string_view name,
                     const std::vector<std::string>& label_names,
                     const std::vector<std::string>& label_values, const sdk::HistogramCell& cell);

}  // namespace abx::kernel
