/* An out-of-tree C program built against an installed rdsm: every node
 * adds its rank into a shared array, node 0 checks the sums. */
#include <rdsm.h>
#include <stdio.h>

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  int me = rdsm_rank(), n = rdsm_nodes();
  long *a = rdsm_malloc_all(64 * sizeof *a, RDSM_PLACE_BLOCK);
  rdsm_lock(1);
  for (int i = 0; i < 64; i++) a[i] += me + 1;
  rdsm_unlock(1);
  rdsm_barrier();
  int ok = 1;
  for (int i = 0; i < 64; i++) ok &= a[i] == (long)n * (n + 1) / 2;
  if (me == 0) printf("%s hello_c: %d nodes\n", ok ? "PASS" : "FAIL", n);
  rdsm_finalize();
  return ok ? 0 : 1;
}
