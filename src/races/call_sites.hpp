// Naming the line that made an allocation: the return address a node
// recorded, in the module it recorded, becomes "function at file:line"
// through the module's debugging information (binutils' addr2line, one
// run per module), else the exported symbol dladdr found, else the module
// and the offset in it.
#pragma once
#include <string>
#include <vector>

#include "races/race_analysis.hpp"

namespace rdsm::races {

// One description per allocation, in the same order.
std::vector<std::string> describe_call_sites(const std::vector<Allocation> &allocations);

}  // namespace rdsm::races
