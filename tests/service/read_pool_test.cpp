// The store's read connections (server/store/read_pool.h): however many threads read at once, no more reads
// run together, and no more connections open, than the pool's size; each read sees the writes that returned
// before it began.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "server/store.h"
#include "server/store/read_pool.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

TEST(ReadPool, ManyThreadsReadingAtOnceShareABoundedNumberOfConnections) {
  const auto path = temp_db("read-pool");
  Store store(path.string());  // migrates: a read-only connection opens an existing database
  const std::string sweep = store.create_sweep(make_sweep("r", 3), "", "", false).sweep.id;
  constexpr std::size_t kSize = 3;
  store_read::ReadPool pool(path.string(), kSize);
  std::atomic<int> inside{0}, most{0}, counted{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 64; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        store_read::ReadPool::Read read = pool.read();
        const int now = ++inside;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        sql::Statement& s = read.statements().get("SELECT COUNT(*) FROM jobs WHERE sweep_id = ?");
        s.bind(1, static_cast<std::int64_t>(std::stoll(sweep)));
        if (s.step() && s.int64(0) == 3) ++counted;
        --inside;
      }
    });
  }
  for (auto& r : readers) r.join();
  EXPECT_EQ(counted.load(), 64 * 20) << "every read saw the sweep's jobs";
  EXPECT_LE(most.load(), static_cast<int>(kSize));
  EXPECT_GE(most.load(), 1);
  EXPECT_LE(pool.connections(), kSize);
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
