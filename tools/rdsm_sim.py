#!/usr/bin/env python3
"""rdsm sim: predicts a job's time under a modelled network from a trace of
the same job on the shm fabric (`rdsm run --trace FILE`).

The trace holds, per node, the compute thread's timeline: the time between
rdsm's events (the program computing) and each event (a fault and the
fetches in it, a release and its diffs, a lock, a barrier, the messages
sent), the faults the memory backend's fault service thread resolves for
it included (those whose messages or waits cannot run in a signal
handler: a message-based fetch in poll mode, sc, the mpi fabric).  The
simulator replays every node's timeline with the same compute
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
  a batch of K reads and atomics  K h + 2L + nic(0) + nic(B), B the bytes they bring back
  a message of B bytes            h + L + nic(B + 16) (+ interrupt in interrupt mode),
                                  and for a fault, lock or barrier that waits for
                                  the answer, the answer too (a page for a fault),
                                  after every message between (sc's three hops:
                                  the manager's order to the owner, then the page)
Each node's NI is one queue that a transfer holds at its sending and at its
receiving node (class Nics), as the emu fabric's.  What it leaves out:
contention at a busy home or handler, the interrupt's cost to the computing
thread of the node that takes it, the host's own delivery costs beyond those
the trace shows (under the emu fabric on a 2-core VM, waking a handler
thread took 2 to 3 times as long as in the traced shm run: docs/emu.md),
and changes of order that a slower network would cause (the trace's lock
order is kept).  A trace of nodes with several compute threads is refused.

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
import heapq
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdsm_emu  # noqa: E402

PAGE = 4096
MSG_HEADER = 16
# Spans of the compute thread that the simulation replays.
BLOCKING = {"read fault", "write fault", "lock", "barrier wait", "barrier protocol", "acquire"}
FAULTS = {"read fault", "write fault"}  # their posted writes (log entries of first copies) are flushed later
# The trace says its fabric recorded every one-sided operation ("ops"
# records): a node with none made none.  Older traces, and traces on the
# mpi fabric, do not: their events are charged as a whole.
OPS_RECORDED = "operations recorded"


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
    if (doc.get("otherData") or {}).get("operations") == "recorded":
        # Said once for the whole trace; kept with the events (a record of
        # the loader's, not of the file) so that node_timelines sees it.
        events = events + [{"ph": "rdsm", "name": OPS_RECORDED}]
    return events


class Span:
    __slots__ = ("name", "t0", "t1", "args", "children")

    def __init__(self, name, t0, t1, args):
        self.name, self.t0, self.t1, self.args, self.children = name, t0, t1, args, []


def node_timelines(events, until_barrier=True):
    """{node: [top-level Span, ...]} of each node's compute thread from its
    last statistics reset on (times in ns), with nested spans and message
    sends as children."""
    compute, service = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            name = (e.get("args") or {}).get("name")
            if name == "compute":
                compute.setdefault(e["pid"], set()).add(e["tid"])
            elif name == "fault service":
                service.setdefault(e["pid"], set()).add(e["tid"])
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
    answers = message_answers(events)
    ops_recorded = any(e.get("ph") == "rdsm" and e.get("name") == OPS_RECORDED for e in events)
    lines = {}
    for node, tid in tid_of.items():
        # The faults that the memory backend's service thread resolves for
        # the compute thread (every fault whose messages and waits are not
        # safe in a signal handler: a message-based fetch in poll mode, the
        # sc protocol, the mpi fabric) block the compute thread as its own
        # would: they are part of its timeline.
        mine = {tid} | service.get(node, set())
        spans = []
        for e in events:
            if e.get("pid") != node or e.get("tid") not in mine or "ts" not in e:
                continue
            t0 = e["ts"] * 1e3
            if t0 < start.get(node, 0.0) or (stop[node] is not None and t0 >= stop[node]):
                continue
            if e.get("ph") == "X":
                spans.append(Span(e["name"], t0, t0 + e.get("dur", 0.0) * 1e3, e.get("args") or {}))
            elif e.get("ph") == "i" and e.get("name") in ("send", "ops"):
                args = dict(e.get("args") or {})
                if e["name"] == "send" and (node, e["tid"], e["ts"]) in answers:
                    args["answers"] = answers[(node, e["tid"], e["ts"])]
                spans.append(Span(e["name"], t0, t0, args))
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
            if s.name not in ("send", "ops"):
                stack.append(s)
        # Without a statistics read, the timed part ends at the last barrier
        # (what follows is a program's check), or at the last event.
        bars = [i for i, s in enumerate(top) if s.name in ("barrier wait", "barrier protocol")]
        last = bars[-1] if bars and until_barrier and stop[node] is None else len(top) - 1
        begin = start.get(node, top[0].t0 if top else 0.0)
        end = stop[node] if stop[node] is not None else (top[last].t1 if top else begin)
        lines[node] = {"start": begin, "spans": top[:last + 1], "last": last, "end": end, "ops_recorded": ops_recorded}
    return lines


def message_answers(events):
    """{(node, thread, ts) of a send: [(ns, [(from, to, bytes), ...]), ...]}:
    for each message, the answers to it that came back to the sender's node,
    and when that node took each: a chain of the messages after the first
    one, each sent by the handler run that took the one before.  An answer
    is the message that run sent back (a page, a lock grant, an
    acknowledgement: two messages in all), or one a third node sent on the
    order of a message that run sent (sc's manager ordering the owner to
    send the page, a reader's word that its copy is gone: three).  The trace
    links each message's send to the handler run that took it (its flow
    events)."""
    flow_s, flow_f = {}, {}
    for e in events:
        if e.get("name") == "message" and "id" in e:
            (flow_s if e.get("ph") == "s" else flow_f)[e["id"]] = (e.get("pid"), e.get("tid"), e.get("ts"))
    handler_end = {(e.get("pid"), e.get("tid"), e.get("ts")): (e["ts"] + e.get("dur", 0.0), e.get("args") or {})
                   for e in events if e.get("ph") == "X" and e.get("name") == "handler"}
    sends = {}  # (node, thread) -> sorted [(ts, id)]
    for fid, (pid, tid, ts) in flow_s.items():
        sends.setdefault((pid, tid), []).append((ts, fid))
    for v in sends.values():
        v.sort()

    def sent_by_handler(fid):
        """The messages sent by the handler run that took message fid: [(id, to, bytes, taken)]."""
        took = flow_f.get(fid)
        if not took or took not in handler_end:
            return []
        end, _ = handler_end[took]
        peer_sends = sends.get((took[0], took[1]), [])
        out = []
        for t, rid in peer_sends[bisect.bisect_left(peer_sends, (took[2], "")):]:
            if t > end:
                break
            back = flow_f.get(rid)
            if back and back in handler_end:
                out.append((rid, back[0], int(handler_end[back][1].get("bytes", 0)), back))
        return out

    out = {}
    for fid, (pid, tid, ts) in flow_s.items():
        took = flow_f.get(fid)
        if not took:
            continue
        found = []
        for rid, to, nbytes, back in sent_by_handler(fid):
            if to == pid:
                found.append((back[2] * 1e3, [(took[0], pid, nbytes)]))
                continue
            for rid2, to2, nbytes2, back2 in sent_by_handler(rid):
                if to2 == pid:
                    found.append((back2[2] * 1e3, [(took[0], to, nbytes), (to, pid, nbytes2)]))
        if found:
            out[(pid, tid, ts)] = found
    return out


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
    data (comm "scaled", as in an all-to-all exchange such as a
    transpose): n / nodes of its faults are kept, each as traced, and the
    other events' diffs, operations, bytes and own time are scaled by
    n / nodes.  A barrier's wake-up after the last arrival stays as
    traced."""
    traced = sorted(lines)
    n = len(traced)
    if any(s.name == "lock" for t in traced for s in lines[t]["spans"]):
        raise SimError("the trace takes locks: only a program that synchronises by barriers alone can be "
                       "extrapolated to more nodes (the order of its lock holders is not known)")
    f = n / nodes
    fe = f if comm == "scaled" else 1.0

    def scaled_args(sp, m, t, shrink):
        a = dict(sp.args)
        def peer(p):
            # The peer at the same distance, in the larger job: traced node
            # t's peer p becomes node m + (p - t) M / n, so that every node
            # talks to its own peers and no NI takes the whole job's traffic.
            return (m + (int(p) - t) * nodes // n) % nodes
        if sp.name in ("ops", "send") and "to" in a:
            a["to"] = peer(a["to"])
        if "answers" in a:
            a["answers"] = [(at, [(peer(src), peer(dst), nbytes) for src, dst, nbytes in chain])
                            for at, chain in a["answers"]]
        if shrink:
            for key in ("pages", "diffs", "diff_bytes") + (("count", "bytes") if sp.name == "ops" else ()):
                if key in a:
                    a[key] = max(1, int(round(a[key] * f))) if a[key] else 0
        return a

    def copy(sp, origin, base, m, t, scale):
        # A span at the same offset from its parent, its time and (scale <
        # 1) what it moves scaled.
        t0 = base + (sp.t0 - origin) * scale
        c = Span(sp.name, t0, t0 + (sp.t1 - sp.t0) * (scale if sp.name not in ("barrier wait",) else 1.0),
                 scaled_args(sp, m, t, scale < 1.0))
        c.children = [copy(ch, sp.t0, t0, m, t, scale) for ch in sp.children]
        return c

    out = {}
    for m in range(nodes):
        t = m * n // nodes
        src = lines[traced[t]]
        clock, prev = 0.0, src["start"]
        spans = []
        share = 0.0  # comm "scaled": the faults owed so far, n / nodes of those traced
        for sp in src["spans"]:
            clock += max(0.0, sp.t0 - prev) * f
            scale = fe
            if comm == "scaled" and sp.name in ("read fault", "write fault"):
                share += f
                if share < 1.0:
                    prev = sp.t1
                    continue
                share -= 1.0
                scale = 1.0
            c = copy(sp, sp.t0, clock, m, t, scale)
            spans.append(c)
            clock = c.t1
            prev = sp.t1
        tail = max(0.0, src["end"] - prev) * f
        out[m] = {"start": 0.0, "spans": spans, "last": len(spans) - 1, "end": clock + tail,
                  "ops_recorded": src.get("ops_recorded", False)}
    return out


def descendants(span):
    """The span and every span nested in it, at any depth."""
    out, todo = [], [span]
    while todo:
        s = todo.pop()
        out.append(s)
        todo.extend(s.children)
    return out


def operation_groups(span):
    """The span's one-sided operation records and message sends, at any
    depth, in time order, each with whether a handler run nested in the
    span sent it (a node that waits in poll mode runs its handlers, and
    they answer other nodes' requests): [(Span, from_handler)]."""
    out, todo = [], [(span, False)]
    while todo:
        s, in_handler = todo.pop()
        if s.name in ("ops", "send"):
            out.append((s, in_handler and s.name == "send"))
        todo.extend((c, in_handler or s.name == "handler") for c in s.children)
    return sorted(out, key=lambda g: g[0].t0)


class Nics:
    """Every node's NI as the emu fabric serialises it: a transfer claims the
    sending NI and then, cut-through, the receiving one; a claim waits for
    the NI's previous claim to end, in the order the operations are issued
    (the replay issues them in the order of their simulated times)."""

    def __init__(self, net):
        self.net = net
        self.free = {}
        self.idle = not net.occ and not net.bw  # free NIs: a transfer costs the latency alone

    def claim(self, node, ready, busy):
        start = max(ready, self.free.get(node, 0.0))
        self.free[node] = start + busy
        return start

    def transfer(self, src, dst, nbytes, ready):
        """When `nbytes` sent from src at `ready` have arrived at dst."""
        if self.idle:
            return ready + self.net.lat
        busy = self.net.nic(nbytes)
        out = self.claim(src, ready, busy)
        return self.claim(dst, out + self.net.lat, busy) + busy

    def ops(self, me, op, peer, count, nbytes, t, flushed=True):
        """Replays `count` one-sided operations of one class to one peer,
        issued from `t`, each after the previous one; returns when the last
        has completed (posted writes: when the last has arrived, as at the
        flush that follows the writes of a release, or, with `flushed`
        false, when the last has been posted: a fault's writes, its log
        entries of first copies, are not waited for)."""
        if op == "batch":  # one record per batch: each operation posted, then one round trip
            t += count * self.net.h
            return self.transfer(peer, me, nbytes, self.transfer(me, peer, 0, t))
        each = nbytes // count if count else 0
        last = t
        for _ in range(count):
            t += self.net.h
            if op == "put":
                arrival = self.transfer(me, peer, each, t)
                last = arrival if flushed else t
            else:
                t = self.transfer(peer, me, each, self.transfer(me, peer, 0, t))
                last = t
        return max(t, last)


def simulate(lines, net):
    """Replays every node's timeline; returns {node: figures}.

    Each node's replay runs as a generator that stops before every group of
    one-sided operations (and at barriers and locks); the scheduler always
    resumes the node whose simulated clock is earliest, so the nodes' claims
    on the NIs come in simulated time order, as their operations would
    reach a busy NI.  A trace without operation records (written before
    they were recorded, or on the mpi fabric) is charged per event by
    span_charge, with no NI queueing."""
    nodes = sorted(lines)
    with_ops = any(lines[n].get("ops_recorded") for n in nodes) or any(
        c.name == "ops" for n in nodes for s in lines[n]["spans"] for c in descendants(s))
    nics = Nics(net)
    # Locks: who holds each lock id after whom, in the trace's order (by
    # the time each acquisition completed), and where each holder
    # releases it (its next release span after the acquisition).
    holds = {}
    for n in nodes:
        spans = lines[n]["spans"]
        # The holder hands the lock on at the end of its unlock of that lock
        # (traces before unlocks were recorded: its next release).
        unlocks = {}
        for i, s in enumerate(spans):
            if s.name == "unlock":
                unlocks.setdefault(s.args.get("lock"), []).append(i)
        release_at = [i for i, s in enumerate(spans) if s.name == "release"
                      or any(c.name == "release" for c in s.children)]
        for i, s in enumerate(spans):
            if s.name == "lock" and s.args.get("acquired"):
                at = unlocks.get(s.args.get("lock"), []) if unlocks else release_at
                j = bisect.bisect_right(at, i)
                holds.setdefault(s.args.get("lock"), []).append((s.t1, n, i, at[j] if j < len(at) else None))
    order = {}  # (node, span index) -> (lock, position)
    for lock, hs in holds.items():
        hs.sort()
        for pos, (_, n, i, _) in enumerate(hs):
            order[(n, i)] = (lock, pos)
    released = {}  # (lock, position) -> simulated end of the holder's release
    release_of = {(n, r): (lock, pos) for lock, hs in holds.items() for pos, (_, n, _, r) in enumerate(hs)
                  if r is not None}
    # A lock span's uncontended cost: the node's quickest acquisitions, and
    # the atomic operations of one (those of a quick one: more are spins on
    # a held lock).
    base_lock, lock_atomics = {}, {}
    for n in nodes:
        d = sorted(s.t1 - s.t0 for s in lines[n]["spans"] if s.name == "lock")
        base_lock[n] = d[len(d) // 10] if d else 0.0
        a = sorted(x for x in (sum(int(c.args.get("count", 0)) for c in descendants(s) if c.name == "ops" and
                                   c.args.get("op") == "atomic")
                               for s in lines[n]["spans"] if s.name == "lock" and s.args.get("acquired")) if x)
        lock_atomics[n] = a[len(a) // 10] if a else 0  # of the locks held elsewhere (others cost none)
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

    fig = {n: {"compute": 0.0, "events": 0.0, "charges": 0.0, "lock_wait": 0.0, "barrier_wait": 0.0} for n in nodes}
    end_sim = {n: lines[n]["start"] for n in nodes}

    def timed_span(n, s, clock, local=None, atomics=None):
        """Replays a span that is not a barrier wait from `clock`: its own
        time (`local`, else as traced) and its operations, each group
        issued as far into the span as in the trace (at once, for a lock
        replayed from its hand-off), at most `atomics` round trips of the
        atomic class (a lock's acquisition: the spinning on a held lock is
        the wait, not its cost); yields before each group; returns its end
        and what the network added."""
        local = s.t1 - s.t0 if local is None else local
        if not with_ops:
            c = span_charge(s, net)
            return clock + local + c, c
        extra = 0.0
        waits = []  # (arrival, [answer chain, ...]) of each message sent
        for g, from_handler in operation_groups(s):
            issue = clock + extra + (g.t0 - s.t0 if atomics is None else 0.0)
            if from_handler:
                # An answer a handler run sent from within this span: the
                # sender's overhead here; its flight is the asker's to wait
                # for (charged where the asker's span waits for it).
                yield issue
                extra += net.h
                continue
            if g.name == "ops":
                count = int(g.args.get("count", 0))
                nbytes = int(g.args.get("bytes", 0))
                if atomics is not None and g.args.get("op") == "atomic":
                    keep = min(count, atomics)
                    atomics -= keep
                    nbytes, count = nbytes * keep // count if count else 0, keep
                if not count:
                    continue
                yield issue
                done = nics.ops(n, g.args.get("op"), int(g.args.get("to", 0)), count, nbytes, issue,
                                flushed=s.name not in FAULTS)
            else:  # a message: the sender's overhead; its handler is interrupted when it arrives
                yield issue
                done = issue + net.h
                waits_from = g.t0
                answered = [chain for at, chain in g.args.get("answers", ()) if at <= s.t1]
                waits.append((nics.transfer(n, int(g.args.get("to", 0)), int(g.args.get("bytes", 0)) + MSG_HEADER,
                                            done) + net.intr, answered))
            extra += done - issue
        if waits:
            # A span waits for the answers to its messages that its node
            # took before the span ended (a page, a lock grant, the
            # acknowledgement of diffs): each answer's flight after its
            # request's, with the handlers' interrupts.  The traced time
            # holds the shm fabric's own delivery of both; the network's
            # comes on top (as the emu fabric adds it).
            sent = clock + extra + (waits_from - s.t0 if atomics is None else 0.0)  # the last one, after its overhead
            last = sent
            for arrival, chains in waits:
                for chain in chains:  # each hop sent by the handler the previous one interrupted
                    t = arrival
                    for src, dst, nbytes in chain:
                        t = nics.transfer(src, dst, nbytes + MSG_HEADER, t + net.h) + net.intr
                    last = max(last, t)
            extra += last - sent
        return clock + local + extra, extra

    def drive(gen):
        """Runs a span's replay, stopping at each group of operations until
        the other nodes' clocks have caught up; returns what it returns."""
        try:
            while True:
                at = next(gen)
                yield ("at", at)
        except StopIteration as stop:
            return stop.value

    def replay(n):
        spans = lines[n]["spans"]
        clock = lines[n]["start"]
        prev_end = lines[n]["start"]
        for i, s in enumerate(spans):
            gap = max(0.0, s.t0 - prev_end)
            fig[n]["compute"] += gap
            clock += gap
            if s.name == "barrier wait":
                leave = yield ("barrier", clock)
                leave += s.args["leave_after"] + span_charge(s, net)
                fig[n]["barrier_wait"] += leave - clock
                clock = leave
            elif s.name == "lock" and (n, i) in order:
                # A lock that was free when asked for takes as long as in
                # the trace; one that was held (in the trace) is acquired
                # as long after the holder's release as then, and at least
                # the node's quickest acquisition time after asking.  Then
                # what the network charges for the acquisition's
                # operations.
                lock, p = order[(n, i)]
                start, ready = clock, clock + s.t1 - s.t0
                if p > 0:
                    prev = holds[lock][p - 1]
                    if prev[3] is not None:
                        at = yield ("lock", (lock, p - 1))
                        prev_end = end_of[(prev[1], prev[3])]
                        if prev_end > s.t0:  # it waited for the holder
                            # (the hand-off is negative when the lock was
                            # handed on before the holder's unlock ended)
                            ready = max(start + base_lock[n], at + s.t1 - prev_end +
                                        (0.0 if with_ops else net.lat + net.nic(0)))
                        else:  # free then, maybe held now
                            ready = max(ready, at + min(base_lock[n], s.t1 - s.t0))
                ready, _ = yield from drive(timed_span(n, s, ready, 0.0, lock_atomics[n] if with_ops else None))
                fig[n]["lock_wait"] += ready - start  # the network's part included
                clock = ready
            else:
                fig[n]["events"] += s.t1 - s.t0
                clock, added = yield from drive(timed_span(n, s, clock))
                fig[n]["charges"] += added
            if (n, i) in release_of:
                released[release_of[(n, i)]] = clock
                yield ("released", release_of[(n, i)])
            if i == lines[n]["last"]:
                end_sim[n] = clock
            prev_end = s.t1

    # The scheduler: resume the node with the earliest clock.
    gens = {n: replay(n) for n in nodes}
    ready = [(lines[n]["start"], n, None) for n in nodes]  # a heap: (clock, node, value to resume it with)
    heapq.heapify(ready)
    at_barrier = {}  # node -> arrival, at the barrier being gathered
    lock_waiters = {}  # (lock, position) -> [node, ...] waiting for that holder's release
    running = set(nodes)
    while ready:
        _, n, value = heapq.heappop(ready)
        try:
            req = gens[n].send(value) if value is not None else next(gens[n])
        except StopIteration:
            running.discard(n)
            continue
        kind, arg = req
        if kind == "at":
            heapq.heappush(ready, (arg, n, None))
        elif kind == "barrier":
            at_barrier[n] = arg
            if len(at_barrier) == len(nodes):
                last = max(at_barrier.values())
                for m in at_barrier:
                    heapq.heappush(ready, (last, m, last))
                at_barrier = {}
        elif kind == "lock":
            if arg in released:
                heapq.heappush(ready, (released[arg], n, released[arg]))
            else:
                lock_waiters.setdefault(arg, []).append(n)
        elif kind == "released":
            for m in lock_waiters.pop(arg, []):
                heapq.heappush(ready, (released[arg], m, released[arg]))
            heapq.heappush(ready, (released[arg], n, None))
    if running:
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
