// Home claim axis: which node is the home of a page.
//
// The directory word of page p lives at node p mod nodes (0 = no home yet,
// else home + 1).  Placement policies write it when memory is allocated;
// under first touch the first node to fault on the page claims it:
//   message: a request to the directory node, whose handler claims (async);
//   cas:     a remote compare-and-swap on the directory word (ARDMAR) — a
//            failed CAS returns the real home; with home=migrate a claim
//            takes the unclaimed pages after the page too (home_of).
#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "common/fault_inject.hpp"
#include "protocol/hlrc.hpp"
#include "protocol/msg_types.hpp"

namespace rdsm {

namespace {
constexpr size_t kClaimRun = 32;  // pages a first touch claims, itself included (home=migrate)
struct HomeMsg {
  uint32_t page;
  int32_t home;
};
}  // namespace

int Hlrc::home_of(size_t page) {
  int h = home_[page];
  if (h < 0) {
    h = claim_home(page);
    home_[page] = (int16_t)h;
    // A first touch usually starts a run of them (an array written front
    // to back): with homes that migrate, the unclaimed pages after it are
    // claimed too while the claims succeed, so that the run faults once
    // (resolve_fault's run of home pages), not once per page.  A page
    // claimed ahead that another node writes alone moves to it at the next
    // barrier.  The seeds' presets (fixed homes) claim page by page.
    if (h == self_ && cfg_.home == HomeAxis::migrate && cfg_.claim == HomeClaimAxis::cas)
      for (size_t q = page + 1; q < std::min(pages_, page + kClaimRun) && home_[q] < 0; ++q) {
        const int c = claim_home(q);
        home_[q] = (int16_t)c;
        if (c != self_) break;
      }
  }
  return h;
}

int Hlrc::claim_home(size_t page) {
  int dir = (int)(page % nodes_);
  uint64_t off = page * sizeof(uint64_t);
  if (cfg_.claim == HomeClaimAxis::cas) {
    uint64_t old = f_.cas(dir, dir_seg_.id, off, 0, (uint64_t)self_ + 1);
    if (old == 0) fault_point("home_claim");
    return old == 0 ? self_ : (int)(old - 1);
  }
  home_reply_page_.store(-1);
  HomeMsg q{(uint32_t)page, self_};
  f_.send(dir, msg::kHomeQuery, &q, sizeof q);
  f_.wait([&] { return home_reply_page_.load() == (int64_t)page; });
  return home_reply_value_.load();
}

void Hlrc::on_home_query(const fabric::Message &m) {
  HomeMsg q;
  memcpy(&q, m.data, sizeof q);
  auto *word = reinterpret_cast<uint64_t *>(dir_seg_.base) + q.page;
  // The word may also be written by remote CAS or a placement put, so it is
  // updated atomically even though handlers run one at a time.
  std::atomic_ref<uint64_t> w(*word);
  uint64_t expected = 0;
  w.compare_exchange_strong(expected, (uint64_t)q.home + 1);
  if (expected == 0) fault_point("home_claim");
  HomeMsg r{q.page, expected == 0 ? q.home : (int32_t)(expected - 1)};
  f_.send(m.src, msg::kHomeReply, &r, sizeof r);
}

void Hlrc::on_home_reply(const fabric::Message &m) {
  HomeMsg r;
  memcpy(&r, m.data, sizeof r);
  home_reply_value_.store(r.home);
  home_reply_page_.store(r.page);
}

void Hlrc::place(size_t first, size_t count, rdsm_placement placement) {
  if (placement == RDSM_PLACE_FIRST_TOUCH || count == 0) return;
  std::vector<uint64_t> words(count);
  {
    std::lock_guard<FutexLock> g(mu_);
    for (size_t i = 0; i < count; ++i) {
      int h = placed_node(placement, first, i, count, nodes_, self_);
      words[i] = (uint64_t)h + 1;
      // Known here at once: a first write fault at the home then opens a run
      // of the home pages after it together (resolve_fault), not one by one.
      home_[first + i] = (int16_t)h;
    }
  }
  // Node k keeps the words of the pages p with p % nodes == k; the other
  // words of the range in its segment are never read or claimed there
  // (learn_homes skips them), so the whole range goes to every node in one
  // write each, not one write per page (across hosts a write is tens of us).
  for (int k = 0; k < nodes_; ++k) f_.put(k, dir_seg_.id, first * sizeof(uint64_t), words.data(), count * sizeof(uint64_t));
  f_.flush_all();
}

void Hlrc::learn_homes(size_t first, size_t count) {
  if (first >= pages_) return;
  count = std::min(count, pages_ - first);
  // Node k keeps the words of the pages p with p % nodes == k: one read of
  // the range from each node, of which every nodes-th word is its.
  std::vector<uint64_t> words(count);
  for (int k = 0; k < nodes_; ++k) {
    f_.get(k, dir_seg_.id, first * sizeof(uint64_t), words.data(), count * sizeof(uint64_t));
    std::lock_guard<FutexLock> g(mu_);
    for (size_t p = first + (size_t)((k - (int)(first % nodes_) + nodes_) % nodes_); p < first + count; p += nodes_)
      if (words[p - first] != 0 && home_[p] < 0) home_[p] = (int16_t)(words[p - first] - 1);
  }
}

void Hlrc::gather_homes(size_t pages, const AdoptRun &adopt) {
  if (nodes_ == 1 || cfg_.coherence == CoherenceAxis::hardware) return;  // all of it is here already
  pages = std::min(pages, pages_);
  // Homes this node knows are current (moves are known to every node at
  // once); the directory is asked, a range at a time, about the rest.
  // Runs of pages homed at one other node come in one read: a fork-join
  // master gathers tens of MiB here before its program goes on.
  constexpr size_t kChunk = 1 << 16;
  for (size_t first = 0; first < pages; first += kChunk) {
    const size_t end = std::min(pages, first + kChunk);
    learn_homes(first, end - first);
    for (size_t p = first; p < end;) {
      const int home = home_[p];
      size_t run = 1;
      while (p + run < end && home_[p + run] == home) ++run;
      if (home >= 0 && home != self_ && !(adopt && adopt(p, run, home))) {
        // Page-table entries for the whole run in one call first: the copy
        // alone then costs about half (a write fault per page otherwise).
        if (region_->populate(p, run, 1)) region_->premap_system(p, run);
        f_.get(home, data_seg_.id, p * kPageBytes, region_->sys_page(p), run * kPageBytes);
      }
      p += run;
    }
  }
}

}  // namespace rdsm
