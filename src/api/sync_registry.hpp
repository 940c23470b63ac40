// Identities of synchronisation objects that live in shared memory.
//
// SPLASH programs declare locks, barriers, pause flags and condition
// variables inside structures in shared memory, by the thousands, and may
// initialise the same object again.  Each such object gets one lock id of
// the job, found from its address: a table in node 0's memory maps region
// offsets to ids, filled by remote compare-and-swap (open addressing), so
// any node can find or create an id at any time without another node's
// help, and the same address always gets the same id (re-initialising does
// not use up ids).  The table is part of the state a fork-join master keeps
// from one job to the next.
#pragma once
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "fabric/fabric.hpp"

namespace rdsm {

class SyncRegistry {
 public:
  // Collective: registers the table (one 8-byte slot per lock id).
  SyncRegistry(fabric::Fabric &f, int ids);
  // The lock id of the object at `region_offset`; ends the program with a
  // message naming `call` when every id is taken.
  int id_for(uint64_t region_offset, const char *call);

 private:
  fabric::Fabric &f_;
  fabric::Segment table_;
  int ids_;
  std::mutex mu_;
  std::unordered_map<uint64_t, int> known_;  // this process's look-ups so far
};

}  // namespace rdsm
