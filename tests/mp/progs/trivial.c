/* trivial: joins the job, meets the other nodes at a barrier and leaves. */
#include <stdio.h>

#include "rdsm.h"

int main(int argc, char **argv) {
  rdsm_init(&argc, &argv);
  if (rdsm_rank() < 0 || rdsm_rank() >= rdsm_nodes()) {
    fprintf(stderr, "trivial: rank %d of %d nodes\n", rdsm_rank(), rdsm_nodes());
    return 1;
  }
  rdsm_barrier();
  rdsm_finalize();
  return 0;
}
