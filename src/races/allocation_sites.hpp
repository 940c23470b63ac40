// The shared allocations of a process that records races, each with the
// return address of its allocating call, so that a race report can name the
// allocation a raced byte belongs to and the line that made it.
//
// The address is turned into a module and an offset in it here, in the
// process that made it (each process of a job loads the program at an
// address of its own); the analysis turns that into function, file and
// line (call_sites.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rdsm::races {

// Records an allocation if this process records races; returns `base`.
// `pc` is the allocating call's return address (__builtin_return_address(0)
// in the API function the program called).
void *note_allocation(void *base, size_t size, const void *pc);

// Appends an allocation record (race_log_format.hpp) for every allocation
// noted so far to `out`.
void encode_allocations(std::vector<uint8_t> &out);

}  // namespace rdsm::races
