#pragma once
// Group commit for the store's writes that may share one transaction (metric reports): a caller whose item
// arrives while another group is being written queues it, and the next group takes every item queued by then.
// One of their callers (the leader) writes the group; the others wait until it has, then return, each with its
// item settled. A transaction's fixed cost (BEGIN, the commit's WAL frames of the pages every item touches: a
// job's row, the tiles and tails tables) is paid once per group instead of once per item, while no item waits
// longer than the group in progress and its own. Internal to the store; thread-safe.
#include <algorithm>
#include <cstddef>
#include <deque>
#include <exception>
#include <span>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace gammalab::store_ingest {

template <typename Item>
class GroupCommit {
 public:
  // A group takes queued items, first come first, while their weights (a report's points) add up to at most
  // `max_weight`, and always at least one: the group in progress bounds what a caller waits for and how long
  // the writer's lock is held at once.
  explicit GroupCommit(std::size_t max_weight) : max_weight_(max_weight) {}

  // Queues `item` and returns once a group holding it has been written, by this thread or another. `write` is
  // called with a group (the leader's own item in it or not: whatever was queued first) and settles each of its
  // items itself; if it throws, every item of that group fails with its exception, rethrown here to each caller.
  template <typename Write>
  void run(Item& item, std::size_t weight, Write&& write) ABSL_LOCKS_EXCLUDED(mutex_) {
    Entry entry{&item, weight, false, nullptr};
    absl::MutexLock lock(&mutex_);
    queue_.push_back(&entry);
    const auto settled_or_free = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return entry.done || !leading_; };
    while (true) {
      mutex_.Await(absl::Condition(&settled_or_free));
      if (entry.done) break;
      // No group is being written: this caller writes the next one, outside the queue's lock so that items
      // keep queueing for the group after it.
      std::size_t n = 1, total = queue_.front()->weight;
      while (n < queue_.size() && total + queue_[n]->weight <= max_weight_) total += queue_[n++]->weight;
      std::vector<Entry*> group;
      std::vector<Item*> items;
      try {  // the only allocations: before anything is taken from the queue
        group.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
        items.reserve(n);
      } catch (...) {
        // Out of memory: nothing was taken. This caller's entry, which lives on its stack, leaves the queue
        // with it; the others stay queued for the next leader.
        queue_.erase(std::find(queue_.begin(), queue_.end(), &entry));
        throw;
      }
      for (Entry* e : group) items.push_back(e->item);
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));  // frees, never allocates
      leading_ = true;
      std::exception_ptr failure;
      mutex_.Unlock();
      try {
        write(std::span<Item* const>(items));
      } catch (...) {
        failure = std::current_exception();
      }
      mutex_.Lock();
      for (Entry* e : group) {
        e->failure = failure;
        e->done = true;
      }
      leading_ = false;
    }
    if (entry.failure) std::rethrow_exception(entry.failure);
  }

 private:
  struct Entry {
    Item* item;
    std::size_t weight;
    bool done = false;
    std::exception_ptr failure;  // the group's write threw
  };

  const std::size_t max_weight_;
  absl::Mutex mutex_;
  std::deque<Entry*> queue_ ABSL_GUARDED_BY(mutex_);
  bool leading_ ABSL_GUARDED_BY(mutex_) = false;  // a group is being written
};

}  // namespace gammalab::store_ingest
