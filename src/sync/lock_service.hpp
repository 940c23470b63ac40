// Locks through a manager, TreadMarks style.
//
// Each lock has a manager node (id mod nodes).  The manager only remembers
// the last requester ("tail"); a request is forwarded to the previous tail,
// which grants the lock when it releases it (or at once if it holds the
// token but not the lock).  The grant message carries a payload built by the
// releaser for the requester (the protocol puts its write notices there), so
// a lock transfer costs at most three messages and a re-acquire by the last
// holder costs none.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "fabric/fabric.hpp"
#include "sync/locks.hpp"

namespace rdsm::sync {

struct LockHooks {
  // Builds the grant payload for `requester`, whose request carried
  // `request`.  Called on the granting node (from a handler or from release).
  std::function<Bytes(int requester, const uint8_t *request, size_t len)> make_grant;
};

class LockService final : public Locks {
 public:
  LockService(fabric::Fabric &f, int lock_count, LockHooks hooks);
  int lock_count() const override { return count_; }
  int manager_of(int id) const { return id % f_.nodes(); }
  // Blocks until this node holds the lock.  Returns the grant payload; empty
  // when the token was already here (no other node held it since).
  Bytes acquire(int id, const Bytes &request, const std::function<void()> &while_waiting) override;
  // Manager locks keep nothing with the lock: the grant is built by hooks.
  void release(int id, const Bytes &kept) override;
  bool held(int id) override;

 private:
  struct Local {
    bool has_token = false;
    bool held = false;
    bool granted = false;
    int waiter = -1;
    Bytes waiter_request;
    Bytes grant;
  };
  Local &local(int id);  // with mu_ held
  void on_request(const fabric::Message &m);
  void on_forward(int id, int requester, const uint8_t *req, size_t len);
  // Gives up the token; returns the grant message to send (outside mu_).
  Bytes grant_to(int id, Local &l, int requester, const uint8_t *req, size_t len);

  fabric::Fabric &f_;
  int count_;
  LockHooks hooks_;
  std::mutex mu_;
  std::unordered_map<int, Local> locals_;
  std::unordered_map<int, int> tail_;  // at the manager: last requester of each lock it manages
};

}  // namespace rdsm::sync
