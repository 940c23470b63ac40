#include "races/race_recorder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "common/bits.hpp"
#include "common/error.hpp"
#include "races/allocation_sites.hpp"
#include "races/race_log_format.hpp"

namespace rdsm::races {

namespace {
constexpr size_t kFlushBytes = 1 << 20;  // the buffer goes to the file beyond this

template <class T>
void put(std::vector<uint8_t> &out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof v);
  memcpy(out.data() + at, &v, sizeof v);
}

bool write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}
}  // namespace

RaceRecorder::RaceRecorder(const RecorderSetup &setup)
    : setup_(setup), nodes_(setup.nodes), mask_words_(setup.page_bytes / 64), clock_((size_t)setup.nodes, 0) {
  LogHeader h{};
  memcpy(h.magic, kLogMagic, sizeof h.magic);
  h.version = kLogVersion;
  h.job = setup_.job;
  h.rank = (uint32_t)setup_.rank;
  h.nodes = (uint32_t)setup_.nodes;
  h.page_bytes = setup_.page_bytes;
  h.region_base = setup_.region_base;
  buf_.reserve(2 * kFlushBytes);
  buf_.resize(sizeof h);
  memcpy(buf_.data(), &h, sizeof h);
  logged_ = buf_.size();
}

RaceRecorder::~RaceRecorder() {
  if (fd_ >= 0) close(fd_);
}

void RaceRecorder::add_mask(uint32_t page, const uint64_t *mask) {
  std::lock_guard<std::mutex> g(mu_);
  auto [it, fresh] = slot_of_.try_emplace(page, pages_.size());
  if (fresh) {
    pages_.push_back(page);
    masks_.resize(masks_.size() + mask_words_, 0);
  }
  uint64_t *m = masks_.data() + it->second * mask_words_;
  for (size_t i = 0; i < mask_words_; ++i) m[i] |= mask[i];
}

void RaceRecorder::add_bytes(uint32_t page, uint32_t offset, uint32_t length) {
  std::vector<uint64_t> mask(mask_words_, 0);
  for (uint32_t b = offset; b < offset + length; ++b) mask[b / 64] |= 1ull << (b % 64);
  add_mask(page, mask.data());
}

void RaceRecorder::pending_pages(std::vector<uint32_t> &out) {
  std::lock_guard<std::mutex> g(mu_);
  out.insert(out.end(), pages_.begin(), pages_.end());
}

void RaceRecorder::seal(uint32_t id) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!pages_.empty() && !stopped_) append_interval(id);
    slot_of_.clear();
    pages_.clear();
    masks_.clear();
  }
  // From here on this node's releases pass this interval on.
  last_sealed_ = std::max(last_sealed_, id);
  if (buf_.size() >= kFlushBytes) flush();
}

// The number of maximal runs of set bits in a page's mask.
static size_t count_runs(const uint64_t *mask, size_t words) {
  size_t runs = 0;
  uint64_t carry = 0;  // the previous word's last bit
  for (size_t i = 0; i < words; ++i) {
    runs += count_bits(mask[i] & ~((mask[i] << 1) | carry));
    carry = mask[i] >> 63;
  }
  return runs;
}

// Encodes the open interval (mu_ held): per page its runs of changed bytes,
// or the mask itself where that is shorter (every other word written, as a
// red-black sweep does); past the cap, the truncation record instead.
void RaceRecorder::append_interval(uint32_t id) {
  std::vector<size_t> order(pages_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return pages_[a] < pages_[b]; });
  const size_t mask_bytes = mask_words_ * sizeof(uint64_t);
  std::vector<uint8_t> &rec = rec_;  // kept from one interval to the next: no fresh pages for each
  rec.clear();
  logged_masks_.clear();
  put<uint8_t>(rec, kInterval);
  put<uint32_t>(rec, id);
  put<uint32_t>(rec, epoch_);
  size_t count_at = rec.size();
  put<uint32_t>(rec, 0);
  for (uint32_t c : clock_) put<uint32_t>(rec, c);
  uint32_t pages = 0;
  for (size_t i : order) {
    const uint64_t *m = masks_.data() + i * mask_words_;
    const size_t runs = count_runs(m, mask_words_);
    if (runs == 0) continue;  // written back to its old values: no byte changed
    ++pages;
    put<uint32_t>(rec, pages_[i]);
    if (runs >= 3) {
      // Runs of one length at one stride go as four numbers.
      uint16_t first = 0, length = 0, stride = 0;
      size_t seen = 0;
      bool regular = true;
      for_each_bit_run(m, mask_words_, [&](size_t start, size_t len) {
        if (seen == 0) first = (uint16_t)start, length = (uint16_t)len;
        else if (seen == 1) stride = (uint16_t)(start - first);
        regular = regular && len == length && start == first + seen * stride;
        ++seen;
      });
      if (regular) {
        put<uint32_t>(rec, kStrided);
        for (uint16_t v : {first, length, stride, (uint16_t)runs}) put<uint16_t>(rec, v);
        continue;
      }
    }
    if (runs * 2 * sizeof(uint16_t) >= mask_bytes) {
      // A mask this interval logged already goes as a reference to it.
      uint64_t h = 1469598103934665603ull;
      for (size_t w = 0; w < mask_words_; ++w) h = (h ^ m[w]) * 1099511628211ull;
      uint32_t ref = kMaskForm;
      auto [first, last] = logged_masks_.equal_range(h);
      for (auto it = first; it != last && ref == kMaskForm; ++it)
        if (memcmp(masks_.data() + it->second.slot * mask_words_, m, mask_bytes) == 0) ref = kMaskRef + it->second.k;
      if (ref != kMaskForm) {
        put<uint32_t>(rec, ref);
        continue;
      }
      if (logged_masks_.size() < kStrided - kMaskRef)
        logged_masks_.emplace(h, LoggedMask{i, (uint32_t)logged_masks_.size()});
      put<uint32_t>(rec, kMaskForm);
      rec.insert(rec.end(), reinterpret_cast<const uint8_t *>(m), reinterpret_cast<const uint8_t *>(m) + mask_bytes);
      continue;
    }
    put<uint32_t>(rec, (uint32_t)runs);
    size_t at = rec.size();
    rec.resize(at + runs * 2 * sizeof(uint16_t));
    uint8_t *out = rec.data() + at;
    for_each_bit_run(m, mask_words_, [&](size_t start, size_t len) {
      uint16_t run[2] = {(uint16_t)start, (uint16_t)len};
      memcpy(out, run, sizeof run);
      out += sizeof run;
    });
  }
  if (pages == 0) return;
  memcpy(rec.data() + count_at, &pages, sizeof pages);
  if (logged_ + rec.size() > setup_.cap_bytes) {
    std::vector<uint8_t> cut;
    put<uint8_t>(cut, kTruncated);
    put<uint32_t>(cut, epoch_);
    put<uint32_t>(cut, id);
    put<uint64_t>(cut, setup_.cap_bytes);
    buf_.insert(buf_.end(), cut.begin(), cut.end());
    logged_ += cut.size();
    stopped_ = true;
    return;
  }
  buf_.insert(buf_.end(), rec.begin(), rec.end());
  logged_ += rec.size();
}

Clock RaceRecorder::release_clock() {
  Clock c = clock_;
  c[(size_t)setup_.rank] = std::max(c[(size_t)setup_.rank], last_sealed_);
  return c;
}

void RaceRecorder::merge(const Clock &c) {
  for (size_t w = 0; w < clock_.size() && w < c.size(); ++w)
    if ((int)w != setup_.rank) clock_[w] = std::max(clock_[w], c[w]);
}

void RaceRecorder::barrier_passed(const Clock &target) {
  merge(target);
  ++epoch_;
}

void RaceRecorder::lock_released(int id) {
  Clock c = release_clock();
  std::lock_guard<std::mutex> g(mu_);
  lock_clocks_[id] = std::move(c);
}

Clock RaceRecorder::lock_clock(int id) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = lock_clocks_.find(id);
  return it != lock_clocks_.end() ? it->second : Clock((size_t)nodes_, 0);
}

void RaceRecorder::flush() {
  if (buf_.empty() || failed_) return;
  if (fd_ < 0) {
    std::string path = setup_.dir + "/" + log_name(setup_.job, setup_.rank);
    fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) return give_up("cannot create", errno);
  }
  if (!write_all(fd_, buf_.data(), buf_.size())) return give_up("cannot write", errno);
  buf_.clear();
}

void RaceRecorder::give_up(const char *why, int err) {
  warn("--races: %s this node's race log in %s: %s; its races are not reported", why, setup_.dir.c_str(),
       strerror(err));
  buf_.clear();
  stopped_ = failed_ = true;
}

void RaceRecorder::finish() {
  if (failed_) return;
  encode_allocations(buf_);
  put<uint8_t>(buf_, kEnd);
  flush();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace rdsm::races
