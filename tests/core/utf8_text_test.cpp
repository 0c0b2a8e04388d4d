// Cutting text at character boundaries and replacing invalid bytes: what every proto string field needs.
#include "core/utf8_text.h"

#include <gtest/gtest.h>

namespace gammalab {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8Text, ValidTextIsUnchanged) {
  const std::string text = "loss 2.3 \xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 end";  // é, €, an emoji
  EXPECT_EQ(utf8_valid(text), text);
  EXPECT_EQ(utf8_head(text, 1000), text);
  EXPECT_EQ(utf8_tail(text, 1000), text);
}

TEST(Utf8Text, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(utf8_valid("a\xFF" "b"), "a" + kFffd + "b");
  EXPECT_EQ(utf8_valid("\x80"), kFffd) << "a stray continuation byte";
  EXPECT_EQ(utf8_valid("\xC0\xAF"), kFffd + kFffd) << "an overlong '/'";
  EXPECT_EQ(utf8_valid("\xED\xA0\x80"), kFffd + kFffd + kFffd) << "a surrogate";
  EXPECT_EQ(utf8_valid("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd) << "above U+10FFFF";
  EXPECT_EQ(utf8_valid("x\xE2\x82"), "x" + kFffd + kFffd) << "a character cut at the end";
}

TEST(Utf8Text, FirstInvalidByteIsFound) {
  EXPECT_EQ(utf8_first_invalid("plain d\xC3\xA9j\xC3\xA0 \xF0\x9F\x98\x80"), std::nullopt);
  EXPECT_EQ(utf8_first_invalid("ab\xED\xA0\x80"), 2u);  // a surrogate
  EXPECT_EQ(utf8_first_invalid("\xC0\xAF"), 0u);          // overlong
  EXPECT_EQ(utf8_first_invalid("abc\xE2\x82"), 3u);       // cut short
  EXPECT_EQ(utf8_first_invalid(""), std::nullopt);
}

TEST(Utf8Text, HeadNeverSplitsACharacter) {
  const std::string euro = "\xE2\x82\xAC";
  const std::string text = "ab" + euro + "cd";
  EXPECT_EQ(utf8_head(text, 2), "ab");
  EXPECT_EQ(utf8_head(text, 3), "ab");
  EXPECT_EQ(utf8_head(text, 4), "ab");
  EXPECT_EQ(utf8_head(text, 5), "ab" + euro);
  EXPECT_EQ(utf8_head("\xFF\xFF", 4), kFffd) << "the limit holds for replacements too";
}

TEST(Utf8Text, TailNeverStartsInsideACharacter) {
  const std::string euro = "\xE2\x82\xAC";
  const std::string text = "ab" + euro + "cd";
  EXPECT_EQ(utf8_tail(text, 2), "cd");
  EXPECT_EQ(utf8_tail(text, 4), "cd");
  EXPECT_EQ(utf8_tail(text, 5), euro + "cd");
  // The end of a file read from a byte offset inside the euro sign: its rest is dropped, not replaced.
  EXPECT_EQ(utf8_tail("\x82\xAC" "cd", 100), "cd");
  EXPECT_EQ(utf8_tail("cd\xE2\x82", 100), "cd" + kFffd + kFffd) << "a character cut at the end is invalid";
}

TEST(Utf8Text, WithoutControlsKeepsTextTabsAndNewlines) {
  const std::string euro = "\xE2\x82\xAC";
  EXPECT_EQ(utf8_without_controls("step 1\tloss " + euro + "\n"), "step 1\tloss " + euro + "\n");
  EXPECT_EQ(utf8_without_controls("\x1B[31mred\x1B[0m\r\n"), "[31mred[0m\n") << "escapes and CR dropped";
  EXPECT_EQ(utf8_without_controls(std::string("a\0b\x7F" "c", 5)), "abc") << "NUL and DEL";
  EXPECT_EQ(utf8_without_controls("x\xC2\x9By\xC2\xA0z"), "xy\xC2\xA0z") << "C1 CSI dropped, NBSP kept";
  // "Trojan Source": an override shows "exe.txt" for what reads "txt.exe"; embeddings and isolates reorder too.
  EXPECT_EQ(utf8_without_controls("run\u202Etxt.exe\u202C"), "runtxt.exe") << "RLO and PDF dropped";
  EXPECT_EQ(utf8_without_controls("\u202A\u202B\u202D\u2066a\u2067b\u2068c\u2069"), "abc")
      << "LRE, RLE, LRO and the isolates dropped";
  EXPECT_EQ(utf8_without_controls("a\u2029b\u202Fc\u206Ad\u200Ee"), "a\u2029b\u202Fc\u206Ad\u200Ee")
      << "the neighbours of both ranges, and the marks (LRM), are kept";
}

}  // namespace
}  // namespace gammalab
