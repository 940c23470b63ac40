#include "sync/barrier_service.hpp"

#include <cstring>

#include "common/error.hpp"
#include "sync/msg_types.hpp"

namespace rdsm::sync {

namespace {
constexpr int kManager = 0;
}

BarrierService::BarrierService(fabric::Fabric &f, BarrierHooks hooks) : f_(f), hooks_(std::move(hooks)) {
  arrivals_.resize(f_.nodes());
  f_.set_handler(kBarrierArrive, [this](const fabric::Message &m) { on_arrive(m); });
  f_.set_handler(kBarrierDepart, [this](const fabric::Message &m) { on_depart(m); });
}

Bytes BarrierService::wait(const Bytes &arrival, const std::function<void()> &) {
  {
    std::lock_guard<std::mutex> g(mu_);
    departed_ = false;
  }
  f_.send(kManager, kBarrierArrive, arrival.data(), arrival.size());
  f_.wait([&] {
    std::lock_guard<std::mutex> g(mu_);
    return departed_;
  });
  std::lock_guard<std::mutex> g(mu_);
  departed_ = false;
  ++epoch_;
  return std::move(departure_);
}

void BarrierService::on_arrive(const fabric::Message &m) {
  Bytes merged;
  {
    std::lock_guard<std::mutex> g(mu_);
    const uint8_t *p = static_cast<const uint8_t *>(m.data);
    arrivals_[m.src].assign(p, p + m.len);
    if (++arrived_ < f_.nodes()) return;
    arrived_ = 0;
    merged = hooks_.merge(arrivals_);
    for (auto &a : arrivals_) a.clear();
  }
  for (int n = 0; n < f_.nodes(); ++n) f_.send(n, kBarrierDepart, merged.data(), merged.size());
}

void BarrierService::on_depart(const fabric::Message &m) {
  std::lock_guard<std::mutex> g(mu_);
  if (departed_) fatal("internal error: barrier departure before the previous one was taken");
  const uint8_t *p = static_cast<const uint8_t *>(m.data);
  departure_.assign(p, p + m.len);
  departed_ = true;
}

}  // namespace rdsm::sync
