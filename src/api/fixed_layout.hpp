// Fork-join programs under an MPI launcher: every rank's address space laid
// out alike (fixed_layout.cpp).
#pragma once

namespace rdsm::fj {

// Whether this process runs without address-space randomisation.
bool layout_fixed();
// A worker rank's first job starts: its standard output, held back since
// before main, goes where the launcher sent it.
void release_worker_output();

}  // namespace rdsm::fj
