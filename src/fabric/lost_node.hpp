// What a rank of an mpi job prints when it finds another rank lost, shared
// by the fabric's watchdog (mpi_watchdog.hpp), which writes it, and by
// `rdsm run --fabric mpi`, which watches mpirun's output for it: mpirun may
// never end by itself after that (it waits for the daemon of a host it can
// no longer reach), so the launcher ends it.
#pragma once

namespace rdsm::fabric {

// Part of the line "rdsm[node R]: error: node N (...) made no progress for
// T s ...": the same words as a hang found by the launcher on one host.
constexpr const char *kLostNodeWords = " made no progress for ";

}  // namespace rdsm::fabric
