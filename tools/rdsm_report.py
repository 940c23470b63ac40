#!/usr/bin/env python3
"""Tables and plots from a tools/rdsm_bench.py result (bench.json), the
tables of a tools/microbench.py result (its --json file), or where a traced
job's time went (rdsm run --trace), beside a second trace of the program.

    rdsm_report.py FILE.json [--out DIR]
    rdsm_report.py FILE.json --brief
    rdsm_report.py TRACE.json [--against TRACE.json]

Given a trace, it prints per node the time between barriers, the faults in
it, the releases and the barriers, and with --against the extra time of
every interval between barriers over the same interval of the other trace,
by the number of faults taken in it (rdsm_trace_report.py).

Given a micro-benchmark result, it prints the driver's tables again from the
file (microbench_report.py): the fault, fetch, diff, lock and barrier figures
per preset (sc beside the release-consistency presets: the read miss, write
miss, upgrade and 3-hop faults of the Multiview papers' table), the backends'
page-group and fault-delivery tables and the ping-pong table of handler
modes.  What follows is about bench.json.

Prints, per app (and size), the parallel time, the speedup and the fraction
of hw per protocol and node count, and the time breakdown at the largest
node count.

  speedup        median of the `sequential` seconds the program printed over
                 every successful run of that app and size / median
                 `parallel` seconds of that protocol and node count.
  of hw          a protocol's speedup / the speedup of hw (every node maps
                 the same memory and the machine keeps it coherent, the
                 limit the DSM protocols are compared with) for the same
                 app, size and node count; 1.00 = as fast as the limit.
                 "-" (null in JSON) when hw was not run or failed.
  threads        rdsm bench's plain-threads runs (one process of N compute
                 threads, `rdsm run -n 1 --threads N`), a row of their own
                 in the column of N nodes.  hw's processes get their memory
                 as it is allocated, as the DSM presets' copies do; plain
                 threads take a page fault at the first touch of memory in
                 their parallel phase, so hw can be the faster of the two.
  of threads     a protocol's speedup / the speedup of plain threads at the
                 same number of workers (a column when the file has them).
  breakdown      mean over the rows of the launcher's per-node stats (for a
                 fork-join program: the master and every forked worker),
                 mean over repeats; plain threads' per thread.
  per thread     runs on nodes of several threads (rdsm bench --threads T):
                 after the breakdown, a row per compute thread of every node
                 (0.t1: thread 1 of node 0), mean over repeats, with its
                 page faults; a node's row above is the sum of its threads'.

Runs on nodes of several threads (rdsm bench --threads 1,2) are kept apart
by their shape, NxT (N nodes of T compute threads each): the tables have a
column per shape where they have one per node count, "at the largest node
count" is at the last shape (the most nodes, then the most threads), and
of hw compares with hw at the same N and T.  The speedup plot then has the
shapes on its x axis, evenly spaced, and its linear line at N x T.

When the runs were made under more than one memory backend (rdsm bench
--memory mprotect,uffd), every table has a memory column (a row per protocol
and backend; "?" for runs of a file that does not say which backend ran), of
hw compares with hw under the same backend (else with hw under the one it
ran), and a table gives per app, protocol and node count

  uffd/mprotect  median parallel seconds under uffd / under mprotect; below
                 1.00 uffd is faster.  "*": with two runs or more of each,
                 every run of the slower backend was slower than every run
                 of the faster one (a difference beyond the runs' spread).

When the runs were made on more than one fabric (rdsm bench --fabric
shm,mpi), each protocol is a row per fabric, named after it (rdsm@shm,
rdsm@mpi), in every table and plot; hw runs on shm only.

Writes to DIR (default: the JSON file's directory):

  speedup.png    per app: speedup vs node count, a line per protocol (hw
                 dashed black, plain threads dotted), and below it the
                 fraction of hw vs node count.
  breakdown.png  stacked time breakdown (compute, data wait, lock wait,
                 barrier wait, barrier protocol) per app and protocol at the
                 largest node count, normalised to the async bar of that app
                 (else the first).
  handler.png    handler time per protocol at each app's largest node count
                 (mean per node, split page / diff / sync / other), averaged
                 over apps.
  summary.json   per app, size, protocol, memory backend and node count:
                 runs, median parallel seconds, speedup, fraction_of_hw,
                 fraction_of_threads and the breakdown (seconds, as in
                 the table); memory_ratios: the uffd/mprotect table.

A file made under the emu fabric with sweeps or several presets (rdsm bench
--sweep, --emu-preset; rdsm_report_sweep.py) adds, after the tables above,
which then cover the runs at the base network only:

  sweep of PARAM per swept parameter: per app, protocol and node count the
                 median parallel time at each value and the slowdown, that
                 time / the time at the sweep's lowest cost (the lowest
                 value, for bandwidth the highest), the definition of Bilas
                 et al.; * marks the base network's value.
  achievable vs best  when runs at both presets are there: time and
                 speedup at each, and their ratio.

and writes sweep_PARAM.png per swept parameter: the slowdown against the
value, one panel per app, a line per protocol (and node count), in the
style of the study's Figures 1.3-1.6; summary.json gets "sweeps" and
"achievable_vs_best".

--brief prints only a compact table per app (time per node count, speedup
and fraction of hw at the largest node count), the uffd/mprotect table when
both backends ran, the slowdowns of each sweep and the achievable vs best
table, and the failed runs, writes nothing and does not need matplotlib.

Failed runs are left out of every figure and listed.  Needs matplotlib
(Debian: apt-get install python3-matplotlib); the Agg backend is used.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import microbench_report
import rdsm_report_sweep
import rdsm_trace_report
from rdsm_report_common import (COMPONENTS, HANDLER_PARTS, HW, SHAPE_LEGEND, THREADS, fmt, fmt_seconds,
                                label_fabrics, mean, median, memory_label, memory_of, order_memories,
                                order_protocols, parallel_time, print_table, read_json, shape_label, shape_of,
                                shape_short, shapes_with_threads, threads_of)
from rdsm_report_plots import order_series, plot_breakdown, plot_handler, plot_speedup

ANY = object()  # a run's memory backend, whichever it is


def load_matplotlib():
    try:
        import matplotlib
    except ImportError:
        # Debian's python3-matplotlib belongs to /usr/bin/python3; the python3
        # on PATH may be another interpreter (pyenv, a venv): run under that one.
        system = "/usr/bin/python3"
        if (os.environ.get("RDSM_REPORT_REEXEC") is None and os.access(system, os.X_OK)
                and os.path.realpath(system) != os.path.realpath(sys.executable)
                and subprocess.run([system, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, check=False).returncode == 0):
            os.environ["RDSM_REPORT_REEXEC"] = "1"
            sys.stdout.flush()
            os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
        sys.exit("rdsm_report: matplotlib is not installed for %s (Debian: apt-get install -y "
                 "python3-matplotlib, then run with /usr/bin/python3); no plots can be written" % sys.executable)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def node_mean(run, field):
    # Every row counts: a fork-join run lists its master and each forked worker ("forked": true) as rows.
    nodes = (run.get("stats") or {}).get("per_node") or []
    vals = [n.get(field) for n in nodes if n.get(field) is not None]
    return statistics.mean(vals) if vals else None


def worker_mean(run, field):
    """node_mean per worker: plain threads' one node sums its threads, the other runs' nodes are one each."""
    v = node_mean(run, field)
    return v / threads_of(run) if v is not None and run["protocol"] == THREADS else v


class Data:
    def __init__(self, doc):
        self.doc = doc
        runs = doc.get("runs", [])
        self.fabrics = label_fabrics(runs)
        self.ok = [r for r in runs if r.get("ok")]
        self.failed = [r for r in runs if not r.get("ok")]
        sizes = sorted({r["size"] for r in runs})
        self.multi_size = len(sizes) > 1
        # (app, size) groups in the order of first appearance
        self.groups = []
        for r in runs:
            g = (r["app"], r["size"])
            if g not in self.groups:
                self.groups.append(g)
        # Memory backends: those of the successful runs and those asked for (a backend whose runs all
        # failed still shows as asked for); with more than one, each is a row of its own.
        self.memories = order_memories({memory_of(r) for r in self.ok} |
                                       {r["memory_requested"] for r in runs if r.get("memory_requested")})
        self.multi_memory = len(self.memories) > 1
        self.compare_memory = all(m in self.memories for m in ("uffd", "mprotect"))
        # Runs on nodes of several threads: every table keeps each (nodes, threads) apart, labelled NxT.
        self.with_threads = shapes_with_threads(runs)
        # Plain threads (rdsm bench's baseline): an "of threads" column beside "of hw".
        self.has_threads = any(r["protocol"] == THREADS for r in self.ok)

    def label(self, g):
        return "%s (%s)" % g if self.multi_size else g[0]

    def runs(self, g, protocol=None, shape=None, memory=ANY):
        """The successful runs of app and size g, of a protocol, a (nodes, threads) shape and a backend."""
        return [r for r in self.ok if (r["app"], r["size"]) == g and (protocol is None or r["protocol"] == protocol)
                and (shape is None or shape_of(r) == shape) and (memory is ANY or memory_of(r) == memory)]

    def protocols(self, g):
        return order_protocols({r["protocol"] for r in self.runs(g)})

    def series(self, g):
        """(protocol, memory backend) pairs with successful runs, a protocol's backends together."""
        have = {(r["protocol"], memory_of(r)) for r in self.runs(g)}
        return [(p, m) for p in self.protocols(g) for m in self.memories if (p, m) in have]

    def series_label(self, p, m):
        return "%s (%s)" % (p, memory_label(m)) if self.multi_memory else p

    def shapes(self, g):
        """The (nodes, threads per node) the app ran at, by nodes then threads."""
        return sorted({shape_of(r) for r in self.runs(g)})

    def shape_label(self, s):
        return shape_label(s, self.with_threads)

    def shape_short(self, s):
        return shape_short(s, self.with_threads)

    def sequential(self, g):
        return median([r.get("sequential_seconds") for r in self.runs(g)])

    def parallel(self, g, p, s, m=ANY):
        return median([parallel_time(r) for r in self.runs(g, p, s, m)])

    def speedup(self, g, p, s, m=ANY):
        seq, par = self.sequential(g), self.parallel(g, p, s, m)
        return seq / par if seq and par else None

    def hw_speedup(self, g, s, m=ANY):
        """hw's speedup under backend m if hw ran under it, else over the hw runs there are."""
        if m is not ANY and self.runs(g, HW, s, m):
            return self.speedup(g, HW, s, m)
        return self.speedup(g, HW, s)

    def fraction_of_hw(self, g, p, s, m=ANY):
        """p's speedup / hw's speedup at the same app, size, node count and threads per node (and
        backend, if hw ran under it); None without both."""
        sp, hw = self.speedup(g, p, s, m), self.hw_speedup(g, s, m)
        return sp / hw if sp and hw else None

    def fraction_of_threads(self, g, p, s, m=ANY):
        """p's speedup / the speedup of plain threads as many as the shape's workers (any backend: one
        process has no coherence to keep); None without both."""
        sp, th = self.speedup(g, p, s, m), self.speedup(g, THREADS, s)
        return sp / th if sp and th else None

    def memory_ratio(self, g, p, s):
        """(uffd / mprotect median parallel time, beyond the runs' spread) or (None, False)."""
        tu = [parallel_time(r) for r in self.runs(g, p, s, "uffd")]
        tm = [parallel_time(r) for r in self.runs(g, p, s, "mprotect")]
        tu, tm = [t for t in tu if t is not None], [t for t in tm if t is not None]
        if not tu or not tm or not median(tm):
            return None, False
        beyond = len(tu) >= 2 and len(tm) >= 2 and (min(tu) > max(tm) or max(tu) < min(tm))
        return median(tu) / median(tm), beyond

    def has_hw(self, g):
        return any(self.speedup(g, HW, s) for s in self.shapes(g))

    def args(self, g):
        """The program's arguments as the app table gives them ({nodes} for the node count), if known."""
        runs = [r for r in self.doc.get("runs", []) if (r["app"], r["size"]) == g]
        for key in ("size_args", "args"):
            seen = {tuple(r[key]) for r in runs if key in r}
            if len(seen) == 1:
                return list(seen.pop())
        return None

    def breakdown(self, g, p, s, m=ANY):
        """Mean over nodes, mean over repeats, of each component (seconds); None without stats."""
        rs = [r for r in self.runs(g, p, s, m) if (r.get("stats") or {}).get("per_node")]
        if not rs:
            return None
        out = {}
        for f, _ in COMPONENTS + HANDLER_PARTS + [("handler", "handler"), ("total", "total")]:
            out[f] = mean([worker_mean(r, f) for r in rs]) or 0.0
        return out


THREAD_FIELDS = ["total"] + [f for f, _ in COMPONENTS]


def thread_rows(run):
    """{"0.t1": per_thread row, ...} of one run: nodes of several threads only."""
    out = {}
    for node in (run.get("stats") or {}).get("per_node") or []:
        for row in node.get("per_thread") or []:
            out["%s%d.t%d" % ("w" if node.get("forked") else "", node["rank"], row["thread"])] = row
    return out


def thread_breakdown(rs):
    """Per thread label, the mean over the runs `rs` of each time (seconds) and of its faults."""
    per_run = [thread_rows(r) for r in rs]
    labels = sorted({lbl for rows in per_run for lbl in rows},
                    key=lambda lbl: [int(x) for x in lbl.lstrip("w").split(".t")])
    return {lbl: {f: mean([rows[lbl].get(f) for rows in per_run if lbl in rows]) or 0.0
                  for f in THREAD_FIELDS + ["faults"]} for lbl in labels}


TABLE_LEGEND = ("time: median parallel seconds; speedup: sequential / time; of hw: speedup / the speedup of hw "
                "(one memory kept coherent by the machine, the limit) at the same node count (and threads per "
                "node), 1.00 = at the limit, - = no hw run")
THREADS_LEGEND = ("threads: one process of N compute threads (rdsm run -n 1 --threads N) in the column of N nodes; "
                  "of threads: speedup / the speedup of threads as many as the workers")


MEMORY_LEGEND = ("memory: the memory backend the nodes ran (? = not recorded); of hw compares with hw under the "
                 "same backend")


def label_cells(d, p, m):
    """A row's leading cells: the protocol, and its memory backend when the file has several."""
    return [p, memory_label(m)] if d.multi_memory else [p]


def print_fabric_legend(d, end=""):
    if len(d.fabrics) > 1:
        print("P@F: protocol P on fabric F (%s); hw runs on shm only%s" % (", ".join(d.fabrics), end))


def label_header(d):
    return ["protocol", "memory"] if d.multi_memory else ["protocol"]


def print_tables(d):
    print(TABLE_LEGEND + "\n")
    if d.has_threads:
        print(THREADS_LEGEND + "\n")
    if d.with_threads:
        print(SHAPE_LEGEND + "\n")
    if d.multi_memory:
        print(MEMORY_LEGEND + "\n")
    print_fabric_legend(d, "\n")
    lead = len(label_header(d))
    for g in d.groups:
        ns = d.shapes(g)
        if not ns:
            print("== %s: no successful runs\n" % d.label(g))
            continue
        print("== %s: sequential %s s (median)%s" % (d.label(g), fmt(d.sequential(g), "%.6f"),
                                                    "" if d.has_hw(g) else "; no hw runs"))
        # "of threads" where plain threads ran (2 nodes and more).
        of_threads = {n: bool(d.runs(g, THREADS, n)) for n in ns}
        header = label_header(d)
        for n in ns:
            header += ["time (s)", "speedup", "of hw"] + (["of threads"] if of_threads[n] else [])
        rows = []
        for p, m in d.series(g):
            row = label_cells(d, p, m)
            for n in ns:
                row += [fmt(d.parallel(g, p, n, m), "%.6f"), fmt(d.speedup(g, p, n, m), "%.2f"),
                        fmt(d.fraction_of_hw(g, p, n, m), "%.2f")]
                if of_threads[n]:
                    row.append(fmt(d.fraction_of_threads(g, p, n, m), "%.2f"))
            rows.append(row)
        print_table(rows, header, [(d.shape_label(n), 3 + of_threads[n]) for n in ns], lead)
        n = ns[-1]
        print("\n   breakdown at %s (ms, mean over nodes and repeats)" % d.shape_label(n))
        header = label_header(d) + [lbl for _, lbl in COMPONENTS] + ["total", "handler", "h.page", "h.diff",
                                                                     "h.sync"]
        rows = []
        for p, m in d.series(g):
            b = d.breakdown(g, p, n, m)
            if b is None:
                rows.append(label_cells(d, p, m) + ["-"] * (len(header) - lead))
                continue
            rows.append(label_cells(d, p, m) + ["%.3f" % (1e3 * b[f]) for f, _ in COMPONENTS] +
                        ["%.3f" % (1e3 * b[f]) for f in ("total", "handler", "handler_page", "handler_diff",
                                                          "handler_sync")])
        print_table(rows, header, lead=lead)
        print_thread_breakdown(d, g, n)
        print()


def print_thread_breakdown(d, g, n):
    """Runs on nodes of several threads: a row per compute thread under the breakdown."""
    header = label_header(d) + ["thread"] + [lbl for _, lbl in COMPONENTS] + ["total", "faults"]
    rows = []
    for p, m in d.series(g):
        for lbl, t in thread_breakdown(d.runs(g, p, n, m)).items():
            rows.append(label_cells(d, p, m) + [lbl] + ["%.3f" % (1e3 * t[f]) for f, _ in COMPONENTS] +
                        ["%.3f" % (1e3 * t["total"]), "%.0f" % t["faults"]])
    if rows:
        print("\n   per thread at %s (ms, mean over repeats; each node's row above is the sum of its "
              "threads')" % d.shape_label(n))
        print_table(rows, header, lead=len(label_header(d)) + 1)


def memory_ratios(d):
    """Every (group, protocol, nodes) measured under both uffd and mprotect, with its ratio."""
    out = []
    if not d.compare_memory:
        return out
    for g in d.groups:
        for p in d.protocols(g):
            for n in d.shapes(g):
                ratio, beyond = d.memory_ratio(g, p, n)
                if ratio is None:
                    continue
                out.append({"app": g[0], "size": g[1], "protocol": p, "nodes": n[0], "threads": n[1],
                            "uffd_seconds": d.parallel(g, p, n, "uffd"),
                            "mprotect_seconds": d.parallel(g, p, n, "mprotect"),
                            "uffd_runs": len(d.runs(g, p, n, "uffd")), "mprotect_runs": len(d.runs(g, p, n, "mprotect")),
                            "ratio": ratio, "beyond_spread": beyond})
    return out


def print_memory_ratios(d):
    """One table over every app: uffd / mprotect parallel time per protocol and node count."""
    if not d.compare_memory:
        return
    ratios = memory_ratios(d)
    print("== uffd/mprotect: median parallel time under uffd / under mprotect (below 1.00: uffd faster; "
          "*: beyond the spread of the runs; - = not both measured)")
    if not ratios:
        print("  no app, protocol and node count ran successfully under both backends\n")
        return
    ns = sorted({(x["nodes"], x["threads"]) for x in ratios})
    by_key = {(x["app"], x["size"], x["protocol"], (x["nodes"], x["threads"])): x for x in ratios}
    rows = []
    for g in d.groups:
        for p in d.protocols(g):
            cells = [by_key.get(g + (p, n)) for n in ns]
            if not any(cells):
                continue
            worst = max((c for c in cells if c), key=lambda c: c["ratio"])
            rows.append([d.label(g), p] + ["-" if c is None else "%.2f%s" % (c["ratio"], "*" if c["beyond_spread"]
                                                                            else "") for c in cells] +
                        ["%.2f" % worst["ratio"]])
    print_table(rows, ["app", "protocol"] + [d.shape_label(n) for n in ns] + ["max"], lead=2)
    dsm = [x for x in ratios if x["protocol"] != HW]
    slower = [x for x in dsm if x["ratio"] > 1.0]
    worst = max(dsm, key=lambda x: x["ratio"]) if dsm else None
    if worst is not None:
        print("uffd slower than mprotect in %d of %d DSM cells (%d beyond the spread); the worst, %.2f: %s, %s, %s" % (
            len(slower), len(dsm), sum(1 for x in slower if x["beyond_spread"]), worst["ratio"],
            "%s (%s)" % (worst["app"], worst["size"]) if d.multi_size else worst["app"], worst["protocol"],
            d.shape_label((worst["nodes"], worst["threads"]))))
    print()


def print_brief(d):
    """One compact table per app: time per node count, speedup and fraction of hw at the largest."""
    for g in d.groups:
        ns = d.shapes(g)
        args = d.args(g)
        print("%s, size %s%s: sequential %s s" % (g[0], g[1], " (%s)" % " ".join(args) if args else "",
                                                   fmt_seconds(d.sequential(g))))
        if not ns:
            print("  no successful runs\n")
            continue
        n = ns[-1]
        header = label_header(d) + ["%s (s)" % d.shape_label(k) for k in ns] + ["speedup at %s" % d.shape_short(n),
                                                                                "of hw at %s" % d.shape_short(n)]
        if d.has_threads:
            header.append("of threads at %s" % d.shape_short(n))
        rows = [label_cells(d, p, m) + [fmt_seconds(d.parallel(g, p, k, m)) for k in ns] +
                [fmt(d.speedup(g, p, n, m), "%.2f"), fmt(d.fraction_of_hw(g, p, n, m), "%.2f")] +
                ([fmt(d.fraction_of_threads(g, p, n, m), "%.2f")] if d.has_threads else [])
                for p, m in d.series(g)]
        print_table(rows, header, lead=len(label_header(d)))
        print()
    print_memory_ratios(d)
    print("speedup = sequential time / parallel time; of hw = speedup / the speedup of hw (processes on\n"
          "one memory kept coherent by the machine, the limit for a DSM protocol); - = not measured")
    if d.has_threads:
        print("threads = one process of N compute threads, at N nodes; of threads = speedup / the speedup of threads")
    if d.with_threads:
        print(SHAPE_LEGEND)
    if d.multi_memory:
        print(MEMORY_LEGEND)
    print_fabric_legend(d)
    if d.failed:
        print()


def summary(d, source):
    groups = []
    for g in d.groups:
        results = []
        for p, m in d.series(g):
            for n in d.shapes(g):
                if p == THREADS and not d.runs(g, p, n, m):
                    continue  # plain threads stand beside 2 nodes and more only
                results.append({"protocol": p, "memory": m, "nodes": n[0], "threads": n[1],
                                "runs": len(d.runs(g, p, n, m)),
                                "parallel_seconds": d.parallel(g, p, n, m), "speedup": d.speedup(g, p, n, m),
                                "fraction_of_hw": d.fraction_of_hw(g, p, n, m),
                                "fraction_of_threads": d.fraction_of_threads(g, p, n, m),
                                "breakdown_seconds": d.breakdown(g, p, n, m)})
        groups.append({"app": g[0], "size": g[1], "sequential_seconds": d.sequential(g), "hw": d.has_hw(g),
                       "results": results})
    return {"tool": "rdsm_report", "source": os.path.abspath(source), "started": d.doc.get("started"),
            "failed_runs": len(d.failed), "memory": d.memories, "groups": groups,
            "memory_ratios": memory_ratios(d), "fabrics": d.fabrics}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="result of tools/rdsm_bench.py or of tools/microbench.py --json")
    ap.add_argument("--out", default=None,
                    help="directory for the PNGs and summary.json (default: the JSON file's directory)")
    ap.add_argument("--brief", action="store_true",
                    help="print only a compact speedup table per app (and the slowdowns of sweeps); write nothing, "
                         "no matplotlib needed")
    ap.add_argument("--against", default=None, metavar="TRACE",
                    help="with a trace (rdsm run --trace): a second trace of the same program (e.g. --protocol "
                         "hw) to compare with, interval by interval")
    a = ap.parse_args(argv)
    doc = read_json(a.json)
    if rdsm_trace_report.is_trace(doc):
        against = read_json(a.against) if a.against else None
        if against is not None and not rdsm_trace_report.is_trace(against):
            sys.exit("rdsm_report: --against %s: not a trace (write one with rdsm run --trace FILE)" % a.against)
        rdsm_trace_report.report(doc, a.json, against, a.against)
        return 0
    if a.against:
        sys.exit("rdsm_report: --against compares two traces, and %s is not one (write one with rdsm run "
                 "--trace FILE)" % a.json)
    if microbench_report.is_result(doc):
        # A micro-benchmark result: its tables, as the driver printed them
        # (nothing to plot).
        microbench_report.print_result(doc, sys.stdout)
        return 0
    # Under emu sweeps and presets the ordinary tables are of the base network's runs; the study's
    # tables cover the others.  Failed runs are listed whatever their network.
    runs, network = rdsm_report_sweep.main_runs(doc)
    d = Data(dict(doc, runs=runs))
    d.failed = [r for r in doc.get("runs", []) if not r.get("ok")]
    study = rdsm_report_sweep.Study(doc)
    if a.brief:
        if network:
            print("emu network %s (the sweeps' base; the other networks are in the tables after these)\n" % network)
        print_brief(d)
        if not study.empty():
            print()
            study.print_all(brief=True)
        print_failed(d)
        return 0
    plt = load_matplotlib()
    out = a.out or os.path.dirname(os.path.abspath(a.json))
    os.makedirs(out, exist_ok=True)

    cfg = doc.get("config", {})
    print("rdsm benchmark %s: %d runs (%d failed), repeat %s, host %s, %s cpus" % (
        doc.get("started", "?"), len(doc.get("runs", [])), len(d.failed), cfg.get("repeat", "?"),
        doc.get("host", "?"), doc.get("cpus", "?")))
    for note in doc.get("notes", []):
        print("note: " + note)
    if network:
        print("emu network %s: the sweeps' base; the tables and figures up to the sweeps are of its runs" % network)
    print()
    print_tables(d)
    print_memory_ratios(d)

    paths = [os.path.join(out, f) for f in ("speedup.png", "breakdown.png", "handler.png")]
    plot_speedup(d, plt, paths[0])
    plot_breakdown(d, plt, paths[1])
    hm = plot_handler(d, plt, paths[2])
    paths += study.plot(plt, out)
    print("== handler time per node (ms), mean over apps at each app's largest node count")
    print_table([label_cells(d, *pm) + ["%d" % hm[pm]["apps"]] +
                 ["%.3f" % hm[pm][k] for k in ("handler_page", "handler_diff", "handler_sync", "other")]
                 for pm in order_series(d, hm)], label_header(d) + ["apps", "page", "diff", "sync", "other"],
                lead=len(label_header(d)))
    print()
    study.print_all()
    print_failed(d)
    paths.append(os.path.join(out, "summary.json"))
    tmp = paths[-1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(dict(summary(d, a.json), **study.summary()), fh, indent=1)
        fh.write("\n")
    os.replace(tmp, paths[-1])
    for p in paths:
        print("wrote " + p)
    return 0


def print_failed(d):
    if d.failed:
        print("failed runs (left out):")
        for r in d.failed:
            network = rdsm_report_sweep.network_label(r)
            print("  %s size %s, protocol %s%s%s, %s, repeat %d: %s" % (
                r["app"], r["size"], r["protocol"],
                ", memory %s" % memory_of(r) if d.multi_memory or r.get("memory_requested") else "",
                ", network %s" % network if network else "",
                d.shape_label(shape_of(r)), r.get("repeat", 0) + 1, r.get("error")))
        print()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        # Read through `head`: the reader has what it wanted.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
