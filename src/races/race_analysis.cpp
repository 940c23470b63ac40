#include "races/race_analysis.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <map>
#include <memory>
#include <tuple>

#include "common/bits.hpp"
#include "races/race_log_format.hpp"

namespace rdsm::races {

namespace {

struct Run {
  uint16_t off, len;
};

// One interval's writes to one page: runs, or a mask as the log had it.
struct PageWrite {
  uint32_t page;
  int node;
  uint32_t id;
  const uint32_t *clock;  // nodes entries
  const Run *runs;        // count runs (strided: {first, length}, {stride, count}), or
  uint32_t count;
  const uint64_t *mask;   // the page's changed-byte mask
  bool strided;
};

// One node's log, read record by record.
class LogReader {
 public:
  explicit LogReader(const std::string &path) : f_(fopen(path.c_str(), "rb")) {}
  ~LogReader() {
    if (f_) fclose(f_);
  }
  LogReader(const LogReader &) = delete;
  LogReader &operator=(const LogReader &) = delete;

  bool read_header(LogHeader &h) {
    return f_ && get(&h, sizeof h) && memcmp(h.magic, kLogMagic, sizeof h.magic) == 0 && h.version == kLogVersion &&
           h.nodes > 0 && h.rank < h.nodes && h.page_bytes > 0 && h.page_bytes <= 32768 && h.page_bytes % 64 == 0;
  }
  bool get(void *p, size_t n) { return fread(p, 1, n, f_) == n; }
  template <class T>
  bool get(T &v) {
    return get(&v, sizeof v);
  }
  bool text(std::string &s) {
    uint16_t n;
    if (!get(n)) return false;
    s.resize(n);
    return n == 0 || get(s.data(), n);
  }

 private:
  FILE *f_;
};

// An interval as read: its fields, and where its pages' runs sit in the
// epoch's arena.
struct IntervalRecord {
  uint32_t id = 0, epoch = 0;
  std::vector<uint32_t> clock;
  // Runs [first, first + count), or with count kMaskForm the mask at
  // masks[first], or with count kStrided the two runs at first that say
  // {first, length}, {stride, count}.
  struct Page {
    uint32_t page, first, count;
  };
  std::vector<Page> pages;
  std::vector<Run> runs;
  std::vector<uint64_t> masks;
};

struct NodeLog {
  int rank = 0;
  std::unique_ptr<LogReader> reader;
  bool has_next = false;  // `next` holds an interval not taken yet
  IntervalRecord next;
  bool ended = false;    // the end mark was read
  bool broken = false;   // cut short or malformed
  bool truncated = false;
  uint32_t cut_epoch = 0, cut_interval = 0;
  uint64_t cap = 0;
};

class JobAnalysis {
 public:
  JobAnalysis(uint32_t job, uint32_t nodes, uint64_t page_bytes, uint64_t region_base, RaceFindings &out,
              std::vector<std::tuple<uint32_t, uint32_t, int, int, uint64_t, uint64_t>> &found)
      : job_(job), nodes_(nodes), page_bytes_(page_bytes), base_(region_base), out_(out), found_(found) {}

  // Reads records of `log` until its next interval (kept in log.next) or
  // its end.
  void advance(NodeLog &log, std::vector<Allocation> &allocations) {
    log.has_next = false;
    if (log.ended || log.broken) return;
    LogReader &r = *log.reader;
    for (;;) {
      uint8_t tag;
      if (!r.get(tag)) {
        log.broken = true;
        return;
      }
      if (tag == kInterval) {
        IntervalRecord &iv = log.next;
        uint32_t pages;
        iv.clock.resize(nodes_);
        iv.pages.clear();
        iv.runs.clear();
        iv.masks.clear();
        if (!r.get(iv.id) || !r.get(iv.epoch) || !r.get(pages) || !r.get(iv.clock.data(), nodes_ * 4)) {
          log.broken = true;
          return;
        }
        for (uint32_t i = 0; i < pages; ++i) {
          uint32_t page, count;
          if (!r.get(page) || !r.get(count) || (count < kMaskRef && count > page_bytes_)) {
            log.broken = true;
            return;
          }
          if (count == kMaskForm) {
            size_t at = iv.masks.size();
            iv.masks.resize(at + page_bytes_ / 64);
            if (!r.get(iv.masks.data() + at, page_bytes_ / 8)) {
              log.broken = true;
              return;
            }
            iv.pages.push_back({page, (uint32_t)at, kMaskForm});
            continue;
          }
          if (count == kStrided) {
            size_t at = iv.runs.size();
            iv.runs.resize(at + 2);
            if (!r.get(iv.runs.data() + at, 2 * sizeof(Run))) {
              log.broken = true;
              return;
            }
            iv.pages.push_back({page, (uint32_t)at, kStrided});
            continue;
          }
          if (count >= kMaskRef) {  // the k-th mask this interval logged whole
            size_t k = count - kMaskRef;
            if (k >= iv.masks.size() / (page_bytes_ / 64)) {
              log.broken = true;
              return;
            }
            iv.pages.push_back({page, (uint32_t)(k * (page_bytes_ / 64)), kMaskForm});
            continue;
          }
          size_t at = iv.runs.size();
          iv.runs.resize(at + count);
          if (count && !r.get(iv.runs.data() + at, count * sizeof(Run))) {
            log.broken = true;
            return;
          }
          iv.pages.push_back({page, (uint32_t)at, count});
        }
        log.has_next = true;
        return;
      }
      if (tag == kTruncated) {
        if (!r.get(log.cut_epoch) || !r.get(log.cut_interval) || !r.get(log.cap)) {
          log.broken = true;
          return;
        }
        log.truncated = true;
      } else if (tag == kAllocation) {
        Allocation a;
        if (!r.get(a.base) || !r.get(a.size) || !r.get(a.pc) || !r.get(a.module_base) || !r.get(a.symbol_addr) ||
            !r.text(a.module) || !r.text(a.symbol)) {
          log.broken = true;
          return;
        }
        allocations.push_back(std::move(a));
      } else if (tag == kEnd) {
        log.ended = true;
        return;
      } else {
        log.broken = true;
        return;
      }
    }
  }

  // Compares the intervals of one epoch.
  void epoch(uint32_t e, std::vector<IntervalRecord> &intervals, const std::vector<int> &owner) {
    std::vector<PageWrite> writes;
    for (size_t i = 0; i < intervals.size(); ++i) {
      const IntervalRecord &iv = intervals[i];
      ++out_.intervals;
      out_.page_writes += iv.pages.size();
      for (const auto &p : iv.pages) {
        if (p.count == kMaskForm)
          writes.push_back({p.page, owner[i], iv.id, iv.clock.data(), nullptr, 0, iv.masks.data() + p.first, false});
        else if (p.count == kStrided)
          writes.push_back({p.page, owner[i], iv.id, iv.clock.data(), iv.runs.data() + p.first, 2, nullptr, true});
        else
          writes.push_back(
              {p.page, owner[i], iv.id, iv.clock.data(), iv.runs.data() + p.first, p.count, nullptr, false});
      }
    }
    std::sort(writes.begin(), writes.end(), [](const PageWrite &a, const PageWrite &b) {
      return std::tie(a.page, a.node, a.id) < std::tie(b.page, b.node, b.id);
    });
    for (size_t g = 0; g < writes.size();) {
      size_t end = g;
      while (end < writes.size() && writes[end].page == writes[g].page) ++end;
      page(e, writes.data() + g, writes.data() + end);
      g = end;
    }
  }

 private:
  // The writes of one page in one epoch, by node then interval.
  void page(uint32_t e, const PageWrite *first, const PageWrite *last) {
    std::vector<const PageWrite *> starts;  // each node's first write, then `last`
    for (const PageWrite *w = first; w < last; ++w)
      if (w == first || w->node != w[-1].node) starts.push_back(w);
    if (starts.size() < 2) return;
    starts.push_back(last);
    for (size_t a = 0; a + 1 < starts.size(); ++a)
      for (size_t b = a + 1; b + 1 < starts.size(); ++b) pair(e, starts[a], starts[a + 1], starts[b], starts[b + 1]);
  }

  // Node X's writes [xs, xe) against node Y's [ys, ye), each in increasing
  // interval.  Y's interval y is concurrent with X's x when neither clock
  // orders the other: y.id > x.clock[Y] (a suffix of Y's intervals) and
  // y.clock[X] < x.id (a prefix, since Y's clock only grows).
  void pair(uint32_t e, const PageWrite *xs, const PageWrite *xe, const PageWrite *ys, const PageWrite *ye) {
    const int X = xs->node, Y = ys->node;
    for (const PageWrite *x = xs; x < xe; ++x) {
      const PageWrite *lo = std::partition_point(ys, ye, [&](const PageWrite &y) { return y.id <= x->clock[Y]; });
      const PageWrite *hi = std::partition_point(lo, ye, [&](const PageWrite &y) { return y.clock[X] < x->id; });
      for (const PageWrite *y = lo; y < hi; ++y) overlap(e, *x, *y);
    }
  }

  // The page's changed bytes as a mask, whichever way the log had them.
  const uint64_t *mask_of(const PageWrite &w, std::vector<uint64_t> &scratch) const {
    if (w.mask) return w.mask;
    scratch.assign(page_bytes_ / 64, 0);
    auto set = [&](uint64_t from, uint64_t len) {
      for (uint64_t b = from; b < from + len && b < page_bytes_; ++b) scratch[b / 64] |= 1ull << (b % 64);
    };
    if (w.strided) {
      for (uint64_t k = 0; k < w.runs[1].len; ++k) set(w.runs[0].off + k * w.runs[1].off, w.runs[0].len);
    } else {
      for (uint32_t i = 0; i < w.count; ++i) set(w.runs[i].off, w.runs[i].len);
    }
    return scratch.data();
  }

  void overlap(uint32_t e, const PageWrite &x, const PageWrite &y) {
    const uint64_t *mx = mask_of(x, scratch_x_), *my = mask_of(y, scratch_y_);
    both_.resize(page_bytes_ / 64);
    bool any = false;
    for (size_t i = 0; i < both_.size(); ++i) any |= (both_[i] = mx[i] & my[i]) != 0;
    if (!any) return;
    for_each_bit_run(both_.data(), both_.size(), [&](size_t start, size_t len) {
      found_.emplace_back(job_, e, std::min(x.node, y.node), std::max(x.node, y.node),
                          base_ + (uint64_t)x.page * page_bytes_ + start, len);
    });
    // A race repeated interval after interval is found again each time:
    // the copies go before they fill memory.
    if (found_.size() >= compact_at_) {
      std::sort(found_.begin(), found_.end());
      found_.erase(std::unique(found_.begin(), found_.end()), found_.end());
      compact_at_ = std::max(compact_at_, 2 * found_.size());
    }
  }

  uint32_t job_, nodes_;
  uint64_t page_bytes_, base_;
  size_t compact_at_ = 1 << 20;
  std::vector<uint64_t> scratch_x_, scratch_y_, both_;  // masks of the pair being compared
  RaceFindings &out_;
  std::vector<std::tuple<uint32_t, uint32_t, int, int, uint64_t, uint64_t>> &found_;
};

struct LogFile {
  uint32_t job;
  int rank;
  std::string path;
};

std::vector<LogFile> list_logs(const std::string &dir) {
  std::vector<LogFile> out;
  DIR *d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent *e = readdir(d)) {
    unsigned job = 0;
    int rank = -1, used = 0;
    if (sscanf(e->d_name, "race.%u.%d%n", &job, &rank, &used) == 2 && e->d_name[used] == '\0' && rank >= 0)
      out.push_back({job, rank, dir + "/" + e->d_name});
  }
  closedir(d);
  std::sort(out.begin(), out.end(), [](const LogFile &a, const LogFile &b) {
    return std::tie(a.job, a.rank) < std::tie(b.job, b.rank);
  });
  return out;
}

std::string size_text(uint64_t bytes) {
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// One job's logs, files [first, last) of one job number.
void analyse_job(const LogFile *first, const LogFile *last, uint32_t ordinal, RaceFindings &out,
                 std::vector<Allocation> &allocations,
                 std::vector<std::tuple<uint32_t, uint32_t, int, int, uint64_t, uint64_t>> &found) {
  std::vector<NodeLog> logs;
  LogHeader first_header{};
  const std::string job_name = "job " + std::to_string(ordinal);
  for (const LogFile *f = first; f < last; ++f) {
    NodeLog log;
    log.rank = f->rank;
    log.reader = std::make_unique<LogReader>(f->path);
    LogHeader h;
    if (!log.reader->read_header(h) || (int)h.rank != f->rank ||
        (!logs.empty() && (h.nodes != first_header.nodes || h.page_bytes != first_header.page_bytes ||
                           h.region_base != first_header.region_base))) {
      out.gaps.push_back(job_name + ": the race log of node " + std::to_string(f->rank) + " is not readable");
      continue;
    }
    if (logs.empty()) first_header = h;
    logs.push_back(std::move(log));
  }
  if (logs.empty()) return;
  const uint32_t nodes = first_header.nodes;
  if (nodes < 2) return;
  ++out.jobs;
  for (uint32_t r = 0; r < nodes; ++r) {
    bool have = false;
    for (const NodeLog &l : logs) have = have || l.rank == (int)r;
    if (!have) out.gaps.push_back(job_name + ": node " + std::to_string(r) + " left no race log");
  }
  JobAnalysis job(ordinal, nodes, first_header.page_bytes, first_header.region_base, out, found);
  for (NodeLog &l : logs) job.advance(l, allocations);
  for (;;) {
    uint32_t e = UINT32_MAX;
    for (const NodeLog &l : logs)
      if (l.has_next) e = std::min(e, l.next.epoch);
    if (e == UINT32_MAX) break;
    std::vector<IntervalRecord> intervals;
    std::vector<int> owner;
    for (NodeLog &l : logs)
      while (l.has_next && l.next.epoch == e) {
        intervals.push_back(std::move(l.next));
        owner.push_back(l.rank);
        job.advance(l, allocations);
      }
    job.epoch(e, intervals, owner);
  }
  for (const NodeLog &l : logs) {
    if (l.truncated)
      out.gaps.push_back(job_name + ": node " + std::to_string(l.rank) + "'s race log reached its cap of " +
                         size_text(l.cap) + " in epoch " + std::to_string(l.cut_epoch) +
                         " (RDSM_RACE_LOG raises it): its writes from there on are not checked");
    if (l.broken || !l.ended)
      out.gaps.push_back(job_name + ": node " + std::to_string(l.rank) +
                         "'s race log is cut short (the node did not leave the job normally): its later writes are "
                         "not checked");
  }
}

}  // namespace

RaceFindings analyse_race_logs(const std::string &dir) {
  RaceFindings out;
  std::vector<LogFile> files = list_logs(dir);
  std::vector<Allocation> allocations;
  std::vector<std::tuple<uint32_t, uint32_t, int, int, uint64_t, uint64_t>> found;
  uint32_t ordinal = 0;
  for (size_t i = 0; i < files.size();) {
    size_t end = i;
    while (end < files.size() && files[end].job == files[i].job) ++end;
    uint32_t before = out.jobs;
    analyse_job(files.data() + i, files.data() + end, ordinal + 1, out, allocations, found);
    if (out.jobs > before) ++ordinal;
    i = end;
  }

  // Every process lists its allocations (a fork-join worker inherits its
  // master's): one of each.
  std::sort(allocations.begin(), allocations.end(),
            [](const Allocation &a, const Allocation &b) { return a.base < b.base; });
  for (const Allocation &a : allocations)
    if (out.allocations.empty() || out.allocations.back().base != a.base) out.allocations.push_back(a);

  // Overlapping and adjacent bytes of one node pair in one epoch are one
  // race, cut where allocations meet.
  std::sort(found.begin(), found.end());
  auto allocation_of = [&](uint64_t addr) -> const Allocation * {
    auto it = std::upper_bound(out.allocations.begin(), out.allocations.end(), addr,
                               [](uint64_t a, const Allocation &x) { return a < x.base; });
    if (it == out.allocations.begin()) return nullptr;
    --it;
    return addr < it->base + it->size ? &*it : nullptr;
  };
  auto emit = [&](const Race &r) {
    uint64_t at = r.address, end = r.address + r.bytes;
    while (at < end) {
      Race piece = r;
      piece.address = at;
      piece.allocation = allocation_of(at);
      uint64_t stop = end;
      if (piece.allocation) {
        stop = std::min(end, piece.allocation->base + piece.allocation->size);
      } else {
        // Up to the next allocation, if one starts inside.
        auto next = std::upper_bound(out.allocations.begin(), out.allocations.end(), at,
                                     [](uint64_t a, const Allocation &x) { return a < x.base; });
        if (next != out.allocations.end()) stop = std::min(end, next->base);
      }
      piece.bytes = stop - at;
      out.races.push_back(piece);
      at = stop;
    }
  };
  for (size_t i = 0; i < found.size();) {
    auto [job, epoch, a, b, addr, len] = found[i];
    Race r;
    r.job = job, r.epoch = epoch, r.node_a = a, r.node_b = b, r.address = addr, r.bytes = len;
    size_t j = i + 1;
    for (; j < found.size(); ++j) {
      auto [job2, epoch2, a2, b2, addr2, len2] = found[j];
      if (job2 != job || epoch2 != epoch || a2 != a || b2 != b || addr2 > r.address + r.bytes) break;
      r.bytes = std::max(r.bytes, addr2 + len2 - r.address);
    }
    emit(r);
    i = j;
  }
  return out;
}

}  // namespace rdsm::races
