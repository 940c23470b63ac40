// The launcher's side of fabric/rank_link.hpp: a Unix socket the ranks of
// this host connect to, and the order in which their connections close,
// to name the rank that ended first without finishing.
#pragma once
#include <poll.h>

#include <string>
#include <vector>

namespace rdsm::launcher {

class RankWatch {
 public:
  // Listens on a socket in a temporary directory and names it in the
  // environment the ranks get; without one nothing is watched.
  RankWatch();
  ~RankWatch();  // removes the socket and its directory
  RankWatch(const RankWatch &) = delete;
  RankWatch &operator=(const RankWatch &) = delete;

  // The descriptors to poll: the socket, then the ranks' connections.
  void add_fds(std::vector<pollfd> *fds) const;
  // After a poll on them (appended from `first`): takes new connections,
  // reads what the ranks said, and notes which closed without "done".
  void check(const std::vector<pollfd> &fds, size_t first);
  // "rank R (pid P)" of the first rank whose connection closed without
  // "done"; "" if none did, or several were first seen closed at once.
  const std::string &first_lost() const { return lost_; }

 private:
  struct Link {
    int fd;
    std::string said;  // what the rank wrote, lines
    bool open = true;
  };
  std::string dir_, path_;
  int listen_fd_ = -1;
  std::vector<Link> links_;
  std::string lost_;
  bool decided_ = false;
};

}  // namespace rdsm::launcher
