#!/usr/bin/env python3
"""rdsm sim: predicts a job's time under a modelled network from a trace of
the same job on the shm fabric (`rdsm run --trace FILE`).

The trace holds, per node, the compute thread's timeline: the time between
rdsm's events (the program computing) and each event (a fault and the
fetches in it, a release and its diffs, a lock, a barrier, the messages
sent).  The simulator replays every node's timeline with the same compute
times and the same events, each event made longer by what the network
would charge for the operations in it, under the emu fabric's model
(docs/emu.md: host overhead, NI occupancy per packet, wire latency,
bandwidth per NI, interrupt cost).  Synchronisation is played again: a
barrier lets every node go when the last one arrives in the simulation, a
lock passes from holder to holder in the order the trace shows, each
waiting for the previous holder's simulated release.  What it prints: per
node, the measured and predicted time and the predicted breakdown; the
job's predicted time is its slowest node's.

What it models, per operation (h host overhead, L latency, nic(B) =
packets(B) x occupancy + B / bandwidth):
  one-sided fetch of B bytes      h + 2L + nic(0) + nic(B)
  one-sided diffs, P of S bytes   max(P h + nic(S), h + P nic(S)) + L, at the release
  remote atomic (locks, barrier)  h + 2L + nic(0) + nic(8), two per lock, one per barrier
  a message of B bytes            h + L + nic(B + 16) (+ interrupt in interrupt mode),
                                  and for a fault, lock or barrier that waits for
                                  the answer, the answer too (a page for a fault)
What it leaves out: contention at a busy NI or home (every operation is
charged as if the network were idle), the interrupt's cost to the
computing thread of the node that takes it, and changes of order that a
slower network would cause (the trace's lock order is kept).  A trace of
nodes with several compute threads is refused.

Usage: rdsm sim TRACE.json [--emu-preset NAME] [--emu P=V,...] [--handler interrupt|poll]
                           [--until last-barrier|last-event] [--json FILE]

The times are from each node's last statistics reset (rdsm_reset_stats,
where the apps start their clocks) to the program's next reading of its
statistics (rdsm_get_stats, where they stop them), or else to its last
barrier (--until last-event: its last event).

Python 3 standard library only.
"""

import argparse
import bisect
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdsm_emu  # noqa: E402

PAGE = 4096
MSG_HEADER = 16
# Spans of the compute thread that the simulation replays.
BLOCKING = {"read fault", "write fault", "lock", "barrier wait", "barrier protocol", "acquire"}


class SimError(Exception):
    """A trace or setting the simulator cannot use; the message says why."""


def load_trace(path):
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as e:
        raise SimError("cannot read %s: %s" % (path, e.strerror))
    except ValueError as e:
        raise SimError("%s is not a trace (JSON): %s" % (path, e))
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        raise SimError("%s is not an rdsm trace: no traceEvents (write one with rdsm run --trace FILE)" % path)
    return events


class Span:
    __slots__ = ("name", "t0", "t1", "args", "children")

    def __init__(self, name, t0, t1, args):
        self.name, self.t0, self.t1, self.args, self.children = name, t0, t1, args, []


def node_timelines(events, until_barrier=True):
    """{node: [top-level Span, ...]} of each node's compute thread from its
    last statistics reset on (times in ns), with nested spans and message
    sends as children."""
    compute = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name" and (e.get("args") or {}).get("name") == "compute":
            compute.setdefault(e["pid"], set()).add(e["tid"])
    if not compute:
        raise SimError("the trace names no compute thread: it is not from rdsm run --trace")
    many = sorted(p for p, t in compute.items() if len(t) > 1)
    if many:
        raise SimError("node %d has %d compute threads: traces of multi-threaded nodes are not simulated"
                       % (many[0], len(compute[many[0]])))
    tid_of = {p: next(iter(t)) for p, t in compute.items()}
    start, reads = {}, {}
    for e in events:
        if e.get("tid") != tid_of.get(e.get("pid")):
            continue
        if e.get("name") == "statistics reset":
            start[e["pid"]] = max(start.get(e["pid"], 0.0), e["ts"] * 1e3)
        elif e.get("name") == "statistics read":
            reads.setdefault(e["pid"], []).append(e["ts"] * 1e3)
    # Where each node's timed part ends: the program reads its statistics
    # when it stops its clock (the apps do), else its last barrier.
    stop = {n: min((t for t in reads.get(n, []) if t >= start.get(n, 0.0)), default=None) for n in tid_of}
    lines = {}
    for node, tid in tid_of.items():
        spans = []
        for e in events:
            if e.get("pid") != node or e.get("tid") != tid or "ts" not in e:
                continue
            t0 = e["ts"] * 1e3
            if t0 < start.get(node, 0.0) or (stop[node] is not None and t0 >= stop[node]):
                continue
            if e.get("ph") == "X":
                spans.append(Span(e["name"], t0, t0 + e.get("dur", 0.0) * 1e3, e.get("args") or {}))
            elif e.get("ph") == "i" and e.get("name") == "send":
                spans.append(Span("send", t0, t0, e.get("args") or {}))
        # Parents before children: earlier start first, longer first.
        spans.sort(key=lambda s: (s.t0, -(s.t1 - s.t0)))
        top, stack = [], []
        for s in spans:
            while stack and s.t0 >= stack[-1].t1 and not (s.t0 == stack[-1].t1 == stack[-1].t0):
                stack.pop()
            if stack and s.t1 <= stack[-1].t1:
                stack[-1].children.append(s)
            else:
                stack.clear()
                top.append(s)
            if s.name != "send":
                stack.append(s)
        # Without a statistics read, the timed part ends at the last barrier
        # (what follows is a program's check), or at the last event.
        bars = [i for i, s in enumerate(top) if s.name in ("barrier wait", "barrier protocol")]
        last = bars[-1] if bars and until_barrier and stop[node] is None else len(top) - 1
        begin = start.get(node, top[0].t0 if top else 0.0)
        end = stop[node] if stop[node] is not None else (top[last].t1 if top else begin)
        lines[node] = {"start": begin, "spans": top[:last + 1], "last": last, "end": end}
    return lines


class Network:
    """The emu model's charges, in ns, for one network (rdsm_emu's dict)."""

    def __init__(self, params, interrupt_mode):
        self.h = params.get("host_overhead_ns", 0) or 0
        self.occ = params.get("occupancy_ns", 0) or 0
        self.lat = params.get("latency_ns", 0) or 0
        self.bw = params.get("bandwidth_bytes_per_second")
        self.intr = (params.get("interrupt_ns", 0) or 0) if interrupt_mode else 0
        self.packet = params.get("packet_bytes", 4096) or 4096

    def nic(self, nbytes):
        packets = max(1, -(-nbytes // self.packet))
        return packets * self.occ + (nbytes * 1e9 / self.bw if self.bw else 0.0)

    def get(self, nbytes):
        return self.h + 2 * self.lat + self.nic(0) + self.nic(nbytes)

    def puts(self, count, size):
        if count <= 0:
            return 0.0
        return max(count * self.h + self.nic(size), self.h + count * self.nic(size)) + self.lat

    def atomic(self):
        return self.h + 2 * self.lat + self.nic(0) + self.nic(8)

    def message(self, nbytes):
        return self.h + self.lat + self.nic(nbytes + MSG_HEADER) + self.intr


def span_charge(span, net):
    """What the network adds to a span of the compute thread."""
    if span.name == "send":  # one-way, nobody waits: the sender's overhead
        return net.h
    sends = [c for c in span.children if c.name == "send"]
    fetches = [c for c in span.children if c.name == "fetch"]
    charge = 0.0
    if sends:
        # Message-based protocol: each message one way, and the answer to
        # the one a blocking span waits for.
        for s in sends:
            charge += net.message(int(s.args.get("bytes", 0)))
        if span.name in BLOCKING:
            reply = sum(int(f.args.get("pages", 1)) for f in fetches) * PAGE if fetches else 0
            charge += net.message(reply)
        return charge
    for f in fetches:
        charge += net.get(int(f.args.get("pages", 1)) * PAGE)
    if span.name == "fetch":
        charge += net.get(int(span.args.get("pages", 1)) * PAGE)
    elif span.name == "release" or any(c.name == "release" for c in span.children):
        rel = span if span.name == "release" else next(c for c in span.children if c.name == "release")
        n = int(rel.args.get("diffs", 0))
        if n:
            charge += net.puts(n, int(rel.args.get("diff_bytes", 0)) // n)
    if span.name == "lock" and span.args.get("acquired"):
        charge += 2 * net.atomic()
    elif span.name == "barrier wait":
        charge += net.atomic() + net.lat
    return charge


def extrapolate(lines, nodes, comm):
    """Timelines of `nodes` nodes made from those of the traced ones, for a
    program whose work divides evenly among the nodes and that synchronises
    by barriers only.  Node m takes the timeline of traced node m * n //
    nodes (n traced nodes), with its compute time scaled by n / nodes; its
    events keep their number and cost (comm "fixed": each node exchanges
    as much with the others as in the trace, as a nearest-neighbour
    exchange of block boundaries does), or shrink with its share of the
    data (comm "scaled": the pages fetched, the diffs and the events' own
    time scaled by n / nodes, as in an all-to-all exchange such as a
    transpose).  A barrier's wake-up after the last arrival stays as
    traced."""
    traced = sorted(lines)
    n = len(traced)
    if any(s.name == "lock" for t in traced for s in lines[t]["spans"]):
        raise SimError("the trace takes locks: only a program that synchronises by barriers alone can be "
                       "extrapolated to more nodes (the order of its lock holders is not known)")
    f = n / nodes
    fe = f if comm == "scaled" else 1.0

    def scaled_args(sp):
        a = dict(sp.args)
        if comm == "scaled":
            for key in ("pages", "diffs", "diff_bytes"):
                if key in a:
                    a[key] = max(1, int(round(a[key] * f))) if a[key] else 0
        return a

    def copy(sp, origin, base):
        # A span at the same offset from its parent, scaled.
        t0 = base + (sp.t0 - origin) * fe
        c = Span(sp.name, t0, t0 + (sp.t1 - sp.t0) * (fe if sp.name not in ("barrier wait",) else 1.0),
                 scaled_args(sp))
        c.children = [copy(ch, sp.t0, t0) for ch in sp.children]
        return c

    out = {}
    for m in range(nodes):
        src = lines[traced[m * n // nodes]]
        clock, prev = 0.0, src["start"]
        spans = []
        for sp in src["spans"]:
            clock += max(0.0, sp.t0 - prev) * f
            c = copy(sp, sp.t0, clock)
            spans.append(c)
            clock = c.t1
            prev = sp.t1
        tail = max(0.0, src["end"] - prev) * f
        out[m] = {"start": 0.0, "spans": spans, "last": len(spans) - 1, "end": clock + tail}
    return out


def simulate(lines, net):
    """Replays every node's timeline; returns {node: figures}."""
    nodes = sorted(lines)
    # Locks: who holds each lock id after whom, in the trace's order (by
    # the time each acquisition completed), and where each holder
    # releases it (its next release span after the acquisition).
    holds = {}
    for n in nodes:
        spans = lines[n]["spans"]
        release_at = [i for i, s in enumerate(spans) if s.name == "release"
                      or any(c.name == "release" for c in s.children)]
        for i, s in enumerate(spans):
            if s.name == "lock" and s.args.get("acquired"):
                j = bisect.bisect_right(release_at, i)
                holds.setdefault(s.args.get("lock"), []).append((s.t1, n, i, release_at[j] if j < len(release_at) else None))
    order = {}  # (node, span index) -> (lock, position)
    for lock, hs in holds.items():
        hs.sort()
        for pos, (_, n, i, _) in enumerate(hs):
            order[(n, i)] = (lock, pos)
    released = {}  # (lock, position) -> simulated end of the holder's release
    release_of = {(n, r): (lock, pos) for lock, hs in holds.items() for pos, (_, n, _, r) in enumerate(hs)
                  if r is not None}
    # A lock span's uncontended cost: the node's quickest acquisitions.
    base_lock = {}
    for n in nodes:
        d = sorted(s.t1 - s.t0 for s in lines[n]["spans"] if s.name == "lock")
        base_lock[n] = d[len(d) // 10] if d else 0.0
    # Barriers: the k-th barrier wait of every node is one barrier.  A node
    # leaves it, after the last one arrived, as long after as it did in
    # the trace (the barrier's own protocol, and the time a waiting node
    # takes to wake up and run again on this machine).
    barrier_idx = {n: [i for i, s in enumerate(lines[n]["spans"]) if s.name == "barrier wait"] for n in nodes}
    counts = {len(v) for v in barrier_idx.values()}
    if len(counts) > 1:
        raise SimError("the nodes' traces hold different numbers of barriers (%s): events were lost or the trace "
                       "is cut" % ", ".join(str(len(barrier_idx[n])) for n in nodes))
    nbar = counts.pop() if counts else 0
    for k in range(nbar):
        spans = {n: lines[n]["spans"][barrier_idx[n][k]] for n in nodes}
        last = max(s.t0 for s in spans.values())
        for n, s in spans.items():
            s.args.setdefault("leave_after", max(0.0, s.t1 - last))
    # Locks: how long after the previous holder's release an acquisition
    # completed in the trace (the hand-off on this machine), if it waited.
    end_of = {(n, i): s.t1 for n in nodes for i, s in enumerate(lines[n]["spans"])}

    clock = {n: lines[n]["start"] for n in nodes}
    prev_end = {n: lines[n]["start"] for n in nodes}  # measured end of the last replayed span
    pos = {n: 0 for n in nodes}
    fig = {n: {"compute": 0.0, "events": 0.0, "charges": 0.0, "lock_wait": 0.0, "barrier_wait": 0.0} for n in nodes}
    end_sim = {n: lines[n]["start"] for n in nodes}
    arrived = {}  # barrier k -> {node: simulated arrival}
    bar_k = {n: 0 for n in nodes}
    done = set()
    while len(done) < len(nodes):
        progressed = False
        for n in nodes:
            if n in done:
                continue
            spans = lines[n]["spans"]
            while pos[n] < len(spans):
                i = pos[n]
                s = spans[i]
                gap = max(0.0, s.t0 - prev_end[n])
                if s.name == "barrier wait":
                    k = bar_k[n]
                    arr = arrived.setdefault(k, {})
                    if n not in arr:
                        arr[n] = clock[n] + gap
                    if len(arr) < len(nodes):
                        break  # waits for the others
                    leave = max(arr.values()) + s.args["leave_after"] + span_charge(s, net)
                    fig[n]["compute"] += gap
                    fig[n]["barrier_wait"] += leave - arr[n]
                    clock[n] = leave
                    bar_k[n] += 1
                elif s.name == "lock" and (n, i) in order:
                    lock, p = order[(n, i)]
                    if p > 0 and (lock, p - 1) not in released:
                        holder = holds[lock][p - 1]
                        if holder[3] is not None:
                            break  # the previous holder has not released it yet
                    start = clock[n] + gap
                    own = base_lock[n] + span_charge(s, net)
                    ready = start + own
                    if p > 0 and (lock, p - 1) in released:
                        prev = holds[lock][p - 1]
                        handoff = max(0.0, s.t1 - end_of[(prev[1], prev[3])]) if prev[3] is not None else 0.0
                        ready = max(ready, released[(lock, p - 1)] + handoff + net.lat + net.nic(0))
                    fig[n]["compute"] += gap
                    fig[n]["lock_wait"] += ready - start
                    clock[n] = ready
                else:
                    c = span_charge(s, net)
                    fig[n]["compute"] += gap
                    fig[n]["events"] += s.t1 - s.t0
                    fig[n]["charges"] += c
                    clock[n] += gap + (s.t1 - s.t0) + c
                if (n, i) in release_of:
                    released[release_of[(n, i)]] = clock[n]
                if i == lines[n]["last"]:
                    end_sim[n] = clock[n]
                prev_end[n] = s.t1
                pos[n] += 1
                progressed = True
            if pos[n] >= len(spans):
                done.add(n)
        if not progressed and len(done) < len(nodes):
            raise SimError("the replay cannot go on: a lock or barrier waits for a node whose trace ended")
    out = {}
    for n in nodes:
        spans = lines[n]["spans"]
        tail = max(0.0, lines[n]["end"] - (spans[-1].t1 if spans else lines[n]["start"]))
        fig[n]["compute"] += tail
        out[n] = dict(fig[n], measured=lines[n]["end"] - lines[n]["start"],
                      predicted=end_sim[n] + tail - lines[n]["start"])
    return out


def network_from_args(a):
    presets = None
    if a.emu_preset or a.emu:
        launcher = os.environ.get("RDSM_LAUNCHER") or os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "build", "rdsm")
        presets = rdsm_emu.launcher_presets(launcher) or {}
    net = {}
    if a.emu_preset:
        if a.emu_preset not in presets:
            raise SimError("unknown emu preset '%s'; the presets: %s" % (a.emu_preset, ", ".join(presets) or
                                                                      "(rdsm run --help lists none)"))
        net = dict(presets[a.emu_preset])
    if a.emu:
        try:
            net = rdsm_emu.apply_settings(net, rdsm_emu.parse_settings(a.emu))
        except rdsm_emu.BadValue as e:
            raise SimError("--emu %s: %s" % (a.emu, e))
    return net


def main(argv):
    p = argparse.ArgumentParser(prog="rdsm sim", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", help="a trace of the job on the shm fabric (rdsm run --trace FILE)")
    p.add_argument("--emu-preset", help="the network: an emu preset (rdsm run --help lists them)")
    p.add_argument("--emu", help="the network: emu settings, on top of the preset (host_overhead=3us,...)")
    p.add_argument("--handler", choices=["interrupt", "poll"], default="interrupt",
                   help="the handler mode the network's interrupt cost applies to (default interrupt)")
    p.add_argument("--until", choices=["last-barrier", "last-event"], default="last-barrier",
                   help="without a statistics read in the trace, where the timed part ends: at each node's "
                        "last barrier (default), or at its last event")
    p.add_argument("--nodes", type=int, help="predict for this many nodes, more than the trace has, for a program "
                   "whose work divides evenly and that synchronises by barriers alone (docs/emu.md)")
    p.add_argument("--comm", choices=["fixed", "scaled"], default="fixed",
                   help="with --nodes: each node's communication stays as traced (fixed, a nearest-neighbour "
                        "exchange) or shrinks with its share of the data (scaled, an all-to-all exchange)")
    p.add_argument("--json", help="write the figures here")
    a = p.parse_args(argv)
    try:
        net_params = network_from_args(a)
        lines = node_timelines(load_trace(a.trace), a.until == "last-barrier")
        traced = len(lines)
        if a.nodes is not None:
            if a.nodes <= traced:
                raise SimError("--nodes %d: the trace has %d nodes; --nodes predicts for more" % (a.nodes, traced))
            # The barriers' wake-up times come from the trace: computed first.
            traced_time = max(f["measured"] for f in simulate(lines, Network({}, False)).values()) / 1e9
            lines = extrapolate(lines, a.nodes, a.comm)
        figs = simulate(lines, Network(net_params, a.handler == "interrupt"))
    except SimError as e:
        sys.stderr.write("rdsm sim: error: %s\n" % e)
        return 2
    desc = rdsm_emu.describe(net_params) if net_params else "no network costs (the shm fabric's own)"
    extra = "" if a.nodes is None else ", extrapolated from the trace's %d (communication %s)" % (traced, a.comm)
    print("rdsm sim: %s, %d nodes%s, network %s" % (os.path.basename(a.trace), len(figs), extra, desc))
    print("node  measured(s)  predicted(s)  compute  events  charges  lock wait  barrier wait")
    for n in sorted(figs):
        f = figs[n]
        print("%-4d  %11s  %12.4f  %7.4f  %6.4f  %7.4f  %9.4f  %12.4f" % (
            n, "-" if a.nodes is not None else "%.4f" % (f["measured"] / 1e9), f["predicted"] / 1e9,
            f["compute"] / 1e9, f["events"] / 1e9, f["charges"] / 1e9, f["lock_wait"] / 1e9, f["barrier_wait"] / 1e9))
    predicted = max(f["predicted"] for f in figs.values()) / 1e9
    if a.nodes is None:
        measured = max(f["measured"] for f in figs.values()) / 1e9
        print("job   %11.4f  %12.4f   (predicted / measured on shm: %.2f)" % (measured, predicted,
                                                                              predicted / measured if measured else 0))
    else:
        measured = None
        print("job   %11s  %12.4f   (the trace's %d nodes measured %.4f s: %.2f times as long)" % (
            "-", predicted, traced, traced_time, traced_time / predicted if predicted else 0))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump({"trace": a.trace, "network": net_params, "handler": a.handler,
                       "nodes_traced": traced, "nodes_predicted": len(figs), "comm": a.comm if a.nodes else None,
                       "measured_seconds": measured, "predicted_seconds": predicted,
                       "nodes": {str(n): {k: v / 1e9 for k, v in f.items()} for n, f in figs.items()}}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
