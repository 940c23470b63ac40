// Fault injection for tests: RDSM_FAULT=POINT:NODE[:N[:ACTION]] makes node
// NODE die (ACTION "die", the default: SIGKILL), stop (ACTION "stop":
// SIGSTOP, the whole process frozen, as a hung node would be), pause for
// 300 ms and go on (ACTION "delay": the calling thread sleeps, as a node
// descheduled on a busy machine would) or hang (ACTION "hang": the calling
// thread never returns, the node's other threads go on) the N-th time (default the first) it
// reaches the named point, after one line on stderr naming the point, so
// that tests can check that a failure in the middle of a protocol step ends
// the whole job cleanly (a death at once, a stop once the launcher's hang
// timeout finds the node's heartbeat stopped), and that a node late at a
// step cannot make the others read stale data (a delay).
//
// Points (each is one or two calls of fault_point in the runtime; a point
// that may be reached in the fault signal handler dies there too):
//   fetch           a page fetch, after the request (message) or after the
//                   version check and before the page is read (one-sided)
//   fetch_serve     the home's handler, about to send a fetched page
//   diff_version    a release's one-sided diffs written, their versions not
//   diff_apply      the home's handler, a diff applied, its version not
//   whole_page      holding a page's whole-page claim at its home
//   lock_held       just after acquiring a lock
//   barrier         inside a barrier, every node arrived, notices not applied
//   home_claim      a first-touch home claim won, at the claimer (remote CAS)
//                   or at the directory's handler (message)
//   home_migration  a node taking part in moving a page's home, between two
//                   pages of one barrier's moves (new home, old home or any
//                   other node that held a copy)
//   refresh         an acquire refreshing re-read pages (adaptive prefetch)
//   copy_counted    a fetcher's copy of a page the home writes untracked,
//                   counted in the page's word at its home, not yet in the
//                   home's count of first copies (one-sided fetches)
//   first_copy_log  such a copy counted there too, not yet logged there
//   mpi_finalize    the mpi fabric's end under MPICH, in MPI_Finalize's
//                   place (with "hang": a finalize that never returns)
#pragma once
#include <string>

namespace rdsm {

// The names of every point, for validation and messages: "a, b, c".
const char *fault_point_names();
// Checks a RDSM_FAULT value; returns false and sets `error` when malformed.
bool parse_fault_spec(const std::string &spec, std::string &error);
// Arms injection for this process as node `rank` (no-op for an empty spec).
void arm_fault_injection(const std::string &spec, int rank);
// Dies here if this is the armed point's N-th visit on the armed node.
void fault_point(const char *point);

}  // namespace rdsm
