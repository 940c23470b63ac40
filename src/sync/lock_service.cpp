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

LockHeader header_of(const void *data, size_t len, int src) {
  if (len < sizeof(LockHeader)) fatal("internal error: short lock message from node %d", src);
  LockHeader h;
  memcpy(&h, data, sizeof h);
  return h;
}

const uint8_t *bytes(const fabric::Message &m) { return static_cast<const uint8_t *>(m.data); }
}  // namespace

LockService::LockService(fabric::Fabric &f, int lock_count, LockHooks hooks)
    : f_(f), count_(lock_count), hooks_(std::move(hooks)) {
  f_.set_handler(kLockRequest, [this](const fabric::Message &m) { on_request(bytes(m), m.len); });
  f_.set_handler(kLockTry, [this](const fabric::Message &m) { on_try(bytes(m), m.len); });
  f_.set_handler(kLockForward, [this](const fabric::Message &m) {
    LockHeader h = header_of(m.data, m.len, m.src);
    on_forward(h.id, h.requester, bytes(m) + sizeof h, m.len - sizeof h);
  });
  f_.set_handler(kLockTryForward, [this](const fabric::Message &m) {
    LockHeader h = header_of(m.data, m.len, m.src);
    Bytes grant;
    {
      std::lock_guard<std::mutex> g(mu_);
      grant = grant_if_free(h.id, h.requester, bytes(m) + sizeof h, m.len - sizeof h);
    }
    answer_try(h.id, h.requester, grant);
    uint8_t granted = !grant.empty();
    Bytes done = with_header(h.id, h.requester, &granted, 1);
    f_.send(manager_of(h.id), kLockTryDone, done.data(), done.size());
  });
  f_.set_handler(kLockTryDone, [this](const fabric::Message &m) {
    LockHeader h = header_of(m.data, m.len, m.src);
    on_try_done(h.id, h.requester, m.len > sizeof h && bytes(m)[sizeof h]);
  });
  f_.set_handler(kLockGrant, [this](const fabric::Message &m) {
    LockHeader h = header_of(m.data, m.len, m.src);
    std::lock_guard<std::mutex> g(mu_);
    Local &l = local(h.id);
    l.grant.assign(bytes(m) + sizeof h, bytes(m) + m.len);
    l.granted = true;
  });
  f_.set_handler(kLockBusy, [this](const fabric::Message &m) {
    LockHeader h = header_of(m.data, m.len, m.src);
    std::lock_guard<std::mutex> g(mu_);
    local(h.id).busy = true;
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
  return *obtain(id, request, false);
}

std::optional<Bytes> LockService::try_acquire(int id, const Bytes &request) { return obtain(id, request, true); }

std::optional<Bytes> LockService::obtain(int id, const Bytes &request, bool try_only) {
  {
    std::lock_guard<std::mutex> g(mu_);
    Local &l = local(id);
    if (l.held) already_held(try_only ? "rdsm_trylock" : "rdsm_lock", id);
    if (l.has_token) {
      l.held = true;
      return Bytes{};
    }
    l.granted = l.busy = false;
  }
  Bytes msg = with_header(id, f_.rank(), request.data(), request.size());
  f_.send(manager_of(id), try_only ? kLockTry : kLockRequest, msg.data(), msg.size());
  f_.wait([&] {
    std::lock_guard<std::mutex> g(mu_);
    const Local &l = local(id);
    return l.granted || l.busy;
  });
  std::lock_guard<std::mutex> g(mu_);
  Local &l = local(id);
  if (l.busy) {
    l.busy = false;
    return std::nullopt;
  }
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

void LockService::on_request(const uint8_t *msg, size_t len) {
  LockHeader h = header_of(msg, len, f_.rank());
  int prev;
  {
    std::lock_guard<std::mutex> g(mu_);
    Managed &m = managed_[h.id];
    if (m.deciding) {
      m.held_back.emplace_back(kLockRequest, Bytes(msg, msg + len));
      return;
    }
    prev = m.tail < 0 ? f_.rank() : m.tail;
    m.tail = h.requester;
  }
  const uint8_t *p = msg + sizeof h;
  size_t n = len - sizeof h;
  if (prev == f_.rank())
    on_forward(h.id, h.requester, p, n);
  else
    f_.send(prev, kLockForward, msg, len);
}

void LockService::on_try(const uint8_t *msg, size_t len) {
  LockHeader h = header_of(msg, len, f_.rank());
  Bytes grant;
  int prev;
  {
    std::lock_guard<std::mutex> g(mu_);
    Managed &m = managed_[h.id];
    if (m.deciding) {
      m.held_back.emplace_back(kLockTry, Bytes(msg, msg + len));
      return;
    }
    prev = m.tail < 0 ? f_.rank() : m.tail;
    if (prev == f_.rank()) {
      // The manager is the tail: it decides alone.
      grant = grant_if_free(h.id, h.requester, msg + sizeof h, len - sizeof h);
      if (!grant.empty()) m.tail = h.requester;
    } else if (prev != h.requester) {
      m.deciding = true;
    }
  }
  // A trier that is the tail already asked for the lock and waits for it:
  // busy (with one thread per node, only a misuse comes here).
  if (prev == f_.rank() || prev == h.requester)
    answer_try(h.id, h.requester, grant);
  else
    f_.send(prev, kLockTryForward, msg, len);
}

void LockService::on_try_done(int id, int requester, bool granted) {
  std::deque<std::pair<fabric::MsgType, Bytes>> replay;
  {
    std::lock_guard<std::mutex> g(mu_);
    Managed &m = managed_[id];
    m.deciding = false;
    if (granted) m.tail = requester;
    replay.swap(m.held_back);
  }
  // In their order of arrival; a try among them that must ask the tail
  // holds back the ones after it again.
  for (auto &[type, msg] : replay) {
    if (type == kLockTry)
      on_try(msg.data(), msg.size());
    else
      on_request(msg.data(), msg.size());
  }
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

Bytes LockService::grant_if_free(int id, int requester, const uint8_t *req, size_t len) {
  Local &l = local(id);
  // The tail with the token idle: nobody holds the lock or asked for it
  // since (a later request would have made another node the tail).
  if (!l.has_token || l.held) return {};
  return grant_to(id, l, requester, req, len);
}

void LockService::answer_try(int id, int requester, const Bytes &grant) {
  if (!grant.empty()) {
    f_.send(requester, kLockGrant, grant.data(), grant.size());
    return;
  }
  Bytes busy = with_header(id, requester, nullptr, 0);
  f_.send(requester, kLockBusy, busy.data(), busy.size());
}

Bytes LockService::grant_to(int id, Local &l, int requester, const uint8_t *req, size_t len) {
  Bytes payload = hooks_.make_grant(id, requester, req, len);
  l.has_token = false;
  return with_header(id, requester, payload.data(), payload.size());
}

}  // namespace rdsm::sync
