// Fault injection for tests: RDSM_FAULT=POINT:NODE[:N] makes node NODE die
// (SIGKILL, after one line on stderr naming the point) the N-th time (default
// the first) it reaches the named point, so that tests can check that a
// failure in the middle of a protocol step ends the whole job cleanly.
//
// Points (each is one call of fault_point in the runtime):
//   home_migration  a node taking part in moving a page's home, between two
//                   pages of one barrier's moves (new home, old home or any
//                   other node that held a copy)
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
