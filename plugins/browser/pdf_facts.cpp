#include "pdf_facts.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace abx::plugins::browser {

std::optional<PaperSize> paperSize(std::string_view format) {
  std::string name(format);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  struct Row {
    const char* name;
    PaperSize size;
  };
  // Playwright's table.
  static const Row kRows[] = {{"letter", {8.5, 11}}, {"legal", {8.5, 14}},  {"tabloid", {11, 17}},
                              {"ledger", {17, 11}},  {"a0", {33.1, 46.8}},  {"a1", {23.4, 33.1}},
                              {"a2", {16.54, 23.4}}, {"a3", {11.7, 16.54}}, {"a4", {8.27, 11.7}},
                              {"a5", {5.83, 8.27}},  {"a6", {4.13, 5.83}}};
  for (const Row& row : kRows)
    if (name == row.name) return row.size;
  return std::nullopt;
}

int countPdfPages(std::string_view pdf) {
  int pages = 0;
  constexpr std::string_view kMark = "/Type /Page";
  for (std::size_t at = pdf.find(kMark); at != std::string_view::npos;
       at = pdf.find(kMark, at + 1)) {
    const std::size_t after = at + kMark.size();
    if (after < pdf.size() && pdf[after] == 's') continue;
    ++pages;
  }
  // Chromium writes "/Type/Page" without the space.
  constexpr std::string_view kTight = "/Type/Page";
  for (std::size_t at = pdf.find(kTight); at != std::string_view::npos;
       at = pdf.find(kTight, at + 1)) {
    const std::size_t after = at + kTight.size();
    if (after < pdf.size() && pdf[after] == 's') continue;
    ++pages;
  }
  return std::max(pages, 1);
}

}  // namespace abx::plugins::browser
