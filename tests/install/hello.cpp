// An out-of-tree C++ program built against an installed rdsm: the nodes
// fill a shared array block by block, node 0 checks it with the standard
// library.
#include <rdsm.h>

#include <cstdio>
#include <numeric>

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  const int me = rdsm_rank(), n = rdsm_nodes();
  constexpr int kCount = 1000;
  auto *a = static_cast<long *>(rdsm_malloc_all(kCount * sizeof(long), RDSM_PLACE_BLOCK));
  for (int i = me; i < kCount; i += n) a[i] = i;
  rdsm_barrier();
  const long sum = std::accumulate(a, a + kCount, 0L);
  const bool ok = sum == (long)kCount * (kCount - 1) / 2;
  if (me == 0) std::printf("%s hello_cxx: %d nodes\n", ok ? "PASS" : "FAIL", n);
  rdsm_finalize();
  return ok ? 0 : 1;
}
