#include "launcher/run_checks.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bootstrap/node_file.hpp"

namespace rdsm::launcher {

std::string quoted(const std::string &s) { return "'" + s + "'"; }

// A script whose #! line names an interpreter that cannot run would fail in
// every node with "No such file or directory", as if the script were gone.
void check_interpreter(const std::string &program, const std::string &path) {
  char head[256] = {};
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, head, sizeof head - 1);
  close(fd);
  if (n < 3 || head[0] != '#' || head[1] != '!') return;
  std::string line(head + 2, (size_t)n - 2);
  size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos) return;
  size_t end = line.find_first_of(" \t\r\n", start);
  std::string interpreter = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (end == std::string::npos && (size_t)n == sizeof head - 1) return;  // a line too long to judge
  if (access(interpreter.c_str(), X_OK) == 0) return;
  throw UsageError("cannot run program " + quoted(program) + ": its interpreter " + quoted(interpreter) +
                   " (named on its #! line) " +
                   (errno == ENOENT ? std::string("does not exist") : std::string("cannot run: ") + strerror(errno)) +
                   "; correct the #! line or install the interpreter");
}

// Every node holds a descriptor for every node's memory file, and each
// memory file is a sparse file of kNodeFileBytes: limits below that make
// the job fail half-way (or kill the launcher with SIGXFSZ).
void check_limits(int nodes) {
  rlimit lim;
  const rlim_t files_needed = (rlim_t)nodes + 8;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_max != RLIM_INFINITY && lim.rlim_max < files_needed)
    throw UsageError("-n " + std::to_string(nodes) + " needs " + std::to_string(files_needed) +
                     " open files per process (a memory file per node), but the limit on open files is " +
                     std::to_string(lim.rlim_max) + " (ulimit -Hn); raise it (as root: ulimit -n " +
                     std::to_string(files_needed + 1024) + ") or start fewer nodes");
  if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < kNodeFileBytes)
    throw UsageError("the file size limit is " + std::to_string(lim.rlim_cur / 1024) +
                     " KiB (ulimit -f), but each node's memory file has a size of " +
                     std::to_string(kNodeFileBytes >> 30) +
                     " GiB (sparse: only what the job touches uses memory); lift the limit with `ulimit -f "
                     "unlimited`");
}

// A file the job writes at its end (--stats, --trace): checked now, rather
// than after the job has run.  It is written as FILE.tmp, then renamed.
std::string output_file(const std::string &text, const std::string &source, const char *example) {
  if (text.empty()) throw UsageError(source + " needs a file name, e.g. " + source + " " + example);
  // `--stats -- ./prog` would write the statistics to a file named "--"
  // and run the program without them being where the user looks.  Only a
  // flag can swallow the word after it: a value from the environment is
  // taken as given.
  if (text[0] == '-' && source.rfind("--", 0) == 0)
    throw UsageError(source + " needs a file name, but is followed by " + quoted(text) + ", which looks like an option; " +
                     "give the file first, e.g. " + source + " " + example + " (a file whose name starts with '-': ./" +
                     text + ")");
  std::string dir = ".";
  size_t slash = text.rfind('/');
  if (slash != std::string::npos) dir = slash == 0 ? "/" : text.substr(0, slash);
  if (slash + 1 == text.size())
    throw UsageError(source + " " + quoted(text) + " names a directory, not a file; give a file name, e.g. " + text +
                     example);
  std::string probe = text + ".tmp";
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    close(fd);
    unlink(probe.c_str());
  } else if (errno != EEXIST) {
    throw UsageError(source + " " + quoted(text) + ": cannot write in directory " + quoted(dir) + ": " +
                     strerror(errno) + "; give a path in a directory you can write to");
  }
  return text;
}

// --hosts and --hostfile name where mpirun starts the nodes: mpi fabric only.
void check_hosts(const RunConfig &cfg) {
  if (cfg.hosts.empty() && cfg.hostfile.empty()) return;
  const char *flag = cfg.hosts.empty() ? "--hostfile" : "--hosts";
  if (cfg.fabric != "mpi")
    throw UsageError(std::string(flag) + " chooses hosts for the mpi fabric, but the fabric is " + cfg.fabric +
                     " (one host); add --fabric mpi, or leave " + flag + " out");
  if (!cfg.hosts.empty() && !cfg.hostfile.empty())
    throw UsageError("--hosts and --hostfile both name the hosts; give one of them");
  if (!cfg.hosts.empty()) {
    std::string list = "," + cfg.hosts + ",";
    if (list.find(",,") != std::string::npos || list.find_first_of(" \t") != std::string::npos)
      throw UsageError("--hosts " + quoted(cfg.hosts) +
                       " is not a list of host names; separate the names with commas, e.g. --hosts node1,node2");
  }
  if (!cfg.hostfile.empty() && access(cfg.hostfile.c_str(), R_OK) != 0)
    throw UsageError("--hostfile " + quoted(cfg.hostfile) + ": " + strerror(errno) +
                     "; give an mpirun hostfile you can read (one host per line)");
}

}  // namespace rdsm::launcher
