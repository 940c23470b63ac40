// Message types of the protocol layer (the sync layer uses 1..15).
#pragma once
#include "fabric/fabric.hpp"

namespace rdsm::msg {
constexpr fabric::MsgType kFetchRequest = 16;
constexpr fabric::MsgType kFetchReply = 17;
constexpr fabric::MsgType kDiff = 18;
constexpr fabric::MsgType kDiffAck = 19;
constexpr fabric::MsgType kHomeQuery = 20;
constexpr fabric::MsgType kHomeReply = 21;
constexpr fabric::MsgType kNoticeQuery = 22;
constexpr fabric::MsgType kNoticeReply = 23;
constexpr fabric::MsgType kHomesMoved = 24;  // to itself: serve fetches that waited for a migration
constexpr fabric::MsgType kUncount = 25;     // copies dropped, counted out by the home (fetch=message)
}  // namespace rdsm::msg
