// Message types of the sync layer (the protocol layer uses 16 and up).
#pragma once
#include "fabric/fabric.hpp"

namespace rdsm::sync {
constexpr fabric::MsgType kLockRequest = 1;
constexpr fabric::MsgType kLockForward = 2;
constexpr fabric::MsgType kLockGrant = 3;
constexpr fabric::MsgType kBarrierArrive = 4;
constexpr fabric::MsgType kBarrierDepart = 5;
}  // namespace rdsm::sync
