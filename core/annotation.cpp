#include "core/annotation.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "core/utf8_text.h"

namespace gammalab {

namespace {

using namespace annotation_limits;

// A tag is a word a search can name: letters, digits and a few separators, never a space or a comma.
bool tag_char(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == ':' ||
         c == '+' || c == '/' || c == '=';
}

void check_tag(const std::string& field, const std::string& tag) {
  if (tag.empty() || tag.size() > kTagBytes) {
    throw std::invalid_argument(field + ": a tag is 1 to " + std::to_string(kTagBytes) + " characters, got " +
                                std::to_string(tag.size()) + " ('" + utf8_head(tag, 48) + "')");
  }
  const auto bad = std::find_if_not(tag.begin(), tag.end(), tag_char);
  if (bad != tag.end()) {
    throw std::invalid_argument(field + ": '" + utf8_without_controls(utf8_head(tag, 48)) +
                                "' is not a tag: letters, digits and . _ - : + / = only");
  }
}

void check_tags(const std::string& field, const std::vector<std::string>& tags) {
  if (tags.size() > kTags) {
    throw std::invalid_argument(field + ": at most " + std::to_string(kTags) + " tags, got " +
                                std::to_string(tags.size()));
  }
  for (const std::string& tag : tags) check_tag(field, tag);
}

std::string lower(std::string_view text) {
  std::string out(text);
  absl::AsciiStrToLower(&out);
  return out;
}

}  // namespace

void check_annotation_change(const AnnotationChange& change) {
  if (change.note) {
    const std::string& note = *change.note;
    if (note.size() > kNoteBytes) {
      throw std::invalid_argument("note: at most " + std::to_string(kNoteBytes) + " bytes, got " +
                                  std::to_string(note.size()));
    }
    if (utf8_first_invalid(note)) throw std::invalid_argument("note: not UTF-8");
    // Newlines and tabs are a paragraph's; any other control character or a bidirectional override would make
    // the note print as something else than it reads (on a page, in a terminal).
    if (utf8_without_controls(note) != note) {
      throw std::invalid_argument("note: control characters other than newline and tab are refused");
    }
  }
  check_tags("add_tags", change.add_tags);
  check_tags("remove_tags", change.remove_tags);
  for (const std::string& tag : change.add_tags) {
    if (std::find(change.remove_tags.begin(), change.remove_tags.end(), tag) != change.remove_tags.end()) {
      throw std::invalid_argument("tags: '" + tag + "' is both added and removed");
    }
  }
  if (!change.note && change.add_tags.empty() && change.remove_tags.empty()) {
    throw std::invalid_argument("nothing to change: give a note, tags to add or tags to remove");
  }
}

std::vector<std::string> tags_after(const std::vector<std::string>& tags, const AnnotationChange& change) {
  std::set<std::string> out(tags.begin(), tags.end());
  out.insert(change.add_tags.begin(), change.add_tags.end());
  for (const std::string& tag : change.remove_tags) out.erase(tag);
  if (out.size() > kTags) {
    throw std::invalid_argument("tags: at most " + std::to_string(kTags) + " on one sweep or run; this change gives " +
                                std::to_string(out.size()));
  }
  return {out.begin(), out.end()};
}

std::vector<SearchWord> search_words(std::string_view query) {
  if (query.size() > kSearchBytes) {
    throw std::invalid_argument("query: at most " + std::to_string(kSearchBytes) + " bytes, got " +
                                std::to_string(query.size()));
  }
  if (utf8_first_invalid(query)) throw std::invalid_argument("query: not UTF-8");
  std::vector<SearchWord> words;
  for (const std::string& word :
       std::vector<std::string>(absl::StrSplit(absl::string_view(query.data(), query.size()), absl::ByAnyChar(" \t\n"),
                                               absl::SkipEmpty()))) {
    if (word.starts_with("tag:")) {
      const std::string tag = word.substr(4);
      check_tag("query", tag);
      words.push_back({tag, true});
    } else {
      words.push_back({lower(word), false});
    }
  }
  if (words.empty()) throw std::invalid_argument("query: no words to search for");
  if (words.size() > kSearchWords) {
    throw std::invalid_argument("query: at most " + std::to_string(kSearchWords) + " words, got " +
                                std::to_string(words.size()));
  }
  return words;
}

bool matches_search(const std::vector<SearchWord>& words, const std::vector<std::string_view>& texts,
                    const std::vector<std::string>& tags) {
  std::vector<std::string> haystack;
  haystack.reserve(texts.size() + tags.size());
  for (std::string_view t : texts) haystack.push_back(lower(t));
  for (const std::string& t : tags) haystack.push_back(lower(t));
  return std::all_of(words.begin(), words.end(), [&](const SearchWord& w) {
    if (w.tag) return std::find(tags.begin(), tags.end(), w.text) != tags.end();
    return std::any_of(haystack.begin(), haystack.end(),
                       [&](const std::string& h) { return h.find(w.text) != std::string::npos; });
  });
}

}  // namespace gammalab
