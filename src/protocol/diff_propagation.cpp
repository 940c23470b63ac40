// Diff axis: make this node's writes to pages homed elsewhere visible at
// their homes, before the release that ends the interval completes.
//   message:   the diffs for one home are packed into messages; the home's
//              handler applies them, bumps the page versions and acks
//              (async, ardmar);
//   one_sided: the runs are written straight into the home's copy, then the
//              pages' version words (DRAW); the home's CPU does nothing.
//              The runs of every page for one home go as one gathering
//              write (fabric putv), straight from this node's copy (no
//              encoded diff in between), and runs that meet across a page
//              boundary become one piece: a page rewritten whole, and a
//              row of such pages, is one contiguous write.  Runs are never
//              merged over unchanged bytes: another node may have written
//              those bytes at the home (false sharing, or a write ordered
//              before this one by a lock), and rewriting them with this
//              node's older values would lose that write, unless the
//              whole axis proves nobody else is writing the page
//              (whole_page_writes.cpp).  With pieces=masked, a page of
//              many runs that does not go whole goes as one byte-masked
//              write of the page instead (fabric put_masked): exactly the
//              runs' bytes change at the home, so it is as safe as the
//              runs, and a page falsely shared by several writers (radix
//              keys, whose unchanged high bytes cut every key into its own
//              run) costs one write, not hundreds.  `diff_ops` counts the
//              pieces and masked writes, the remote writes a NIC would
//              issue.
#include <algorithm>
#include <cstring>
#include <vector>

#include "common/bits.hpp"
#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "protocol/diff.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"
#include "stats/stats.hpp"

namespace rdsm {

namespace {
constexpr size_t kDiffMessageBytes = 64 << 10;  // pack diffs up to this size per message
// From this many runs on, a page goes whole if it can: a whole page costs
// about as much to write as a handful of small pieces.
constexpr size_t kWholeMinRuns = 8;
constexpr size_t kRegisterTogether = 32;  // 128 KiB of pages: read again from a core's L2

struct DiffEntry {
  uint32_t page;
  uint32_t len;
};

void append(std::vector<uint8_t> &b, const void *p, size_t n) {
  size_t at = b.size();
  b.resize(at + n);
  memcpy(b.data() + at, p, n);
}
}  // namespace

void Hlrc::propagate_diffs_one_sided(const std::vector<uint32_t> &pages, uint32_t interval, bool keep,
                                     std::vector<uint32_t> *changed) {
  // By home, and by page within a home, so that runs can meet.
  std::vector<uint32_t> order(pages);
  std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
    return home_[a] != home_[b] ? home_[a] < home_[b] : a < b;
  });
  if (runs_buf_.size() < diff_max_runs(kPageBytes)) runs_buf_.resize(diff_max_runs(kPageBytes));
  const bool whole_axis = whole_pages();
  const bool masked = cfg_.pieces == PiecesAxis::masked;
  if (masked && mask_buf_.size() < kPageBytes / 64) mask_buf_.resize(kPageBytes / 64);
  // A home's pages that go as runs or a masked write, kRegisterTogether at
  // a time: found first, then registered as runs writers together (one
  // round trip, not one each), then written while still in the cache.
  struct RunsPage {
    uint32_t page;
    size_t first, count;  // its runs in `runs`, or its mask at masks[first * kPageBytes / 64] (count 0)
    size_t bytes;
  };
  std::vector<RunsPage> runs_pages;
  std::vector<DiffRun> runs;
  std::vector<uint64_t> masks;
  // Counted here and added once at the end: an atomic add per page, right
  // after its write home, waits for that write's stores to drain.
  uint64_t diffs = 0, diff_bytes = 0, diff_ops = 0, claimed = 0;
  auto done_with = [&](uint32_t p, bool keep_twin, size_t bytes) {
    if (!keep_twin) free_twin(p);
    ++diffs;
    diff_bytes += bytes;
    if (changed) changed->push_back(p);
  };
  for (size_t i = 0; i < order.size();) {
    int home = home_[order[i]];
    // Where the home's copy is mapped here, a claimed page's masked write is a blend.
    const bool blends = f_.blends_in_place(home, data_seg_.id);
    pieces_.clear();
    version_pieces_.clear();
    auto add_piece = [this](uint64_t off, const uint8_t *src, size_t n) {
      // The system view is contiguous too, so meeting targets mean
      // meeting sources.
      if (!pieces_.empty() && pieces_.back().off + pieces_.back().n == off)
        pieces_.back().n += n;
      else
        pieces_.push_back({off, src, n});
    };
    // The chunk's pages registered, then written.
    auto write_chunk = [&] {
      const size_t held_from = runs_.held.size();
      if (whole_axis) {
        for (const RunsPage &rp : runs_pages) runs_.held.push_back({rp.page, 0});
        register_runs(home, held_from);
      }
      for (size_t k = 0; k < runs_pages.size(); ++k) {
        const RunsPage &rp = runs_pages[k];
        const uint32_t p = rp.page;
        uint8_t *page = region_->sys_page(p);
        const bool keep_twin = keeps_twin(p, keep);
        // Registered while a whole-page write was under way: written again after it.
        const bool repeat = whole_axis && (runs_.held[held_from + k].word & page_word::kWhole);
        size_t bytes = 0;
        if (rp.count == 0) {
          const uint64_t *mask = masks.data() + rp.first * (kPageBytes / 64);
          f_.put_masked(home, data_seg_.id, (uint64_t)p * kPageBytes, page, mask, kPageBytes);
          ++diff_ops;
          bytes = rp.bytes;
          if (keep_twin) memcpy(twin_to_write(p, true), page, kPageBytes);
          if (repeat) {
            runs_.repeat_masked.push_back(p);
            runs_.repeat_masks.insert(runs_.repeat_masks.end(), mask, mask + kPageBytes / 64);
            runs_.repeat_pages.push_back(p);
          }
        } else {
          for (size_t r = rp.first; r < rp.first + rp.count; ++r) {
            uint64_t off = (uint64_t)p * kPageBytes + runs[r].off;
            bytes += runs[r].len;
            if (keep_twin) memcpy(twin_to_write(p, false) + runs[r].off, page + runs[r].off, runs[r].len);
            add_piece(off, page + runs[r].off, runs[r].len);
            if (repeat) runs_.repeat_pieces.push_back({off, page + runs[r].off, runs[r].len});
          }
          if (repeat) runs_.repeat_pages.push_back(p);
        }
        done_with(p, keep_twin, bytes);
      }
      runs_pages.clear();
      runs.clear();
      masks.clear();
    };
    for (; i < order.size() && home_[order[i]] == home; ++i) {
      uint32_t p = order[i];
      uint8_t *page = region_->sys_page(p);
      size_t masked_bytes = 0;
      size_t count = masked ? diff_change_mask(twin(p), page, kPageBytes, mask_buf_.data(), &masked_bytes)
                            : diff_find_runs(twin(p), page, kPageBytes, runs_buf_.data());
      if (notes_partial_writes()) note_partial_write(p, masked ? mask_buf_.data() : nullptr, runs_buf_.data(), count);
      // Even an empty diff bumps the version: readers wait for this interval.
      version_pieces_.push_back({((uint64_t)p * nodes_ + self_) * sizeof(uint32_t), &interval, sizeof interval});
      // Written alone under a claim of the home's page: whole if this copy
      // is the home's but for its writes, else (many runs) blended in place.
      size_t alone_bytes = 0;
      if (count >= kWholeMinRuns && whole_axis) {
        if (write_whole(home, p))
          alone_bytes = kPageBytes;
        else if (masked && blends && write_masked_alone(home, p, mask_buf_.data()))
          alone_bytes = masked_bytes;
      }
      if (alone_bytes) {
        ++diff_ops;
        ++claimed;
        const bool keep_twin = keeps_twin(p, keep);
        if (keep_twin) memcpy(twin_to_write(p, true), page, kPageBytes);
        done_with(p, keep_twin, alone_bytes);
      } else if (count >= kWholeMinRuns && masked) {
        runs_pages.push_back({p, masks.size() / (kPageBytes / 64), 0, masked_bytes});
        masks.insert(masks.end(), mask_buf_.begin(), mask_buf_.begin() + kPageBytes / 64);
      } else if (count) {
        // Few runs: the mask's runs, each its own piece.
        RunsPage rp{p, runs.size(), 0, 0};
        if (masked)
          for_each_bit_run(mask_buf_.data(), kPageBytes / 64, [&](size_t start, size_t len) {
            runs.push_back(DiffRun{(uint32_t)start, (uint32_t)len});
          });
        else
          runs.insert(runs.end(), runs_buf_.begin(), runs_buf_.begin() + count);
        rp.count = runs.size() - rp.first;
        runs_pages.push_back(rp);
      } else if (!keeps_twin(p, keep)) {
        free_twin(p);
      }
      if (runs_pages.size() == kRegisterTogether) write_chunk();
    }
    write_chunk();
    f_.putv(home, data_seg_.id, pieces_.data(), pieces_.size());
    diff_ops += pieces_.size() + runs_.repeat_pieces.size() + runs_.repeat_masked.size();
    f_.flush(home);  // the runs are visible before the versions that announce them
    fault_point("diff_version");
    if (whole_axis) rewrite_covered_runs(home);
    f_.putv(home, version_seg_.id, version_pieces_.data(), version_pieces_.size());
    if (whole_axis) {
      f_.flush(home);  // the versions are visible before the writes end
      end_runs_writes(home);
    }
    let_go_of_parked(home);
  }
  f_.flush_all();
  add(stats().diffs, diffs);
  add(stats().diff_bytes, diff_bytes);
  add(stats().diff_ops, diff_ops);
  add(stats().diffs_claimed, claimed);
}

void Hlrc::propagate_diffs(const std::vector<uint32_t> &pages, uint32_t interval, bool keep,
                           std::vector<uint32_t> *changed) {
  if (pages.empty()) return;
  if (races_) record_diffs(pages);
  if (cfg_.diff == DiffAxis::one_sided) {
    propagate_diffs_one_sided(pages, interval, keep, changed);
    return;
  }
  std::vector<uint8_t> diff(diff_max_bytes(kPageBytes));
  std::vector<std::vector<uint8_t>> out(nodes_);
  auto send = [&](int home) {
    diff_acks_pending_.fetch_add(1);
    add(stats().diff_ops);
    f_.send(home, msg::kDiff, out[home].data(), out[home].size());
    out[home].clear();
  };
  for (uint32_t p : pages) {
    int home = home_[p];
    size_t len = diff_encode(twin(p), region_->sys_page(p), kPageBytes, diff.data());
    if (keeps_twin(p, keep))
      memcpy(twin_to_write(p, true), region_->sys_page(p), kPageBytes);
    else
      free_twin(p);
    if (len && changed) changed->push_back(p);
    // An empty diff still travels: the home must bump the page's version.
    if (out[home].empty()) append(out[home], &interval, sizeof interval);
    DiffEntry e{p, (uint32_t)len};
    append(out[home], &e, sizeof e);
    append(out[home], diff.data(), len);
    if (len) {
      add(stats().diffs);
      add(stats().diff_bytes, len);
    }
    if (out[home].size() >= kDiffMessageBytes) send(home);
  }
  for (int h = 0; h < nodes_; ++h)
    if (!out[h].empty()) send(h);
  f_.wait([&] { return diff_acks_pending_.load() == 0; });
}

void Hlrc::on_diff(const fabric::Message &m) {
  const uint8_t *p = static_cast<const uint8_t *>(m.data);
  const uint8_t *end = p + m.len;
  uint32_t interval;
  if (m.len < sizeof interval) fatal("internal error: short diff message from node %d", m.src);
  memcpy(&interval, p, sizeof interval);
  p += sizeof interval;
  while (p < end) {
    DiffEntry e;
    if ((size_t)(end - p) < sizeof e) fatal("internal error: truncated diff message from node %d", m.src);
    memcpy(&e, p, sizeof e);
    p += sizeof e;
    if ((size_t)(end - p) < e.len || e.page >= pages_ || !apply_diff_at_home(e.page, p, e.len))
      fatal("internal error: malformed diff for page %u from node %d", e.page, m.src);
    p += e.len;
    fault_point("diff_apply");
    auto v = version(e.page, m.src);
    if (v.load(std::memory_order_relaxed) < interval) v.store(interval, std::memory_order_release);
    serve_deferred_fetches(e.page);
  }
  f_.send(m.src, msg::kDiffAck, nullptr, 0);
}

}  // namespace rdsm
