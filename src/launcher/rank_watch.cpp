#include "launcher/rank_watch.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/temp_dir.hpp"
#include "fabric/rank_link.hpp"

namespace rdsm::launcher {

RankWatch::RankWatch() {
  dir_ = make_temp_dir("rdsm-ranks");
  if (dir_.empty()) return;  // the job runs; mpirun alone names what failed
  path_ = dir_ + "/link";
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  int fd = path_.size() < sizeof a.sun_path ? socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) : -1;
  if (fd >= 0) {
    strcpy(a.sun_path, path_.c_str());
    if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 && listen(fd, 128) == 0) {
      listen_fd_ = fd;
      setenv(fabric::kRankSocketVariable, path_.c_str(), 1);
      return;
    }
    close(fd);
  }
  remove_temp_dir(dir_);
  dir_.clear();
}

RankWatch::~RankWatch() {
  for (const Link &l : links_)
    if (l.open) close(l.fd);
  if (listen_fd_ < 0) return;
  close(listen_fd_);
  unsetenv(fabric::kRankSocketVariable);
  remove_temp_dir(dir_);
}

void RankWatch::add_fds(std::vector<pollfd> *fds) const {
  fds->push_back({listen_fd_, POLLIN, 0});
  for (const Link &l : links_) fds->push_back({l.open ? l.fd : -1, POLLIN, 0});
}

void RankWatch::check(const std::vector<pollfd> &fds, size_t first) {
  std::string closed;
  int count = 0;
  for (size_t i = 0; i < links_.size() && first + 1 + i < fds.size(); ++i) {
    Link &l = links_[i];
    if (!l.open || !(fds[first + 1 + i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buf[256];
    ssize_t n;
    while ((n = read(l.fd, buf, sizeof buf)) > 0) l.said.append(buf, (size_t)n);
    if (n != 0) continue;  // still open (EAGAIN)
    close(l.fd);
    l.open = false;
    if (l.said.find("\ndone\n") != std::string::npos) continue;  // it finished
    int rank = -1;
    long pid = 0;
    if (sscanf(l.said.c_str(), "rank %d pid %ld", &rank, &pid) != 2) continue;
    closed = "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + ")";
    ++count;
  }
  // The first closing seen decides: one rank is named; several at once
  // (the job ended as fast as the first went), none.
  if (count && !decided_) lost_ = count == 1 ? closed : "";
  decided_ = decided_ || count;
  // New connections last: they are polled from the next round on.
  if (listen_fd_ >= 0 && first < fds.size() && (fds[first].revents & POLLIN)) {
    int fd;
    while ((fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) links_.push_back({fd, ""});
  }
}

}  // namespace rdsm::launcher
