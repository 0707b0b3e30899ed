// POST /browser/pdf's facts: the paper formats it accepts (inches, any case)
// and the spec's rough page count ("/Type /Page" that is not "/Type /Pages",
// at least 1), also in Chromium's spelling without the space.
#include <gtest/gtest.h>

#include "pdf_facts.h"

namespace abx::plugins::browser {
namespace {

TEST(PaperSize, KnownFormatsInInches) {
  auto a4 = paperSize("A4");
  ASSERT_TRUE(a4);
  EXPECT_DOUBLE_EQ(a4->width_in, 8.27);
  EXPECT_DOUBLE_EQ(a4->height_in, 11.7);
  auto letter = paperSize("Letter");
  ASSERT_TRUE(letter);
  EXPECT_DOUBLE_EQ(letter->width_in, 8.5);
  EXPECT_DOUBLE_EQ(letter->height_in, 11);
  EXPECT_DOUBLE_EQ(paperSize("Legal")->height_in, 14);
  EXPECT_DOUBLE_EQ(paperSize("Tabloid")->width_in, 11);
  EXPECT_DOUBLE_EQ(paperSize("A0")->height_in, 46.8);
  EXPECT_DOUBLE_EQ(paperSize("A6")->width_in, 4.13);
}

TEST(PaperSize, LedgerIsTabloidTurnedSideways) {
  auto ledger = paperSize("Ledger");
  auto tabloid = paperSize("Tabloid");
  ASSERT_TRUE(ledger && tabloid);
  EXPECT_DOUBLE_EQ(ledger->width_in, tabloid->height_in);
  EXPECT_DOUBLE_EQ(ledger->height_in, tabloid->width_in);
}

TEST(PaperSize, AnyCase) {
  EXPECT_TRUE(paperSize("a4"));
  EXPECT_TRUE(paperSize("LETTER"));
  EXPECT_TRUE(paperSize("lEgAl"));
}

TEST(PaperSize, EverySizeFromA0ToA6Shrinks) {
  double previous = 1e9;
  for (const char* name : {"A0", "A1", "A2", "A3", "A4", "A5", "A6"}) {
    auto size = paperSize(name);
    ASSERT_TRUE(size) << name;
    EXPECT_LT(size->height_in, previous) << name;
    EXPECT_LT(size->width_in, size->height_in) << name;
    previous = size->height_in;
  }
}

TEST(PaperSize, UnknownFormatsAreRefused) {
  for (const char* name : {"", "A7", "B5", "Executive", "A4 ", " letter", "A", "Letterx"})
    EXPECT_FALSE(paperSize(name)) << '"' << name << '"';
}

TEST(CountPdfPages, AtLeastOne) {
  EXPECT_EQ(countPdfPages(""), 1);
  EXPECT_EQ(countPdfPages("%PDF-1.4\n%%EOF"), 1);
  // A page tree alone holds no page.
  EXPECT_EQ(countPdfPages("<< /Type /Pages /Kids [] /Count 0 >>"), 1);
}

TEST(CountPdfPages, CountsPagesButNotThePageTree) {
  const std::string pdf =
      "%PDF-1.4\n"
      "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
      "2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >> endobj\n"
      "3 0 obj << /Type /Page /Parent 2 0 R >> endobj\n"
      "4 0 obj << /Type /Page /Parent 2 0 R >> endobj\n"
      "5 0 obj << /Type /Page /Parent 2 0 R >> endobj\n"
      "%%EOF";
  EXPECT_EQ(countPdfPages(pdf), 3);
}

TEST(CountPdfPages, ChromiumSpellingWithoutTheSpace) {
  // Skia (Chromium's printToPDF) writes "/Type/Page" with no space.
  const std::string pdf =
      "<</Type/Pages/Count 2/Kids[3 0 R 4 0 R]>>"
      "<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>"
      "<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>";
  EXPECT_EQ(countPdfPages(pdf), 2);
}

TEST(CountPdfPages, BothSpellingsAddUpAndAMarkAtTheVeryEndCounts) {
  EXPECT_EQ(countPdfPages("<</Type/Page>> << /Type /Page >> /Type /Page"), 3);
  EXPECT_EQ(countPdfPages("/Type/Pages /Type /Pages /Type/Page"), 1);
  EXPECT_EQ(countPdfPages(std::string(5, '\0') + "/Type /Page" + "/Type/Page"), 2);
}

}  // namespace
}  // namespace abx::plugins::browser
