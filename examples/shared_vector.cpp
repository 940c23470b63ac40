// Standard containers in shared memory with the C++ API: node 0 fills a
// std::vector whose elements come from rdsm::allocator and publishes its
// data; every node sums a slice of it into its own slot of a shared array
// (writes ordered by a std::unique_lock on an rdsm::mutex and by barriers);
// node 0 checks the total.
//
//   rdsm run -n 4 ./shared_vector [ELEMENTS]
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "rdsm.hpp"

int main(int argc, char **argv) {
  rdsm::session job(argc, argv);
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1u << 20;
  const int me = rdsm::rank(), nodes = rdsm::nodes();
  struct Totals {
    double sum;
    long contributions;
  };
  auto *totals = rdsm::allocate_all<Totals>(1);
  auto *partial = rdsm::allocate_all<double>((std::size_t)nodes, rdsm::placement::cyclic);

  // The vector object is node 0's; its elements are shared.
  std::vector<double, rdsm::allocator<double, rdsm::placement::block>> values;
  if (me == 0) {
    values.resize(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = (double)(i % 1000) * 0.5;
    rdsm::publish_root(0, values.data());
  }
  rdsm::barrier();
  const double *data = rdsm::root<double>(0);
  if (!rdsm::is_shared(data)) {
    std::printf("FAIL shared_vector: the vector's elements are not in shared memory\n");
    return 1;
  }

  std::size_t first = n * (std::size_t)me / (std::size_t)nodes, last = n * (std::size_t)(me + 1) / (std::size_t)nodes;
  double s = 0;
  for (std::size_t i = first; i < last; ++i) s += data[i];
  partial[me] = s;
  {
    rdsm::mutex m(0);
    std::unique_lock<rdsm::mutex> hold(m);
    totals->sum += s;
    totals->contributions += 1;
  }
  rdsm::barrier();

  int bad = 0;
  if (me == 0) {
    double want = 0, by_slot = 0;
    for (std::size_t i = 0; i < n; ++i) want += (double)(i % 1000) * 0.5;
    for (int r = 0; r < nodes; ++r) by_slot += partial[r];
    // Every value is a multiple of 0.5 far below 2^52: the sums are exact.
    if (totals->contributions != nodes || totals->sum != want || by_slot != want) {
      std::printf("FAIL shared_vector: total %.1f from %ld nodes, slots %.1f, expected %.1f from %d\n", totals->sum,
                  totals->contributions, by_slot, want, nodes);
      bad = 1;
    } else {
      std::printf("PASS shared_vector: %zu elements summed on %d nodes\n", n, nodes);
    }
  }
  return bad;
}
