#include "protocol/notices.hpp"

#include <algorithm>
#include <cstring>

namespace rdsm {

namespace {
void put32(std::vector<uint8_t> &b, uint32_t v) {
  size_t n = b.size();
  b.resize(n + 4);
  memcpy(b.data() + n, &v, 4);
}
bool get32(const uint8_t *&p, const uint8_t *end, uint32_t &v) {
  if (end - p < 4) return false;
  memcpy(&v, p, 4);
  p += 4;
  return true;
}
}  // namespace

void vc_merge(VClock &a, const VClock &b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}

std::vector<uint8_t> NoticeSet::encode() const {
  std::vector<uint8_t> b;
  size_t words = 2 + vc.size();
  for (const auto &iv : intervals) words += 3 + iv.pages.size();
  b.reserve(words * 4);
  put32(b, (uint32_t)vc.size());
  for (uint32_t v : vc) put32(b, v);
  put32(b, (uint32_t)intervals.size());
  for (const auto &iv : intervals) {
    put32(b, iv.writer);
    put32(b, iv.id);
    put32(b, (uint32_t)iv.pages.size());
    size_t n = b.size();
    b.resize(n + 4 * iv.pages.size());
    if (!iv.pages.empty()) memcpy(b.data() + n, iv.pages.data(), 4 * iv.pages.size());
  }
  return b;
}

bool NoticeSet::decode(const uint8_t *p, size_t len) {
  const uint8_t *end = p + len;
  uint32_t n, count;
  vc.clear();
  intervals.clear();
  if (!get32(p, end, n) || n > 65536) return false;
  vc.resize(n);
  for (auto &v : vc)
    if (!get32(p, end, v)) return false;
  if (!get32(p, end, count)) return false;
  intervals.resize(count);
  for (auto &iv : intervals) {
    uint32_t np;
    if (!get32(p, end, iv.writer) || !get32(p, end, iv.id) || !get32(p, end, np)) return false;
    if ((size_t)(end - p) / 4 < np) return false;
    iv.pages.resize(np);
    if (np) memcpy(iv.pages.data(), p, 4 * (size_t)np);
    p += 4 * (size_t)np;
  }
  return p == end;
}

void NoticeStore::add_own(int self, uint32_t id, std::vector<uint32_t> pages) {
  std::lock_guard<std::mutex> g(mu_);
  log_[self].push_back(Interval{(uint32_t)self, id, std::move(pages)});
  vc_[self] = std::max(vc_[self], id);
}

std::vector<Interval> NoticeStore::learn(const std::vector<Interval> &intervals) {
  std::vector<Interval> fresh;
  std::lock_guard<std::mutex> g(mu_);
  for (const auto &iv : intervals) {
    if (iv.writer >= vc_.size() || iv.id <= vc_[iv.writer]) continue;
    log_[iv.writer].push_back(iv);
    vc_[iv.writer] = iv.id;
    fresh.push_back(iv);
  }
  return fresh;
}

void NoticeStore::merge_vc(const VClock &vc) {
  std::lock_guard<std::mutex> g(mu_);
  for (size_t i = 0; i < vc.size() && i < vc_.size(); ++i) vc_[i] = std::max(vc_[i], vc[i]);
}

NoticeSet NoticeStore::since(const VClock &since) const {
  NoticeSet s;
  std::lock_guard<std::mutex> g(mu_);
  s.vc = vc_;
  for (size_t w = 0; w < log_.size(); ++w) {
    uint32_t after = w < since.size() ? since[w] : 0;
    for (const auto &iv : log_[w])
      if (iv.id > after) s.intervals.push_back(iv);
  }
  return s;
}

NoticeSet NoticeStore::of_writer(int writer, uint32_t after) const {
  NoticeSet s;
  std::lock_guard<std::mutex> g(mu_);
  s.vc.assign(vc_.size(), 0);
  s.vc[writer] = vc_[writer];
  for (const auto &iv : log_[writer])
    if (iv.id > after) s.intervals.push_back(iv);
  return s;
}

void NoticeStore::visit(const VClock &after, const VClock &upto,
                        const std::function<void(const Interval &)> &f) const {
  std::lock_guard<std::mutex> g(mu_);
  for (size_t w = 0; w < log_.size() && w < after.size() && w < upto.size(); ++w) {
    // A writer's log is in increasing id: find the first after after[w]
    // (a lock's acquire asks for one interval among thousands).
    const auto &log = log_[w];
    auto it = std::upper_bound(log.begin(), log.end(), after[w],
                               [](uint32_t id, const Interval &iv) { return id < iv.id; });
    for (; it != log.end() && it->id <= upto[w]; ++it) f(*it);
  }
}

void NoticeStore::forget_up_to(const VClock &floor) {
  std::lock_guard<std::mutex> g(mu_);
  for (size_t w = 0; w < log_.size() && w < floor.size(); ++w)
    while (!log_[w].empty() && log_[w].front().id <= floor[w]) log_[w].pop_front();
}

VClock NoticeStore::vc() const {
  std::lock_guard<std::mutex> g(mu_);
  return vc_;
}

uint32_t NoticeStore::vc_of(int w) const {
  std::lock_guard<std::mutex> g(mu_);
  return vc_[w];
}

bool NoticeStore::covers(const VClock &target, int self) const {
  std::lock_guard<std::mutex> g(mu_);
  for (size_t w = 0; w < vc_.size(); ++w)
    if ((int)w != self && vc_[w] < target[w]) return false;
  return true;
}

void NoticeStore::copy_vc(uint32_t *out) const {
  std::lock_guard<std::mutex> g(mu_);
  std::copy(vc_.begin(), vc_.end(), out);
}

}  // namespace rdsm
