// Names, errors and logs from the server reach the terminal without control characters: a sweep named with an
// escape sequence prints as plain text, in tables and in everything else the CLI prints.
#include "cli/terminal_text.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cli/job_view.h"

namespace gammalab::cli {
namespace {

// A name that would clear the screen, retitle the window, ring the bell, and start a CSI in its C1 form.
const std::string kHostile = "evil\x1b[2J\x1b]0;owned\x07name\r\x7f\xc2\x9b" "31m\x08!";

bool has_control(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f) return true;
  }
  return false;
}

TEST(TerminalText, StripsC0DelAndC1ButKeepsTabsNewlinesAndText) {
  EXPECT_EQ(terminal_text(kHostile), "evil[2J]0;ownedname31m!");
  EXPECT_EQ(terminal_text("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(terminal_text("γ-unified € \xF0\x9F\x98\x80"), "γ-unified € \xF0\x9F\x98\x80");
  EXPECT_EQ(terminal_text("\xc2\xa0"), "\xc2\xa0") << "U+00A0 is not C1";
  EXPECT_EQ(terminal_text("x\x9b" "y"), "x\xEF\xBF\xBDy") << "a raw 8-bit CSI byte is not UTF-8: replaced";
  EXPECT_EQ(terminal_text("lr-\u202E1e-3\u2066x"), "lr-1e-3x") << "a bidirectional override or isolate is dropped";
  EXPECT_EQ(terminal_text("a\xE2\x80"), "a\xEF\xBF\xBD\xEF\xBF\xBD")
      << "a character cut off at the end: each byte replaced, nothing read past it";
}

TEST(TerminalText, TablesPrintNamesAndErrorsFromTheServerWithoutControlCharacters) {
  v1::Sweep sweep;
  sweep.set_id("1");
  sweep.set_name(kHostile);
  v1::Job job;
  job.set_id("2");
  job.set_name(kHostile + "\nsecond line");
  job.set_worker_id("w\x1b[1A");
  for (const std::string& text : {sweeps_table({sweep}), jobs_table({job}), progress_lines({job})}) {
    EXPECT_FALSE(has_control(text)) << text;
    EXPECT_NE(text.find("evil[2J]0;ownedname31m!"), std::string::npos) << text;
  }
  const std::string jobs = jobs_table({job});
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 3) << "a cell stays on its row:\n" << jobs;
}

}  // namespace
}  // namespace gammalab::cli
