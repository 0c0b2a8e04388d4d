#pragma once
// Cooldown branches in the CLI's job lists (docs/branches.md): a run's branches are listed right after it, as a
// tree, each named by what its name adds to its run's:
//   wsd/tiny/baseline/s0
//   ├─ D=122880
//   └─ D=245760
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gammalab/v1/gammalab.pb.h"

namespace gammalab::cli {

struct FamilyRow {
  std::size_t index = 0;  // into the jobs given
  std::string name;       // as the NAME column shows it
};

// Every job of `jobs` once, in families: a job whose run is not in the list starts one, and the jobs branched
// from it follow it in the order given. With `rank`, families are ordered (stably) by the lowest rank among
// their members, so a family with a running branch is listed among the running jobs. Links that cannot be a
// tree (a job its own ancestor) leave the jobs on them listed as runs.
std::vector<FamilyRow> family_rows(const std::vector<v1::Job>& jobs,
                                   const std::function<int(const v1::Job&)>& rank = {});

}  // namespace gammalab::cli
