// The ranks of one host: they map each other's segment files and doorbells
// (mpi_fabric.hpp says why), found with MPI_COMM_TYPE_SHARED and reached
// through peer_memfd.hpp.  Every choice is agreed by the whole job, so that
// a segment is reached the same way by every rank of a host and its atomic
// words are only ever touched by one kind of atomic.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "fabric/mpi_environment.hpp"
#include "fabric/mpi_fabric.hpp"
#include "fabric/peer_memfd.hpp"

namespace rdsm::fabric {

using mpi::check;

namespace {
constexpr size_t kCtlBytes = 4096;  // a rank's control file: its doorbell

// Maps the files the host's ranks published; false with the reason in *why
// as soon as one cannot be mapped.  Own file (rank `self`) at `own`.
bool map_all(MPI_Comm host, const std::vector<int> &ranks, int self, int fd, uint8_t *own, size_t len,
             uint8_t **out, std::vector<void *> *mapped, std::string *why) {
  FdIdentity mine = identify_fd(fd);
  std::vector<FdIdentity> ids(ranks.size());
  check(MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, ids.data(), (int)sizeof mine, MPI_BYTE, host),
        "MPI_Allgather");
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == self) {
      out[self] = own;
      continue;
    }
    int pfd = open_peer_fd(ids[i], why);
    if (pfd < 0) return false;
    void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, pfd, 0);
    close(pfd);  // the mapping keeps the file
    if (p == MAP_FAILED) {
      *why = std::string("cannot map the memory of rank ") + std::to_string(ranks[i]) + ": " + strerror(errno);
      return false;
    }
    mapped->push_back(p);
    out[ranks[i]] = static_cast<uint8_t *>(p);
  }
  return true;
}
}  // namespace

bool MpiFabric::agree(bool ok) {
  int mine = ok, all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD), "MPI_Allreduce");
  return all != 0;
}

void MpiFabric::join_host(const Options &opt) {
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_comm_),
        "MPI_Comm_split_type");
  int host_size = 0;
  check(MPI_Comm_size(host_comm_, &host_size), "MPI_Comm_size");
  host_ranks_.resize((size_t)host_size);
  check(MPI_Allgather(&rank_, 1, MPI_INT, host_ranks_.data(), 1, MPI_INT, host_comm_), "MPI_Allgather");
  bells_.assign((size_t)nodes_, nullptr);
  // Collective from here on: every rank takes part even when it maps nothing.
  bool ok = opt.mpi_local_map;
  std::string why;
  if (ok) {
    ctl_fd_ = memfd_create("rdsm-mpi-doorbell", MFD_CLOEXEC);
    if (ctl_fd_ < 0 || ftruncate(ctl_fd_, (off_t)kCtlBytes) != 0)
      fatal("mpi fabric: cannot create the doorbell file: %s", strerror(errno));
    void *own = mmap(nullptr, kCtlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, ctl_fd_, 0);
    if (own == MAP_FAILED) fatal("mpi fabric: cannot map the doorbell file: %s", strerror(errno));
    maps_.push_back({own, kCtlBytes});
    std::vector<uint8_t *> at((size_t)nodes_, nullptr);
    std::vector<void *> mapped;
    ok = map_all(host_comm_, host_ranks_, rank_, ctl_fd_, static_cast<uint8_t *>(own), kCtlBytes, at.data(),
                 &mapped, &why);
    for (void *p : mapped) maps_.push_back({p, kCtlBytes});
    for (int r : host_ranks_)
      if (at[(size_t)r]) bells_[(size_t)r] = reinterpret_cast<Doorbell *>(at[(size_t)r]);
  }
  if (opt.mpi_local_map && !ok)
    warn("mpi fabric: rank %d cannot map the memory of the ranks on its host (%s); one-sided operations between "
         "them go through MPI, which is slower",
         rank_, why.c_str());
  mapped_ = agree(ok);
  if (!mapped_) {
    unmap_host();
    bells_.assign((size_t)nodes_, nullptr);
    return;
  }
  bell_ = bells_[(size_t)rank_];
  one_host_ = host_size == nodes_;
  all_mapped_.store(one_host_, std::memory_order_release);
}

// Collective, from register_segment: the segment's file is mapped by every
// rank of the host, or by none of the whole job.
void MpiFabric::map_host_segments(Win &w) {
  if (!mapped_) return;
  w.peer.reset(new uint8_t *[(size_t)nodes_]());
  std::vector<void *> mapped;
  std::string why;
  bool ok = map_all(host_comm_, host_ranks_, rank_, w.fd, w.base, w.map_len, w.peer.get(), &mapped, &why);
  if (!ok) warn("mpi fabric: rank %d cannot map a segment of a rank on its host (%s); one-sided operations "
                "on it go through MPI, which is slower", rank_, why.c_str());
  if (agree(ok)) {
    for (void *p : mapped) maps_.push_back({p, w.map_len});
    w.atomics_mapped = one_host_;
    return;
  }
  for (void *p : mapped) munmap(p, w.map_len);
  w.peer.reset();
  all_mapped_.store(false, std::memory_order_release);
}

void MpiFabric::unmap_host() {
  for (const Mapping &m : maps_) munmap(m.addr, m.len);
  maps_.clear();
  bell_ = &own_bell_;
  if (ctl_fd_ >= 0) close(ctl_fd_);
  ctl_fd_ = -1;
}

}  // namespace rdsm::fabric
