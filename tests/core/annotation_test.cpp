// Notes and tags (core/annotation.h): what a change may hold, the tags after it, and what a search means.
#include "core/annotation.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gammalab {
namespace {

std::string refusal(const AnnotationChange& change) {
  try {
    check_annotation_change(change);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Annotation, AChangeIsRefusedNamingTheFieldItsLimitAndTheValue) {
  EXPECT_EQ(refusal({std::string("two\nlines\tand a tab"), {"ablation", "lr=3e-4", "run/a:b+c_d.e-f"}, {"old"}}), "");
  EXPECT_EQ(refusal({std::string(""), {}, {}}), "") << "an empty note clears it";
  EXPECT_EQ(refusal({std::string(4000, 'x'), {}, {}}), "");
  EXPECT_EQ(refusal({std::string(4001, 'x'), {}, {}}), "note: at most 4000 bytes, got 4001");
  EXPECT_EQ(refusal({std::string("bad \xff byte"), {}, {}}), "note: not UTF-8");
  EXPECT_EQ(refusal({std::string("\x1b[2Jcleared"), {}, {}}),
            "note: control characters other than newline and tab are refused");
  EXPECT_EQ(refusal({std::string("reads \xe2\x80\xae" "backwards"), {}, {}}),  // U+202E, a right-to-left override
            "note: control characters other than newline and tab are refused");
  EXPECT_EQ(refusal({std::nullopt, {"two words"}, {}}),
            "add_tags: 'two words' is not a tag: letters, digits and . _ - : + / = only");
  EXPECT_EQ(refusal({std::nullopt, {"a,b"}, {}}), "add_tags: 'a,b' is not a tag: letters, digits and . _ - : + / = only");
  EXPECT_EQ(refusal({std::nullopt, {""}, {}}), "add_tags: a tag is 1 to 40 characters, got 0 ('')");
  EXPECT_EQ(refusal({std::nullopt, {}, {std::string(41, 't')}}),
            "remove_tags: a tag is 1 to 40 characters, got 41 ('" + std::string(41, 't') + "')");
  EXPECT_EQ(refusal({std::nullopt, std::vector<std::string>(33, "t"), {}}), "add_tags: at most 32 tags, got 33");
  EXPECT_EQ(refusal({std::nullopt, {"a"}, {"a"}}), "tags: 'a' is both added and removed");
  EXPECT_EQ(refusal({}), "nothing to change: give a note, tags to add or tags to remove");
}

TEST(Annotation, TagsAfterAChangeAreSortedDistinctAndBounded) {
  EXPECT_EQ(tags_after({"b", "d"}, {std::nullopt, {"c", "a", "c"}, {"d", "absent"}}),
            (std::vector<std::string>{"a", "b", "c"}));
  std::vector<std::string> full;
  for (int i = 0; i < 32; ++i) full.push_back("t" + std::to_string(i));
  EXPECT_EQ(tags_after(full, {std::nullopt, {"t0"}, {}}).size(), 32u) << "a tag already there is not one more";
  try {
    tags_after(full, {std::nullopt, {"one-more"}, {}});
    FAIL() << "33 tags";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "tags: at most 32 on one sweep or run; this change gives 33");
  }
}

TEST(Annotation, ASearchMatchesEveryWordAnywhereAndATagExactly) {
  const auto words = search_words("  Diverged   tag:ablation ");
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0].text, "diverged");
  EXPECT_FALSE(words[0].tag);
  EXPECT_EQ(words[1].text, "ablation");
  EXPECT_TRUE(words[1].tag);
  const std::vector<std::string> tags = {"ablation", "paper-fig3"};
  EXPECT_TRUE(matches_search(words, {"own-script", "The run DIVERGED at 48k"}, tags));
  EXPECT_FALSE(matches_search(words, {"own-script", "fine"}, tags)) << "every word must be found";
  EXPECT_FALSE(matches_search(search_words("tag:abl"), {"ablation in the name"}, tags)) << "a tag is exact";
  EXPECT_TRUE(matches_search(search_words("abl"), {"x"}, tags)) << "a word is found inside a tag too";
  EXPECT_TRUE(matches_search(search_words("fig3 OWN"), {"own-script"}, tags));
  for (const std::string& bad : {std::string(""), std::string("   "), std::string(201, 'a'), std::string("a b c d e f g h i"),
                                 std::string("tag:two,tags"), std::string("\xff")}) {
    EXPECT_THROW(search_words(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace gammalab
