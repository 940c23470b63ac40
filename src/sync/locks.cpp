// What both kinds of lock share.
#include "sync/locks.hpp"

#include "common/error.hpp"

namespace rdsm::sync {

void already_held(const char *call, int id) {
  api_error(call, "lock %d is already held by this node; locks are not recursive: unlock it first", id);
}

}  // namespace rdsm::sync
