// Message types of the sync layer (the protocol layer uses 16 and up).
#pragma once
#include "fabric/fabric.hpp"

namespace rdsm::sync {
constexpr fabric::MsgType kLockRequest = 1;
constexpr fabric::MsgType kLockForward = 2;
constexpr fabric::MsgType kLockGrant = 3;
constexpr fabric::MsgType kBarrierArrive = 4;
constexpr fabric::MsgType kBarrierDepart = 5;
constexpr fabric::MsgType kLockTry = 6;         // trier -> manager
constexpr fabric::MsgType kLockTryForward = 7;  // manager -> tail
constexpr fabric::MsgType kLockBusy = 8;        // tail -> trier (a grant is kLockGrant)
constexpr fabric::MsgType kLockTryDone = 9;     // tail -> manager
}  // namespace rdsm::sync
