#include "core/shared_root_claim.h"

#include <optional>
#include <stdexcept>

#include <absl/strings/ascii.h>

#include "core/uid.h"
#include "core/utf8_text.h"

namespace gammalab::shared_root {

std::string claim(const Dir& root, std::string_view database_uid) {
  if (!is_uid(database_uid)) {
    throw std::invalid_argument("database uid '" + utf8_head(database_uid, 64) + "' is not 32 lowercase hex characters");
  }
  const std::string line = std::string(database_uid) + "\n";
  std::optional<std::string> held;
  // A marker removed between the write and the read is claimed again, a bounded number of times.
  for (int tries = 0; tries < 3 && !held; ++tries) {
    if (root.write_new(kDatabaseMarker, line)) return "";
    held = root.read(kDatabaseMarker, 256);
  }
  if (!held) throw std::runtime_error(std::string(kDatabaseMarker) + " in " + root.path().string() + " keeps vanishing");
  const std::string named(absl::StripAsciiWhitespace(*held));
  if (named == database_uid) return "";
  return "shared root " + root.path().string() + " holds the jobs of another database (its " +
         std::string(kDatabaseMarker) + " names " + utf8_head(named, 64) + ", this database is " +
         std::string(database_uid) + "): job ids would collide there, and a job would resume another's " +
         "checkpoints. Give each coordinator its own --shared-root (and its workers the same one); remove the " +
         "marker only if that other database is gone for good";
}

}  // namespace gammalab::shared_root
