#include "fabric/peer_memfd.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.hpp"

namespace rdsm::fabric {

FdIdentity identify_fd(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) fatal("cannot fstat descriptor %d: %s", fd, strerror(errno));
  FdIdentity id;
  id.pid = (int32_t)getpid();
  id.fd = fd;
  id.dev = (uint64_t)st.st_dev;
  id.ino = (uint64_t)st.st_ino;
  return id;
}

int open_peer_fd(const FdIdentity &id, std::string *why) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)id.pid, (int)id.fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    *why = std::string("cannot open ") + path + ": " + strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != id.dev || (uint64_t)st.st_ino != id.ino) {
    close(fd);
    *why = std::string(path) + " is not the peer's memory file (another pid namespace?)";
    return -1;
  }
  return fd;
}

}  // namespace rdsm::fabric
