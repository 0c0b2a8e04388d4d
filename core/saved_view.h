#pragma once
// A saved view of the dashboard: a name for what the page's address holds (its panels and metrics, x axis,
// smoothing, grouping, filters: web/app.js's settings) on one sweep, kept by the coordinator for the user who
// saved it and opened by anyone through its link (#/views/ID). The settings are the address's query as the page
// writes it; the page checks each setting when it opens one, as it does any address, and says what it does not
// use. Plain C++: the store keeps them (server/store/views.cpp), the coordinator checks them.
#include <cstddef>
#include <cstdint>
#include <string>

namespace gammalab {

namespace view_limits {
inline constexpr std::size_t kNameBytes = 80;
inline constexpr std::size_t kSettingsBytes = 8192;  // an address: every setting with long lists of runs
inline constexpr std::size_t kViewsPerUser = 200;
}  // namespace view_limits

struct SavedView {
  std::string id;
  std::int64_t owner = 0;  // the saving user's token id; 0 on a coordinator without auth
  std::string name;
  std::string sweep_id;
  std::string settings;  // "groupBy=seed&panelBy=model.d_model": the page's address after '?'
  std::int64_t updated_ms = 0;

  bool operator==(const SavedView&) const = default;
};

// Throws std::invalid_argument naming the field, its limit and the value: a name that is empty, over
// kNameBytes, not UTF-8 or with a control character; settings over kSettingsBytes or not an address's query
// (printable ASCII, percent-encoded as the page writes it, without '#' or a space).
void check_saved_view(const std::string& name, const std::string& settings);

}  // namespace gammalab
