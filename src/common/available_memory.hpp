// How much memory this process can still be given without swapping or
// being stopped by its control group's limit.
#pragma once
#include <cstddef>
#include <string>

namespace rdsm {

// MemAvailable of /proc/meminfo, lowered to the room left under the memory
// limit of this process's control group and of each group above it
// (cgroup v2: memory.max less memory.current; v1: memory.limit_in_bytes
// less memory.usage_in_bytes), in bytes; 0 when the kernel does not say.
// A container's limit is usually far below the host's MemAvailable, and
// memory given past it is taken from the program (reclaim, or the
// out-of-memory killer).
size_t available_memory_bytes();

// The same, read from the files given (tests): /proc/meminfo,
// /proc/self/cgroup and the root of the cgroup file systems.
size_t available_memory_bytes_from(const std::string &meminfo, const std::string &self_cgroup,
                                   const std::string &cgroup_root);

}  // namespace rdsm
