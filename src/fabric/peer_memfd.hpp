// Reaching the memory file of another process of this host: the owner
// publishes where the file is open (its pid and descriptor) and what it is
// (device and inode); a peer opens the owner's /proc/<pid>/fd/<fd> link,
// which gives it the same file, and checks that the file it got is the one
// named (a pid is meaningful only in the owner's pid namespace).  Nothing is
// created in a file system, so nothing can be left behind.
#pragma once
#include <cstdint>
#include <string>

namespace rdsm::fabric {

struct FdIdentity {
  int32_t pid = 0;
  int32_t fd = -1;
  uint64_t dev = 0;
  uint64_t ino = 0;
};

// The identity of this process's open file `fd`.
FdIdentity identify_fd(int fd);

// Opens, read-write, the file that `id` names; -1 with the reason in *why
// when it cannot (no /proc, another pid namespace, no permission, the
// owner gone) or the file found there is another one.
int open_peer_fd(const FdIdentity &id, std::string *why);

}  // namespace rdsm::fabric
