#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fabric/rank_link.hpp"

namespace rdsm::fabric {

namespace {
int g_link = -1;  // open until the process ends: its closing is the news

void say(const char *text) {
  size_t n = strlen(text);
  while (n > 0) {
    ssize_t w = send(g_link, text, n, MSG_NOSIGNAL);
    if (w <= 0) return;
    text += w;
    n -= (size_t)w;
  }
}
}  // namespace

void link_rank(int rank) {
  const char *path = getenv(kRankSocketVariable);
  if (g_link >= 0 || !path || !*path || strlen(path) >= sizeof(sockaddr_un{}.sun_path)) return;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  strcpy(a.sun_path, path);
  if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {  // another host's launcher
    close(fd);
    return;
  }
  g_link = fd;
  char line[64];
  snprintf(line, sizeof line, "rank %d pid %ld\n", rank, (long)getpid());
  say(line);
}

void rank_done() {
  if (g_link >= 0) say("done\n");
}

}  // namespace rdsm::fabric
