#include "common/temp_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace rdsm {

namespace {
constexpr const char *kOwner = ".owner";
constexpr const char *kOwnerTemp = ".owner.new";

std::mutex g_mu;
std::map<std::string, int> g_locks;  // directory -> the lock this process holds on it

std::string tmp_root() {
  const char *tmp = getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

// The directory and everything in it, subdirectories too (another
// program's, such as an MPI's session files, may be in it); symbolic links
// are removed, not followed.
void remove_tree(const std::string &dir) {
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string entry = e->d_name;
      if (entry == "." || entry == "..") continue;
      std::string path = dir + "/" + entry;
      struct stat st;
      if (lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        remove_tree(path);
      else
        unlink(path.c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

// Removes <root>/<name>.* directories of this user's whose owner lock
// nobody holds.  One being made has no ".owner" yet (it is renamed into
// place locked) and is left alone, as is one of an older rdsm without it.
void sweep_abandoned(const std::string &root, const std::string &name) {
  DIR *d = opendir(root.c_str());
  if (!d) return;
  const std::string prefix = name + ".";
  while (dirent *e = readdir(d)) {
    std::string entry = e->d_name;
    if (entry.compare(0, prefix.size(), prefix) != 0) continue;
    std::string dir = root + "/" + entry;
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) continue;
    int fd = open((dir + "/" + kOwner).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) remove_tree(dir);  // its maker is gone
    close(fd);
  }
  closedir(d);
}
}  // namespace

std::string make_temp_dir(const char *name, std::string *tried) {
  const std::string root = tmp_root();
  sweep_abandoned(root, name);
  std::string dir = root + "/" + name + ".XXXXXX";
  if (!mkdtemp(dir.data())) {
    if (tried) *tried = dir;
    return "";
  }
  // Locked before it is named ".owner", so a sweep never sees it unlocked.
  std::string temp = dir + "/" + kOwnerTemp;
  int fd = open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || flock(fd, LOCK_EX) != 0 || rename(temp.c_str(), (dir + "/" + kOwner).c_str()) != 0) {
    int saved = errno;
    if (fd >= 0) close(fd);
    remove_tree(dir);
    if (tried) *tried = dir;
    errno = saved;
    return "";
  }
  std::lock_guard<std::mutex> g(g_mu);
  g_locks[dir] = fd;
  return dir;
}

void remove_temp_dir(const std::string &dir) {
  remove_tree(dir);
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_locks.find(dir);
  if (it != g_locks.end()) {
    close(it->second);
    g_locks.erase(it);
  }
}

}  // namespace rdsm
