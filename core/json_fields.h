#pragma once
// Strict reading of a JSON object into a struct: each field is read by name, type errors and unknown keys
// are reported with the field's dot path. Used for job configs and every other JSON the project accepts.
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/config_error.h"

namespace gammalab {

class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string path);

  // Reads `key` into `out` if present (keeps `out`, the default, otherwise).
  template <typename T>
  void read(const char* key, T& out) {
    seen_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return;
    check_type<T>(*it, key);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) check_range<T>(*it, key);
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(it->template get<double>())) throw ConfigError(child_path(key), "must be a finite number");
    }
    out = it->template get<T>();
  }
  // An optional field: set if present, left as it is (unset by default) otherwise.
  template <typename T>
  void read(const char* key, std::optional<T>& out) {
    seen_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end()) return;
    check_type<T>(*it, key);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) check_range<T>(*it, key);
    out = it->template get<T>();
  }

  // The sub-object `key` (an empty object if absent); its fields are checked by a nested JsonFields.
  const nlohmann::json& object(const char* key);
  // The value of `key` whatever its type, for a caller that checks it itself; nullptr if absent.
  const nlohmann::json* any(const char* key);

  std::string child_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  // Throws ConfigError for the first key that no read() asked for.
  void reject_unknown() const;

 private:
  template <typename T>
  void check_type(const nlohmann::json& value, const char* key) const {
    bool ok;
    if constexpr (std::is_same_v<T, bool>)
      ok = value.is_boolean();
    else if constexpr (std::is_integral_v<T>)
      ok = value.is_number_integer() || value.is_number_unsigned();
    else if constexpr (std::is_floating_point_v<T>)
      ok = value.is_number();
    else if constexpr (std::is_same_v<T, std::string>)
      ok = value.is_string();
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      ok = value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
    else
      ok = true;
    if (!ok) throw ConfigError(child_path(key), "expected " + type_name<T>() + ", got " + value.type_name());
  }
  // An integer that does not fit the field (get<int> would silently wrap it).
  template <typename T>
  void check_range(const nlohmann::json& value, const char* key) const {
    const bool fits = value.is_number_unsigned()
                          ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
                          : std::in_range<T>(value.get<std::int64_t>());
    if (!fits) {
      throw ConfigError(child_path(key), value.dump() + " is outside the range of the field [" +
                                             std::to_string(std::numeric_limits<T>::min()) + ", " +
                                             std::to_string(std::numeric_limits<T>::max()) + "]");
    }
  }
  template <typename T>
  static std::string type_name() {
    if constexpr (std::is_same_v<T, bool>)
      return "a boolean";
    else if constexpr (std::is_integral_v<T>)
      return "an integer";
    else if constexpr (std::is_floating_point_v<T>)
      return "a number";
    else if constexpr (std::is_same_v<T, std::string>)
      return "a string";
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      return "a list of strings";
    else
      return "a value";
  }

  const nlohmann::json& object_;
  std::string path_;
  std::set<std::string> seen_;
};

}  // namespace gammalab
