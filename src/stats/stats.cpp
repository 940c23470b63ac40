#include "stats/stats.hpp"

#include "stats/trace.hpp"

namespace rdsm {

Stats &stats() {
  static Stats s;
  return s;
}

void Stats::reset() {
  for (Counter *c : {&data_wait_ns, &lock_wait_ns, &barrier_wait_ns, &barrier_protocol_ns, &handler_ns,
                     &read_faults, &write_faults, &pages_fetched, &twins, &diffs, &diff_bytes,
                     &messages_sent, &message_bytes, &one_sided_ops, &invalidations, &lock_acquires,
                     &barriers, &diff_ops, &migrations, &prefetched, &prefetch_used, &prefetch_wasted,
                     &refreshed, &write_ahead, &write_ahead_unused, &diffs_claimed, &diffs_withheld, &withheld_unmoved,
                     &emu_host_overhead_ns, &emu_occupancy_ns,
                     &emu_bandwidth_ns, &emu_latency_ns, &emu_ni_wait_ns, &emu_interrupt_ns, &emu_waited_ns})
    c->store(0, std::memory_order_relaxed);
  for (Counter &c : handler_ns_by_type) c.store(0, std::memory_order_relaxed);
  uint64_t t = now_ns();
  start_ns.store(t, std::memory_order_relaxed);
  thread_stats_reset();
  trace::record(trace::Kind::stats_reset, t, t);  // the trace's counts start again here too
}

rdsm_stats Stats::snapshot_at(uint64_t now) const {
  auto ld = [](const Counter &c) { return c.load(std::memory_order_relaxed); };
  rdsm_stats s{};
  const uint64_t start = start_ns.load(std::memory_order_relaxed);
  s.total = ns_to_s(now - start);
  s.data_wait = ns_to_s(ld(data_wait_ns));
  s.lock_wait = ns_to_s(ld(lock_wait_ns));
  s.barrier_wait = ns_to_s(ld(barrier_wait_ns));
  s.barrier_protocol = ns_to_s(ld(barrier_protocol_ns));
  double busy = s.data_wait + s.lock_wait + s.barrier_wait + s.barrier_protocol;
  s.compute = s.total > busy ? s.total - busy : 0.0;
  if (thread_stats_active()) {
    // Several compute threads: the node's times are its threads' rows added
    // up, taken from the rows themselves.  The node's own wait counters can
    // differ by a wait another thread added while a reset was zeroing the
    // node's counters and then the rows (a reset does not stop the others).
    ThreadStatsRow sum{};
    for (const ThreadStatsRow &r : thread_stats_snapshot(start, now)) thread_row_accumulate(sum, r);
    s.total = sum.total;
    s.compute = sum.compute;
    s.data_wait = sum.data_wait;
    s.lock_wait = sum.lock_wait;
    s.barrier_wait = sum.barrier_wait;
    s.barrier_protocol = sum.barrier_protocol;
  }
  s.handler = ns_to_s(ld(handler_ns));
  for (int t = 0; t < kStatsMsgTypes; ++t) {
    double v = ns_to_s(ld(handler_ns_by_type[t]));
    switch ((HandlerWork)work_of_type[t].load(std::memory_order_relaxed)) {
      case HandlerWork::page: s.handler_page += v; break;
      case HandlerWork::diff: s.handler_diff += v; break;
      default: s.handler_sync += v; break;
    }
  }
  s.read_faults = ld(read_faults);
  s.write_faults = ld(write_faults);
  s.pages_fetched = ld(pages_fetched);
  s.twins = ld(twins);
  s.diffs = ld(diffs);
  s.diff_bytes = ld(diff_bytes);
  s.messages_sent = ld(messages_sent);
  s.message_bytes = ld(message_bytes);
  s.one_sided_ops = ld(one_sided_ops);
  s.invalidations = ld(invalidations);
  s.lock_acquires = ld(lock_acquires);
  s.barriers = ld(barriers);
  s.diff_ops = ld(diff_ops);
  s.migrations = ld(migrations);
  s.prefetched = ld(prefetched);
  s.prefetch_used = ld(prefetch_used);
  s.prefetch_wasted = ld(prefetch_wasted);
  s.refreshed = ld(refreshed);
  s.written_ahead = ld(write_ahead);
  s.written_ahead_unused = ld(write_ahead_unused);
  s.diffs_claimed = ld(diffs_claimed);
  s.diffs_withheld = ld(diffs_withheld);
  s.withheld_unmoved = ld(withheld_unmoved);
  s.emu_host_overhead = ns_to_s(ld(emu_host_overhead_ns));
  s.emu_occupancy = ns_to_s(ld(emu_occupancy_ns));
  s.emu_bandwidth = ns_to_s(ld(emu_bandwidth_ns));
  s.emu_latency = ns_to_s(ld(emu_latency_ns));
  s.emu_ni_wait = ns_to_s(ld(emu_ni_wait_ns));
  s.emu_interrupt = ns_to_s(ld(emu_interrupt_ns));
  s.emu_waited = ns_to_s(ld(emu_waited_ns));
  return s;
}

void stats_accumulate(rdsm_stats &into, const rdsm_stats &s) {
  for (double rdsm_stats::*f : {&rdsm_stats::total, &rdsm_stats::compute, &rdsm_stats::data_wait,
                                &rdsm_stats::lock_wait, &rdsm_stats::barrier_wait, &rdsm_stats::barrier_protocol,
                                &rdsm_stats::handler, &rdsm_stats::handler_page, &rdsm_stats::handler_diff,
                                &rdsm_stats::handler_sync, &rdsm_stats::emu_host_overhead,
                                &rdsm_stats::emu_occupancy, &rdsm_stats::emu_bandwidth, &rdsm_stats::emu_latency,
                                &rdsm_stats::emu_ni_wait, &rdsm_stats::emu_interrupt, &rdsm_stats::emu_waited})
    into.*f += s.*f;
  for (uint64_t rdsm_stats::*f :
       {&rdsm_stats::read_faults, &rdsm_stats::write_faults, &rdsm_stats::pages_fetched, &rdsm_stats::twins,
        &rdsm_stats::diffs, &rdsm_stats::diff_bytes, &rdsm_stats::messages_sent, &rdsm_stats::message_bytes,
        &rdsm_stats::one_sided_ops, &rdsm_stats::invalidations, &rdsm_stats::lock_acquires, &rdsm_stats::barriers,
        &rdsm_stats::diff_ops, &rdsm_stats::migrations, &rdsm_stats::prefetched, &rdsm_stats::prefetch_used,
        &rdsm_stats::prefetch_wasted, &rdsm_stats::refreshed, &rdsm_stats::written_ahead,
        &rdsm_stats::written_ahead_unused, &rdsm_stats::diffs_claimed, &rdsm_stats::diffs_withheld,
        &rdsm_stats::withheld_unmoved})
    into.*f += s.*f;
}

}  // namespace rdsm
