// The default batch: the operations one after the other, each a round trip
// of its own (a transport that cannot overlap them loses nothing else).
#include "fabric/fabric.hpp"

namespace rdsm::fabric {

void Fabric::batch(NodeId node, BatchOp *ops, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    BatchOp &o = ops[i];
    if (o.kind == BatchOp::get) {
      get(node, o.seg, o.off, o.into, o.n);
    } else {
      uint64_t was = fetch_add(node, o.seg, o.off, o.value);
      if (o.old) *o.old = was;
    }
  }
}

}  // namespace rdsm::fabric
