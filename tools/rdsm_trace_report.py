"""Where a traced job's time went, barrier by barrier, from its timeline
(rdsm run --trace FILE); and, given a second trace of the same program
(--against: typically --protocol hw, plain threads), how much more each
interval between barriers took, and how much of that the faults' protocol
explains.

    rdsm report TRACE.json [--against OTHER.json]

Per node, between its first and its last barrier (the set-up before the
first barrier and whatever follows the last are left out: they differ
between protocols for reasons of their own), the time splits into

  work             the program between two barriers, everything in it
                   included (its faults, fetches, locks)
  faults           of work: the page faults (read and write) and the
                   protocol's time in their slices
  locks            of work: rdsm_lock calls, waiting included
  release          closing the interval before the barrier (diffs, notices)
  barrier wait     waiting for the other nodes
  barrier protocol making memory coherent after them

With --against, interval i of a node (from the end of its barrier i - 1 to
the start of its barrier i) is paired with interval i of the same node in
the other trace, and the extra time (this trace's work minus the other's)
is grouped by the number of faults this trace took in the interval.  The
protocol's part of those faults is in their slices; what the rest of the
extra time is made of, the trace cannot see: the kernel's share of each
fault (signal or userfaultfd delivery, page-table changes), caches.  On a
virtual machine a fault costs the program 8-21 us, of which the protocol's
own part is 0.1-1.7 us (docs/protocols.md).
"""
import statistics
import sys

FAULTS = ("read fault", "write fault")
FAULT_GROUPS = ((0, 0), (1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, None))


def is_trace(doc):
    return isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list)


class Barrier:
    """One barrier of one node and the interval that ends at it (ms)."""

    def __init__(self):
        self.work = self.release = self.wait = self.protocol = 0.0
        self.faults = 0
        self.fault_ms = self.lock_ms = 0.0


def waits_of(events):
    """A node's barriers in order: [wait slice, the barrier protocol slice after it or None]."""
    out = []
    for e in events:
        if e["name"] == "barrier wait":
            out.append([e, None])
        elif e["name"] == "barrier protocol" and out and out[-1][1] is None:
            out[-1][1] = e
    return out


def common_barriers(waits):
    """The barriers every node took part in, as an index into each node's
    list per barrier: at a barrier every node waits at the moment the last
    one arrives, so their waits overlap; a wait that overlaps nobody's (a
    fork-join master's, alone before and after its workers) is skipped."""
    nodes = list(waits)
    at = {n: 0 for n in nodes}
    common = []
    while all(at[n] < len(waits[n]) for n in nodes):
        cur = {n: waits[n][at[n]][0] for n in nodes}
        if max(w["ts"] for w in cur.values()) <= min(w["ts"] + w["dur"] for w in cur.values()):
            common.append(dict(at))
            for n in nodes:
                at[n] += 1
        else:
            first = min(nodes, key=lambda n: cur[n]["ts"] + cur[n]["dur"])
            at[first] += 1
    return common


def load(doc):
    """{node: [Barrier]}: per node, the intervals between consecutive
    barriers that every node took part in, each with the barrier that ends
    it.  Slices of every thread but the message handler's count (faults
    may be served on a thread of their own)."""
    handler_tids = {(e["pid"], e.get("tid")) for e in doc["traceEvents"]
                    if e.get("ph") == "M" and e.get("name") == "thread_name"
                    and e.get("args", {}).get("name") == "handler"}
    per_node = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and (e["pid"], e.get("tid")) not in handler_tids:
            per_node.setdefault(e["pid"], []).append(e)
    for evs in per_node.values():
        evs.sort(key=lambda e: e["ts"])
    waits = {pid: waits_of(evs) for pid, evs in sorted(per_node.items())}
    common = common_barriers(waits) if waits else []
    out = {}
    for pid, evs in sorted(per_node.items()):
        bs, k = [], 0
        for prev, cur in zip(common, common[1:]):
            pw, pp = waits[pid][prev[pid]]
            w, proto = waits[pid][cur[pid]]
            begin = (pp or pw)["ts"] + (pp or pw)["dur"]
            b = Barrier()
            release = None
            while k < len(evs) and evs[k]["ts"] < w["ts"]:
                e = evs[k]
                k += 1
                if e["ts"] < begin:
                    continue
                if e["name"] == "release":
                    release = e
                elif e["name"] in FAULTS:
                    b.faults += 1
                    b.fault_ms += e["dur"] / 1e3
                elif e["name"] == "lock":
                    b.lock_ms += e["dur"] / 1e3
            b.release = release["dur"] / 1e3 if release else 0.0
            b.work = max(0.0, (w["ts"] - begin) / 1e3 - b.release)
            b.wait = w["dur"] / 1e3
            b.protocol = proto["dur"] / 1e3 if proto else 0.0
            bs.append(b)
        out[pid] = bs
    return out


def table(rows, header, out):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    fmt = "  ".join("%-*s" if i == 0 else "%*s" for i in range(len(header)))
    for r in [header] + rows:
        print(fmt % tuple(x for pair in zip(widths, r) for x in pair), file=out)
    print(file=out)


def totals(bs):
    return [sum(getattr(b, k) for b in bs) for k in ("work", "faults", "fault_ms", "lock_ms", "release", "wait",
                                                       "protocol")]


def print_one(name, nodes, out):
    print("trace %s: %d nodes, %d intervals between barriers of them all" % (
        name, len(nodes), max(len(bs) for bs in nodes.values())), file=out)
    rows = []
    for pid, bs in nodes.items():
        w, f, fm, lk, r, wt, p = totals(bs)
        rows.append([str(pid), "%.2f" % w, "%d" % f, "%.2f" % fm, "%.2f" % lk, "%.2f" % r, "%.2f" % wt, "%.2f" % p,
                     "%.2f" % (w + r + wt + p)])
    table(rows, ["node", "work", "faults", "fault ms", "locks", "release", "barrier wait", "barrier protocol",
                 "total (ms)"], out)
    if 0 < max(len(bs) for bs in nodes.values()) <= 24:
        print("per barrier (ms): work / release / wait / protocol, and faults", file=out)
        rows = []
        for i in range(max(len(bs) for bs in nodes.values())):
            row = [str(i + 1)]
            for bs in nodes.values():
                b = bs[i] if i < len(bs) else None
                row.append("%.2f / %.2f / %.2f / %.2f  %4d" % (b.work, b.release, b.wait, b.protocol, b.faults)
                           if b else "-")
            rows.append(row)
        table(rows, ["barrier"] + ["node %d" % pid for pid in nodes], out)


def group_label(lo, hi):
    return "%d" % lo if hi == lo else ("%d+" % lo if hi is None else "%d-%d" % (lo, hi))


def print_pair(name, nodes, other_name, other, out):
    print("%s against %s, interval by interval (interval i: from barrier i - 1 to barrier i of the same node)" % (
        name, other_name), file=out)
    rows, extra = [], []
    for pid, bs in nodes.items():
        obs = other.get(pid, [])
        n = min(len(bs), len(obs))
        if len(bs) != len(obs):
            print("warning: node %d has %d barriers here and %d in %s; the first %d are paired" % (
                pid, len(bs), len(obs), other_name, n), file=out)
        a, b = totals(bs[:n]), totals(obs[:n])
        rows.append([str(pid), "%d" % n, "%.2f" % a[0], "%.2f" % b[0], "%.2f" % a[4], "%.2f" % b[4],
                     "%.2f" % (a[5] + a[6]), "%.2f" % (b[5] + b[6]), "%.2f" % (a[0] + a[4] + a[5] + a[6]),
                     "%.2f" % (b[0] + b[4] + b[5] + b[6])])
        extra += [(x.faults, x.work - y.work, x.fault_ms) for x, y in zip(bs[:n], obs[:n])]
    table(rows, ["node", "intervals", "work", "work B", "release", "release B", "barrier", "barrier B", "total (ms)",
                 "total B"], out)
    print("work minus B's work, by the faults this trace took in the interval (every node's intervals):",
          file=out)
    rows = []
    for lo, hi in FAULT_GROUPS:
        g = [x for x in extra if x[0] >= lo and (hi is None or x[0] <= hi)]
        if not g:
            continue
        total, proto = sum(x[1] for x in g), sum(x[2] for x in g)
        faults = sum(x[0] for x in g)
        rows.append([group_label(lo, hi), "%d" % len(g), "%.1f" % (statistics.median(x[1] for x in g) * 1e3),
                     "%.2f" % total, "%.2f" % proto, "%.2f" % (total - proto),
                     "%.1f" % ((total - proto) * 1e3 / faults) if faults else "-"])
    table(rows, ["faults", "intervals", "median extra (us)", "extra (ms)", "fault protocol (ms)", "rest (ms)",
                 "rest per fault (us)"], out)


def report(doc, name, against=None, against_name=None, out=sys.stdout):
    nodes = load(doc)
    if not any(nodes.values()):
        print("trace %s: no barrier between two others on any node: nothing to break down" % name, file=out)
        return
    print_one(name, nodes, out)
    if against is not None:
        other = load(against)
        print_one(against_name, other, out)
        print_pair(name, nodes, against_name, other, out)
