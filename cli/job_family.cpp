#include "cli/job_family.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace gammalab::cli {

namespace {

// What a branch's name adds to its run's ("wsd/s0/D=1024" of "wsd/s0": "D=1024"); its whole name otherwise.
std::string own_name(const v1::Job& job, const v1::Job& run) {
  const std::string prefix = run.name() + "/";
  const std::string_view name = job.name();
  return name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix ? std::string(name.substr(prefix.size()))
                                                                               : job.name();
}

}  // namespace

std::vector<FamilyRow> family_rows(const std::vector<v1::Job>& jobs, const std::function<int(const v1::Job&)>& rank) {
  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < jobs.size(); ++i) by_id.emplace(jobs[i].id(), i);
  std::vector<std::vector<std::size_t>> children(jobs.size());
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto parent = jobs[i].parent_id().empty() ? by_id.end() : by_id.find(jobs[i].parent_id());
    if (parent == by_id.end() || parent->second == i) {
      roots.push_back(i);
    } else {
      children[parent->second].push_back(i);
    }
  }

  std::vector<FamilyRow> rows;
  std::vector<bool> listed(jobs.size(), false);
  // Depth first, iteratively (a hostile list may be deep); `lead` is what goes before the members' connectors.
  const auto add_family = [&](std::size_t root) {
    struct Pending {
      std::size_t index;
      std::string lead, connector;
    };
    std::vector<Pending> stack{{root, "", ""}};
    while (!stack.empty()) {
      Pending at = std::move(stack.back());
      stack.pop_back();
      if (listed[at.index]) continue;
      listed[at.index] = true;
      const v1::Job& job = jobs[at.index];
      const bool branch = !at.connector.empty();
      rows.push_back({at.index, at.lead + at.connector +
                                    (branch ? own_name(job, jobs[by_id.at(job.parent_id())]) : job.name())});
      const std::string lead = at.lead + (at.connector.empty() ? "" : at.connector == "└─ " ? "   " : "│  ");
      const auto& kids = children[at.index];
      for (std::size_t k = kids.size(); k-- > 0;) stack.push_back({kids[k], lead, k + 1 == kids.size() ? "└─ " : "├─ "});
    }
  };

  if (rank) {
    // A family's rank: its lowest member's. Every job has one run, so the families are disjoint and one walk
    // over the links, marking what it has seen, reaches each job once.
    std::vector<int> family_rank(jobs.size());
    std::vector<bool> seen(jobs.size(), false);
    for (const std::size_t root : roots) {
      int lowest = rank(jobs[root]);
      std::vector<std::size_t> todo = children[root];
      while (!todo.empty()) {
        const std::size_t i = todo.back();
        todo.pop_back();
        if (seen[i]) continue;
        seen[i] = true;
        lowest = std::min(lowest, rank(jobs[i]));
        todo.insert(todo.end(), children[i].begin(), children[i].end());
      }
      family_rank[root] = lowest;
    }
    std::stable_sort(roots.begin(), roots.end(), [&](std::size_t a, std::size_t b) { return family_rank[a] < family_rank[b]; });
  }
  for (const std::size_t root : roots) add_family(root);
  // Jobs on a cycle of links reach no root: listed as runs, in the order given.
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!listed[i]) {
      listed[i] = true;
      rows.push_back({i, jobs[i].name()});
    }
  }
  return rows;
}

}  // namespace gammalab::cli
