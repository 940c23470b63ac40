#include "sync/lock_service.hpp"

#include <cstring>

#include "common/error.hpp"
#include "sync/msg_types.hpp"

namespace rdsm::sync {

namespace {
struct LockHeader {
  int32_t id;
  int32_t requester;
};

Bytes with_header(int id, int requester, const uint8_t *p, size_t n) {
  Bytes b(sizeof(LockHeader) + n);
  LockHeader h{id, requester};
  memcpy(b.data(), &h, sizeof h);
  if (n) memcpy(b.data() + sizeof h, p, n);
  return b;
}

LockHeader header_of(const fabric::Message &m) {
  if (m.len < sizeof(LockHeader)) fatal("internal error: short lock message from node %d", m.src);
  LockHeader h;
  memcpy(&h, m.data, sizeof h);
  return h;
}
}  // namespace

LockService::LockService(fabric::Fabric &f, int lock_count, LockHooks hooks)
    : f_(f), count_(lock_count), hooks_(std::move(hooks)) {
  f_.set_handler(kLockRequest, [this](const fabric::Message &m) { on_request(m); });
  f_.set_handler(kLockForward, [this](const fabric::Message &m) {
    LockHeader h = header_of(m);
    on_forward(h.id, h.requester, static_cast<const uint8_t *>(m.data) + sizeof h, m.len - sizeof h);
  });
  f_.set_handler(kLockGrant, [this](const fabric::Message &m) {
    LockHeader h = header_of(m);
    std::lock_guard<std::mutex> g(mu_);
    Local &l = local(h.id);
    const uint8_t *p = static_cast<const uint8_t *>(m.data) + sizeof h;
    l.grant.assign(p, p + (m.len - sizeof h));
    l.granted = true;
  });
}

LockService::Local &LockService::local(int id) {
  auto it = locals_.find(id);
  if (it != locals_.end()) return it->second;
  Local &l = locals_[id];
  l.has_token = manager_of(id) == f_.rank();  // the token starts at the manager
  return l;
}

bool LockService::held(int id) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = locals_.find(id);
  return it != locals_.end() && it->second.held;
}

Bytes LockService::acquire(int id, const Bytes &request, const std::function<void()> &) {
  {
    std::lock_guard<std::mutex> g(mu_);
    Local &l = local(id);
    if (l.held)
      api_error("rdsm_lock", "lock %d is already held by this node; locks are not recursive: unlock it first", id);
    if (l.has_token) {
      l.held = true;
      return {};
    }
    l.granted = false;
  }
  Bytes msg = with_header(id, f_.rank(), request.data(), request.size());
  f_.send(manager_of(id), kLockRequest, msg.data(), msg.size());
  f_.wait([&] {
    std::lock_guard<std::mutex> g(mu_);
    return local(id).granted;
  });
  std::lock_guard<std::mutex> g(mu_);
  Local &l = local(id);
  l.granted = false;
  l.has_token = true;
  l.held = true;
  return std::move(l.grant);
}

void LockService::release(int id, const Bytes &) {
  int to = -1;
  Bytes msg;
  {
    std::lock_guard<std::mutex> g(mu_);
    Local &l = local(id);
    if (!l.held)
      api_error("rdsm_unlock", "lock %d is not held by this node; unlock only a lock this node holds", id);
    l.held = false;
    if (l.waiter >= 0) {
      to = l.waiter;
      l.waiter = -1;
      Bytes req = std::move(l.waiter_request);
      msg = grant_to(id, l, to, req.data(), req.size());
    }
  }
  // Sent outside mu_: a send may have to wait, and waiting may run handlers.
  if (to >= 0) f_.send(to, kLockGrant, msg.data(), msg.size());
}

void LockService::on_request(const fabric::Message &m) {
  LockHeader h = header_of(m);
  int prev;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = tail_.find(h.id);
    prev = it == tail_.end() ? f_.rank() : it->second;
    tail_[h.id] = h.requester;
  }
  const uint8_t *p = static_cast<const uint8_t *>(m.data) + sizeof h;
  size_t n = m.len - sizeof h;
  if (prev == f_.rank())
    on_forward(h.id, h.requester, p, n);
  else
    f_.send(prev, kLockForward, m.data, m.len);
}

void LockService::on_forward(int id, int requester, const uint8_t *req, size_t len) {
  Bytes msg;
  {
    std::lock_guard<std::mutex> g(mu_);
    Local &l = local(id);
    if (!(l.has_token && !l.held)) {
      if (l.waiter >= 0) fatal("internal error: lock %d has two waiters at node %d", id, f_.rank());
      l.waiter = requester;
      l.waiter_request.assign(req, req + len);
      return;
    }
    msg = grant_to(id, l, requester, req, len);
  }
  f_.send(requester, kLockGrant, msg.data(), msg.size());
}

Bytes LockService::grant_to(int id, Local &l, int requester, const uint8_t *req, size_t len) {
  Bytes payload = hooks_.make_grant(requester, req, len);
  l.has_token = false;
  return with_header(id, requester, payload.data(), payload.size());
}

}  // namespace rdsm::sync
