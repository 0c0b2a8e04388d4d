#pragma once
// Which database's jobs a shared root holds. Job ids are one database's row ids: two coordinators whose shared
// roots are one directory (the default --shared-root is relative to the working directory) would both have a
// jobs/7, and each job 7 would resume the other's checkpoints and append to the other's log. So the root names
// its database in a marker at its top, `.gammalab-database` (the database's uid, core/uid.h): the coordinator
// writes it on start when absent and refuses to start when it names another database; a worker checks it
// against the uid its coordinator registered it with and leases nothing when they differ (docs/deploy.md).
#include <string>
#include <string_view>

#include "core/shared_root_files.h"

namespace gammalab::shared_root {

inline constexpr std::string_view kDatabaseMarker = ".gammalab-database";

// Empty when `root` holds `database_uid`'s jobs (the marker is written when absent, so the first claim
// wins); otherwise why not, naming the root, both uids and what to do. Throws std::invalid_argument when
// `database_uid` is not a uid, and Refused or std::runtime_error when the marker cannot be read or written.
std::string claim(const Dir& root, std::string_view database_uid);

}  // namespace gammalab::shared_root
