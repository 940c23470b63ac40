#include "api/spare_worker_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>

#include "bootstrap/node_file.hpp"
#include "common/message_signal.hpp"

namespace rdsm::fj {

namespace {
// What the thread gives memory in one go: what take() may wait for
// (a write of 512 KiB of new pages, about 0.25 ms).
constexpr uint64_t kChunkBytes = 512 << 10;
constexpr size_t kZeroBytes = 64 << 10;
// Never written: its pages read as the kernel's zero page, so a write from
// it costs no memory traffic of its own.
char g_zeros[kZeroBytes];

// Writing zeros gives each page its memory and its content in one pass; a
// page given memory by fallocate is cleared again when first mapped (1.7-2.0
// against 3.1 us a page measured on shmem, fallocate and a read-populated
// mapping).  False where the kernel refuses (no memory left).
bool give_memory(int fd, uint64_t off, uint64_t len) {
  iovec iov[kChunkBytes / kZeroBytes];
  while (len > 0) {
    const uint64_t n = std::min<uint64_t>(len, kChunkBytes);
    int count = 0;
    for (uint64_t at = 0; at < n; at += kZeroBytes) iov[count++] = {g_zeros, (size_t)std::min<uint64_t>(kZeroBytes, n - at)};
    const ssize_t w = pwritev(fd, iov, count, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    // A short write leaves the rest for the next round.
    off += (uint64_t)w;
    len -= (uint64_t)w;
  }
  return true;
}
}  // namespace

struct SpareWorkerFile::Preparation {
  int fd = -1;
  uint64_t data_offset = 0;
  std::mutex mu;
  std::condition_variable wake;
  uint64_t wanted = 0;  // bytes of the data segment, capped by the budget
  uint64_t limit = 0;   // the budget (lowered where the kernel refuses)
  bool stop = false;
  std::atomic<uint64_t> prepared{0};
  std::thread thread;

  void run() {
    block_message_signal_here();  // message signals are for the compute threads
    for (;;) {
      uint64_t from, len;
      {
        std::unique_lock<std::mutex> lk(mu);
        wake.wait(lk, [&] { return stop || prepared.load() < std::min(wanted, limit); });
        if (stop) break;
        from = prepared.load();
        len = std::min(kChunkBytes, std::min(wanted, limit) - from);
      }
      if (!give_memory(fd, data_offset + from, len)) {
        std::lock_guard<std::mutex> g(mu);
        limit = from;  // the first worker gives the rest as it would have
        continue;
      }
      prepared.store(from + len);
    }
  }
};

void SpareWorkerFile::start(uint64_t data_offset, uint64_t used, uint64_t budget) {
  if (p_ || budget == 0) return;
  p_ = new Preparation;
  p_->fd = create_node_files(1)[0];
  p_->data_offset = data_offset;
  p_->limit = budget / 4096 * 4096;
  p_->wanted = (used + 4095) / 4096 * 4096;
  p_->thread = std::thread([p = p_] { p->run(); });
}

void SpareWorkerFile::grow(uint64_t used) {
  if (!p_ || !p_->thread.joinable()) return;  // none, or paused
  {
    std::lock_guard<std::mutex> g(p_->mu);
    p_->wanted = std::max(p_->wanted, (used + 4095) / 4096 * 4096);
  }
  p_->wake.notify_one();
}

void SpareWorkerFile::pause() {
  if (!p_ || !p_->thread.joinable()) return;
  {
    std::lock_guard<std::mutex> g(p_->mu);
    p_->stop = true;
  }
  p_->wake.notify_one();
  p_->thread.join();
}

int SpareWorkerFile::take() {
  if (!p_) return -1;
  pause();
  const int fd = p_->fd;
  delete p_;
  p_ = nullptr;
  return fd;
}

uint64_t SpareWorkerFile::prepared_bytes() const { return p_ ? p_->prepared.load() : 0; }

SpareWorkerFile::~SpareWorkerFile() {
  const int fd = take();
  if (fd >= 0) close(fd);
}

}  // namespace rdsm::fj
