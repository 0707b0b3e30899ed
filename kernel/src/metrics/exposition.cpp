#include "metrics/exposition.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace abx::kernel {

std::string formatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : "NaN";
}

namespace {

// The format's escapes: '\' and newline always, '"' in label values.
std::string escaped(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quotes)
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string escapeLabelValue(std::string_view value) { return escaped(value, true); }

std::string escapeHelp(std::string_view help) { return escaped(help, false); }

void appendHeader(std::string& out, std::string_view name, std::string_view help,
                  std::string_view type) {
  out.append("# HELP ").append(name).append(" ").append(escapeHelp(help)).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void appendSample(std::string& out, std::string_view name,
                  const std::vector<std::string>& label_names,
                  const std::vector<std::string>& label_values, double value, std::string_view le) {
  out.append(name);
  const bool any = !label_names.empty() || !le.empty();
  if (any) out += '{';
  for (std::size_t i = 0; i < label_names.size() && i < label_values.size(); ++i) {
    if (i) out += ',';
    out.append(label_names[i]).append("=\"").append(escapeLabelValue(label_values[i])) += '"';
  }
  if (!le.empty()) {
    if (!label_names.empty()) out += ',';
    out.append("le=\"").append(le) += '"';
  }
  if (any) out += '}';
  out.append(" ").append(formatMetricValue(value)) += '\n';
}

void appendHistogram(std::string& out, std::string_view name,
                     const std::vector<std::string>& label_names,
                     const std::vector<std::string>& label_values, const sdk::HistogramCell& cell) {
  const std::string bucket = std::string(name) + "_bucket";
  const auto& bounds = cell.bounds();
  // _count is the +Inf bucket, so the two agree even while observations land.
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    cumulative += cell.bucket(i);
    appendSample(out, bucket, label_names, label_values, static_cast<double>(cumulative),
                 formatMetricValue(bounds[i]));
  }
  cumulative += cell.bucket(bounds.size());
  appendSample(out, bucket, label_names, label_values, static_cast<double>(cumulative), "+Inf");
  appendSample(out, std::string(name) + "_sum", label_names, label_values, cell.sum());
  appendSample(out, std::string(name) + "_count", label_names, label_values,
               static_cast<double>(cumulative));
}

}  // namespace abx::kernel
