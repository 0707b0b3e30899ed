// Facts about the PDF and page sizes of POST /browser/pdf: paper formats in
// inches, and the rough page count the spec describes (occurrences of
// "/Type /Page" that are not "/Type /Pages", at least 1).
#pragma once

#include <optional>
#include <string_view>

namespace abx::plugins::browser {

struct PaperSize {
  double width_in = 8.27;
  double height_in = 11.69;
};

/** Letter, Legal, Tabloid, Ledger, A0-A6 (any case); nullopt for others. */
std::optional<PaperSize> paperSize(std::string_view format);

/** At least 1. */
int countPdfPages(std::string_view pdf);

}  // namespace abx::plugins::browser
