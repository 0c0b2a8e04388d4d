#pragma once
// Notes and tags on sweeps and runs: what a researcher writes beside a study ("baseline diverged at 48k: LR too
// high"), and labels to find it again across sweeps (`ablation`, `paper-fig3`). Plain C++, no gRPC: the store
// keeps them (server/store/annotations.cpp), the coordinator checks every change with check_annotation_change
// whichever door it came through, and search_words/matches_search are the one meaning of a search.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab {

namespace annotation_limits {
inline constexpr std::size_t kNoteBytes = 4000;   // a note: a paragraph, not a document
inline constexpr std::size_t kTags = 32;          // tags on one sweep or run
inline constexpr std::size_t kTagBytes = 40;      // one tag
inline constexpr std::size_t kSearchBytes = 200;  // a search's text
inline constexpr std::size_t kSearchWords = 8;    // and its words
inline constexpr std::size_t kSearchHits = 200;   // the most hits one search returns
}  // namespace annotation_limits

// The note and tags of a sweep (job_id empty) or of one of its runs.
struct Annotation {
  std::string sweep_id;
  std::string job_id;             // empty: the sweep's own
  std::string note;               // UTF-8, newlines allowed, no other control characters
  std::vector<std::string> tags;  // sorted, distinct
  std::int64_t updated_ms = 0;    // 0: never written

  bool operator==(const Annotation&) const = default;
};

// A sweep or run a search found: its annotation (its ids even where nothing is written) and names.
struct SearchHit {
  Annotation annotation;
  std::string sweep_name;
  std::string job_name;  // empty for a sweep

  bool operator==(const SearchHit&) const = default;
};

// A change: the note replaced when given (empty clears it), tags added and removed.
struct AnnotationChange {
  std::optional<std::string> note;
  std::vector<std::string> add_tags;
  std::vector<std::string> remove_tags;
};

// Throws std::invalid_argument naming the field, its limit and the value when the change is not one to store: a
// note over kNoteBytes, not UTF-8, or with a control character other than newline and tab (or a bidirectional
// override); a tag that is empty, longer than kTagBytes or not of letters, digits and . _ - : + / =; more tags
// than kTags in one field; a tag both added and removed; nothing changed at all.
void check_annotation_change(const AnnotationChange& change);

// The tags after `change` (sorted, distinct); throws std::invalid_argument when they would be more than kTags.
std::vector<std::string> tags_after(const std::vector<std::string>& tags, const AnnotationChange& change);

// A search's text as its words: split at spaces; "tag:NAME" asks for that tag exactly, any other word for text
// anywhere in a name, a description, a note or a tag, case-insensitively (ASCII). Throws std::invalid_argument
// for an empty search, more than kSearchBytes or kSearchWords, or text that is not UTF-8.
struct SearchWord {
  std::string text;  // lowercased
  bool tag = false;  // tag:NAME: an exact tag
};
std::vector<SearchWord> search_words(std::string_view query);

// Whether every word is in one of `texts` (a word) or among `tags` (a tag: word).
bool matches_search(const std::vector<SearchWord>& words, const std::vector<std::string_view>& texts,
                    const std::vector<std::string>& tags);

}  // namespace gammalab
