// Locks through a manager, TreadMarks style.
//
// Each lock has a manager node (id mod nodes).  The manager only remembers
// the last requester ("tail"); a request is forwarded to the previous tail,
// which grants the lock when it releases it (or at once if it holds the
// token but not the lock).  The grant message carries a payload built by the
// releaser for the requester (the protocol puts its write notices there), so
// a lock transfer costs at most three messages and a re-acquire by the last
// holder costs none.
//
// A try goes the same way, but the tail answers at once: if it holds the
// token idle (the lock is free: nobody holds it or asked for it after the
// tail), it grants it to the trier just as it would a request; otherwise it
// answers busy, and the queue stays as it was.  Either way it tells the
// manager, which makes the trier the tail only on a grant.  Until it hears,
// the manager holds back the other requests and tries for that lock, so
// every request is forwarded to the tail that really follows it.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fabric/fabric.hpp"
#include "sync/locks.hpp"

namespace rdsm::sync {

struct LockHooks {
  // Builds the grant payload of lock `id` for `requester`, whose request
  // carried `request`.  Called on the granting node (from a handler or from
  // release).
  std::function<Bytes(int id, int requester, const uint8_t *request, size_t len)> make_grant;
};

class LockService final : public Locks {
 public:
  LockService(fabric::Fabric &f, int lock_count, LockHooks hooks);
  int lock_count() const override { return count_; }
  int manager_of(int id) const { return id % f_.nodes(); }
  // Blocks until this node holds the lock.  Returns the grant payload; empty
  // when the token was already here (no other node held it since).
  Bytes acquire(int id, const Bytes &request, const std::function<void()> &while_waiting) override;
  // Free here (the token idle at this node): taken without a message;
  // otherwise the manager and the tail decide (above).
  std::optional<Bytes> try_acquire(int id, const Bytes &request) override;
  // Manager locks keep nothing with the lock: the grant is built by hooks.
  void release(int id, const Bytes &kept) override;
  bool held(int id) override;

 private:
  struct Local {
    bool has_token = false;
    bool held = false;
    bool granted = false;
    bool busy = false;  // a try of this node was answered busy
    int waiter = -1;
    Bytes waiter_request;
    Bytes grant;
  };
  // What the manager knows of a lock it manages.
  struct Managed {
    int tail = -1;          // the last requester; -1: none yet (the token is at the manager)
    bool deciding = false;  // a try was forwarded to the tail, whose answer is awaited
    // Requests and tries that came while deciding: their type and message.
    std::deque<std::pair<fabric::MsgType, Bytes>> held_back;
  };
  Local &local(int id);  // with mu_ held
  // Lock (try_only false) or try (true): the path both share.
  std::optional<Bytes> obtain(int id, const Bytes &request, bool try_only);
  // At the manager: a request / a try, as the message that carried it.
  void on_request(const uint8_t *msg, size_t len);
  void on_try(const uint8_t *msg, size_t len);
  // At the manager: the tail answered a try (granted or not).
  void on_try_done(int id, int requester, bool granted);
  void on_forward(int id, int requester, const uint8_t *req, size_t len);
  // At the tail, with mu_ held: grants the lock to a trier if it is free
  // here.  Returns the message to send the trier (outside mu_): a grant,
  // or empty for busy.
  Bytes grant_if_free(int id, int requester, const uint8_t *req, size_t len);
  // Sends the trier its grant, or busy when `grant` is empty.
  void answer_try(int id, int requester, const Bytes &grant);
  // Gives up the token; returns the grant message to send (outside mu_).
  Bytes grant_to(int id, Local &l, int requester, const uint8_t *req, size_t len);

  fabric::Fabric &f_;
  int count_;
  LockHooks hooks_;
  std::mutex mu_;
  std::unordered_map<int, Local> locals_;
  std::unordered_map<int, Managed> managed_;  // at the manager: the locks it manages
};

}  // namespace rdsm::sync
