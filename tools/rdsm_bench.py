#!/usr/bin/env python3
"""Runs the rdsm application benchmarks: apps x protocols x node counts x
sizes x repeats, each through `rdsm run --quiet --stats FILE`, and writes
every run to one JSON file (default bench.json) for tools/rdsm_report.py.

The applications and their arguments per size come from
tools/bench_apps.json (next to this script, or --apps-file), with, per size,
optional arguments for the launcher ("launcher_args", e.g. a larger
--region-size); an app whose program is not in the build's apps/ is skipped
with a note.  An app marked "fork_join": true is one process that forks its
own workers (a SPLASH-style program): for N nodes of T threads it is
started as `rdsm run -n 1 --threads T ...` and told its N x T workers
through its arguments, where the placeholder {nodes} stands for N x T
(e.g. "-p{nodes}"), which it forms into N nodes; the placeholder may appear
in any app's arguments.  If `rdsm run --help` lists a protocol named hw (the
hardware-coherent limit: every node maps the same memory, no DSM), every
app is also run under hw in every repeat, per size and node count, recorded
like the other runs (the fraction of hw divides by the median of its runs,
as noisy as any).

Plain threads are run too (unless --no-threads): for every node count N
above 1, the app as one process of N compute threads (`rdsm run -n 1
--threads N`, under hw, whose single node is the process's own memory; a
fork-join app told its N workers), recorded as protocol "threads" with
nodes 1 and threads N, in every repeat.  That is what a program built with
plain threads does, first touches of memory in its parallel phase and all,
where hw's processes get their memory as it is allocated, as the DSM
presets' copies do; rdsm report sets each protocol's speedup beside both.
Not under emu networks (--emu-preset, --sweep): one process has no network.

A protocol whose parallel phase in a configuration takes under
--short-seconds (default 0.1 s), hw included, is run again there after the
repeats, round by round, until it has --short-runs runs (default 7; 1 for
none): a phase of a few milliseconds varies by 10-20% from run to run on a
busy machine, and the medians of three runs, and their ratios to hw, with
it.  A protocol slower than that in the same configuration (sc's radix at 2
nodes takes seconds) gets no extra runs and takes none from the others.
The extra runs are recorded as further repeats.

--threads LIST (e.g. 1,2) runs every configuration on nodes of each number
of compute threads (`rdsm run --threads T`), after one another for each
node count; every run records its threads.

--memory mprotect,uffd runs every configuration under each memory backend
(`rdsm run --memory B`); the runs of one app, size, protocol and node count
under the different backends follow one another (their order alternating
from one repeat to the next), so load from elsewhere touches every backend
alike.  Without --memory no backend is asked for and the nodes use their
default.  If a backend cannot run on this machine (uffd where the kernel
refuses userfaultfd), its first run fails with the launcher's reason and its
remaining runs are skipped with a note.

Per run the JSON holds: app, size, protocol, memory (the backend the nodes
ran, from the launcher's stats; null if unknown) and memory_requested (the
--memory given to the launcher, null for none), nodes (for a fork-join app the
number of nodes its workers formed), threads (compute threads per node), fork_join, the program's arguments
as the table gives them (size_args) and as run (args), repeat, command,
wall seconds, exit status, verdict (PASS / FAIL / none), the `parallel` and
`sequential` seconds the program printed, the launcher's stats JSON (with
the per-node time breakdown; a fork-join run lists the master and its
forked workers) and, for failures, the tail of the output.

Emulated networks (the emu fabric; docs/emu.md): --emu-preset LIST runs
every configuration under each named network (`rdsm run --emu-preset P`),
--emu P=V,... sets parameters on top of every preset, and --sweep
PARAM=v1,v2,... (host_overhead, occupancy, latency, bandwidth or interrupt;
values as `rdsm run --emu` takes them) varies one parameter, the others at
the base network: the first preset (default achievable, the values Bilas et
al. keep fixed while they vary one) with --emu on top.  Every configuration
runs at the base network, at each swept value that differs from it, and at
each other preset, one after the other; several --sweep flags are swept one
at a time around the same base.  The hw runs are made at the base network.
Per run the JSON then also holds emu_point: which point of the plan it is
(kind base, sweep or preset; for a sweep the parameter and the value as
given), the preset and settings passed to the launcher and the network they
come to; and fabric and emu, the launcher's record of what ran.

Fabrics: --fabric shm,mpi runs every configuration on each fabric (`rdsm run
--fabric F`; mpi needs a build with -DRDSM_MPI=ON), one after the other; the
hw runs stay on shm (plain threads need one machine's memory), and so do
fork-join apps on nodes of several threads (on the mpi fabric a fork-join
app runs one process per rank: -n N, not forked).  Per run
the JSON then holds fabric, the fabric that ran (the launcher's record,
else the one asked for).  Without --fabric no fabric is asked for: shm.

--predict (with emu networks) also runs every configuration of two or more
nodes once per repeat on the shm fabric with a timeline trace, just before
its emu runs, and predicts its time at each network of the plan with `rdsm
sim`'s replay (tools/rdsm_sim.py).  The JSON's "predictions" list holds, per
traced run: the configuration, the traced run's parallel seconds, and per
network its point and the predicted parallel seconds (the replay's
prediction of the timed part, scaled to the program's own clock); rdsm
report sets them beside the emu runs' medians.  The traces are not kept.

A failing run (non-zero exit, timeout, no PASS) is recorded, the sweep goes
on, the failures are listed at the end and the exit status is 1.

Python 3 standard library only.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import rdsm_emu
import rdsm_sim
from launch_job import run_job, stop_on_sigterm
from rdsm_build_query import find_program, launcher_protocols, preset_of
from rdsm_report_common import THREADS  # the plain-threads runs' protocol, as the report reads it

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(SCRIPT_DIR)
DEFAULT_PROTOCOLS = ["rdsm", "async", "ardmar", "draw", "newgen", "genima"]
MEMORY_BACKENDS = ["mprotect", "uffd"]
FABRICS = ["shm", "mpi"]  # what --fabric takes; emu runs come from --emu-preset and --sweep
WAIT_SLACK = 30  # seconds beyond --timeout before the launcher itself is killed
NODES_PLACEHOLDER = "{nodes}"
SWEEP_BASE_PRESET = "achievable"  # the study's fixed values while one parameter varies
# A parallel phase of a few milliseconds (radix at paper size takes 12 ms) varies by 10-20% from run to
# run on a busy machine, plain threads' as much as the protocols', and so does its ratio to hw: such
# configurations get more runs, so that their medians hold.
SHORT_RUNS = 7
SHORT_SECONDS = 0.1

NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"
PARALLEL_RE = re.compile(r"\bparallel\s+" + NUM + r"\s*s\b")
SEQUENTIAL_RE = re.compile(r"\bsequential(?:\s+check)?\s+" + NUM + r"\s*s\b")
# What a node prints when the backend asked for cannot work on this machine.
BACKEND_UNAVAILABLE_RE = re.compile(r"the (\w+) memory backend cannot run here: ([^\n]*)")


def csv(text):
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.environ.get("RDSM_BUILD_DIR") or os.path.join(REPO_DIR, "build"),
                   help="build directory holding rdsm and apps/ (default: that of the `rdsm` that started "
                        "this, else the repository's build/)")
    p.add_argument("--apps", type=csv, default=None, help="comma-separated apps (default: every app in the table)")
    p.add_argument("--protocols", type=csv, default=None,
                   help="comma-separated presets (default: %s, those the launcher knows)" % ",".join(DEFAULT_PROTOCOLS))
    p.add_argument("--nodes", type=csv, default=["1", "2", "4"], help="comma-separated node counts (default 1,2,4)")
    p.add_argument("--sizes", type=csv, default=["test"], help="comma-separated sizes: test, medium, paper (default test)")
    p.add_argument("--repeat", type=int, default=1, help="repetitions of every run (default 1)")
    p.add_argument("--short-runs", type=int, default=SHORT_RUNS, metavar="K",
                   help="a protocol whose parallel phase in a configuration takes under --short-seconds "
                        "is run again there, in rounds of the configuration's short protocols after the repeats, "
                        "until it has K runs (default %d; 1: no extra runs)" % SHORT_RUNS)
    p.add_argument("--short-seconds", type=float, default=SHORT_SECONDS, metavar="S",
                   help="what --short-runs calls short (default %g s)" % SHORT_SECONDS)
    p.add_argument("--threads", type=csv, default=["1"], metavar="LIST",
                   help="comma-separated compute threads per node (rdsm run --threads): every configuration at "
                        "each (default 1)")
    p.add_argument("--out", default="bench.json", help="output JSON file (default bench.json)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run, passed to rdsm run --timeout (default 600)")
    p.add_argument("--memory", type=csv, default=None, metavar="LIST",
                   help="comma-separated memory backends (%s): every run under each, side by side "
                        "(default: none asked for, the nodes' default; the JSON records which ran)"
                        % ",".join(MEMORY_BACKENDS))
    p.add_argument("--fabric", type=csv, default=None, metavar="LIST",
                   help="comma-separated fabrics (%s): every configuration on each, side by side (default: "
                        "shm); hw, and fork-join apps with --threads above 1, run on shm only" % ",".join(FABRICS))
    p.add_argument("--no-hw", action="store_true", help="do not add the hw (hardware-coherent) runs")
    p.add_argument("--no-threads", action="store_true",
                   help="do not add the plain-threads runs (one process of N compute threads for each node "
                        "count N above 1)")
    p.add_argument("--sweep", action="append", default=[], metavar="PARAM=V1,V2,...",
                   help="under the emu fabric, run every configuration at each value of one of %s (e.g. "
                        "interrupt=0us,10us,50us), the other parameters at the base network; repeat the flag "
                        "to sweep several parameters, one at a time" % ", ".join(rdsm_emu.SWEEP_PARAMS))
    p.add_argument("--emu-preset", type=csv, default=None, metavar="LIST",
                   help="emu networks (`rdsm run --help` lists them): every configuration under each; the first "
                        "is the base of the sweeps (default with --sweep: %s)" % SWEEP_BASE_PRESET)
    p.add_argument("--emu", default="", metavar="P=V,...",
                   help="emu settings on top of every preset, as `rdsm run --emu` takes them")
    p.add_argument("--predict", action="store_true",
                   help="with emu networks: also trace every configuration of 2 or more nodes on shm and predict "
                        "its time at each network with rdsm sim, for rdsm report to compare with the emu runs")
    p.add_argument("--apps-file", default=os.path.join(SCRIPT_DIR, "bench_apps.json"),
                   help="the app table (default: bench_apps.json next to this script)")
    a = p.parse_args(argv)
    try:
        a.nodes = [int(n) for n in a.nodes]
    except ValueError:
        p.error("--nodes: not a list of integers")
    if not a.nodes or min(a.nodes) < 1:
        p.error("--nodes: node counts must be >= 1")
    if a.repeat < 1:
        p.error("--repeat must be >= 1")
    if a.short_runs < 1:
        p.error("--short-runs %d: a configuration runs at least once; give 1 for no extra runs" % a.short_runs)
    if a.short_seconds < 0:
        p.error("--short-seconds %g: no phase is that short; give 0 for no extra runs" % a.short_seconds)
    # The output is written once, after every run: checked now, not after hours of runs.
    out_dir = os.path.dirname(os.path.abspath(a.out))
    if os.path.isdir(a.out):
        p.error("--out %s is a directory: name the JSON file to write, e.g. --out %s" % (
            a.out, os.path.join(a.out, "bench.json")))
    if not os.path.isdir(out_dir):
        p.error("--out %s: no directory %s; create it first, or name a file in an existing directory" % (
            a.out, out_dir))
    if not os.access(out_dir, os.W_OK | os.X_OK):
        p.error("--out %s: cannot create files in %s; name a file in a directory you can write" % (a.out, out_dir))
    try:
        a.threads = list(dict.fromkeys(int(t) for t in a.threads))  # each once, in the order given
    except ValueError:
        p.error("--threads: not a list of integers (e.g. 1,2)")
    if not a.threads or not all(1 <= t <= 256 for t in a.threads):
        p.error("--threads: thread counts must be 1 to 256")
    if a.memory is not None:
        bad = [m for m in a.memory if m not in MEMORY_BACKENDS]
        if bad or not a.memory:
            p.error("--memory: unknown backend(s) %s; use %s" % (", ".join(bad) or "(none given)",
                                                                 " and/or ".join(MEMORY_BACKENDS)))
        a.memory = list(dict.fromkeys(a.memory))  # each once, in the order given
    sweeps = []
    for spec in a.sweep:
        try:
            name, values = rdsm_emu.parse_sweep(spec)
        except rdsm_emu.BadValue as e:
            p.error("--sweep %s: %s" % (spec, e))
        if name in [n for n, _ in sweeps]:
            p.error("--sweep %s: %s is swept twice; give all its values in one --sweep" % (spec, name))
        sweeps.append((name, values))
    a.sweep = sweeps
    check_fabrics(p, a)
    try:
        a.emu_settings = rdsm_emu.parse_settings(a.emu)
    except rdsm_emu.BadValue as e:
        p.error("--emu %s: %s" % (a.emu, e))
    if a.emu_preset is not None and not a.emu_preset:
        p.error("--emu-preset: no preset given")
    if a.emu_preset is None and (a.sweep or a.emu):
        a.emu_preset = [SWEEP_BASE_PRESET if a.sweep else "none"]
    if a.emu_preset is not None:
        a.emu_preset = list(dict.fromkeys(a.emu_preset))
    if a.predict and a.emu_preset is None:
        p.error("--predict: no network to predict for; give --emu-preset or --sweep")
    return a


def check_fabrics(p, a):
    """--fabric: known fabrics, each once; not with the emu options (the emu fabric is a fabric of its own)."""
    if a.fabric is None:
        return
    bad = [f for f in a.fabric if f not in FABRICS]
    if bad or not a.fabric:
        p.error("--fabric: unknown fabric(s) %s; use %s" % (", ".join(bad) or "(none given)", " and/or ".join(FABRICS)))
    if a.sweep or a.emu or a.emu_preset is not None:
        p.error("--fabric cannot be combined with --emu-preset, --emu or --sweep: those runs are on the emu fabric; "
                "make them in a sweep of their own")
    a.fabric = list(dict.fromkeys(a.fabric))


def fabric_plan(plan, fabrics):
    """Each entry of the plan once per fabric (the last member of the entry), the fabrics of one configuration
    one after the other.  hw, plain threads, and fork-join apps on nodes of several threads, stay on shm; with
    no --fabric every entry has None (no --fabric given to the launcher)."""
    out = []
    for entry in plan:
        t, p, th = entry[0], entry[3], entry[5]
        only_shm = p in ("hw", THREADS) or (bool(t.get("fork_join")) and th > 1)
        for f in (fabrics or [None]):
            if only_shm and f not in (None, "shm"):
                continue
            out.append(entry + (f,))
        if only_shm and fabrics and "shm" not in fabrics:
            out.append(entry + ("shm",))
    return out


def short_rounds(done, a):
    """The entries of the extra rounds (SHORT_RUNS): in every configuration (app, size, nodes, threads,
    memory, network, fabric), the entry of each protocol whose median parallel time there is under
    --short-seconds, hw included, again, up to --short-runs runs in all; round by round, the short protocols'
    order reversed every other round."""
    if a.short_runs <= a.repeat:
        return []
    configs = {}  # key -> {protocol: (first entry, [parallel seconds])}, in the plan's order
    for item, rec in done:
        t, _prog, s, p, n, th, _repeat, m, pt, fabric = item
        key = (t["name"], s, n, th, m, json.dumps(pt, sort_keys=True), fabric)
        entry = configs.setdefault(key, {}).setdefault(p, (item, []))
        if rec.get("ok") and rec.get("parallel_seconds") is not None:
            entry[1].append(rec["parallel_seconds"])
    short = [[(item, times) for item, times in by_protocol.values()
              if times and statistics.median(times) < a.short_seconds] for by_protocol in configs.values()]
    short = [entries for entries in short if entries]
    rounds = []
    for k in range(a.short_runs - a.repeat):
        for entries in short:
            for item, _ in (entries if k % 2 else entries[::-1]):
                t, prog, s, p, n, th, _repeat, m, pt, fabric = item
                rounds.append((t, prog, s, p, n, th, a.repeat + k, m, pt, fabric))
    return rounds


def fabric_args(fabric):
    return [] if fabric is None else ["--fabric", fabric]


def fmt_time(s):
    if s is None:
        return "--:--"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return "%d:%02d:%02d" % (h, m, sec) if h else "%02d:%02d" % (m, sec)


class Progress:
    """One updating line on stderr (a plain line per step when stderr is not a terminal)."""

    def __init__(self, total):
        self.total = total
        self.done = 0
        self.t0 = time.monotonic()
        self.run_seconds = []
        self.tty = sys.stderr.isatty()
        self.width = 0

    def show(self, current):
        elapsed = time.monotonic() - self.t0
        eta = statistics.mean(self.run_seconds) * (self.total - self.done) if self.run_seconds else None
        pct = 100.0 * self.done / self.total if self.total else 100.0
        barw = 20
        fill = int(barw * self.done / self.total) if self.total else barw
        line = "[%s%s] %d/%d %3.0f%% elapsed %s ETA %s  %s" % (
            "#" * fill, "." * (barw - fill), self.done, self.total, pct, fmt_time(elapsed), fmt_time(eta), current)
        if self.tty:
            cols = 200
            try:
                cols = os.get_terminal_size(sys.stderr.fileno()).columns or cols  # 0: size unknown
            except OSError:
                pass
            line = line[:max(cols - 1, 20)]
            sys.stderr.write("\r" + line + " " * max(0, self.width - len(line)))
            self.width = len(line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def step(self, seconds):
        self.done += 1
        self.run_seconds.append(seconds)

    def finish(self):
        if self.tty:
            self.show("done")
            sys.stderr.write("\n")
            sys.stderr.flush()


def tail(text, lines=12):
    return "\n".join(text.rstrip().splitlines()[-lines:])


def shape_text(nodes, threads):
    """How progress lines name a run's nodes: "2", or "2x2" on nodes of several threads."""
    return "%d" % nodes if threads == 1 else "%dx%d" % (nodes, threads)


def with_nodes(args, nodes):
    # Plain replacement rather than str.format: other braces in an argument stay as they are.
    return [str(x).replace(NODES_PLACEHOLDER, str(nodes)) for x in args]


def check_app(t, apps_file):
    """Exits with a message if table entry t cannot be run as written."""
    name = t.get("name", "?")
    for key in ("name", "program", "sizes"):
        if key not in t:
            sys.exit("rdsm_bench: %s: app %s has no \"%s\"" % (apps_file, name, key))
    if t.get("fork_join"):
        # Without the placeholder every node count would run the same single process.
        lacking = [s for s, args in t["sizes"].items() if not any(NODES_PLACEHOLDER in str(x) for x in args)]
        if lacking:
            sys.exit("rdsm_bench: %s: fork-join app %s gets no %s in its arguments for size(s) %s" % (
                apps_file, name, NODES_PLACEHOLDER, ", ".join(lacking)))


def emu_points(a, presets):
    """The networks every configuration runs at: [None] off the emu fabric, else the base network first,
    then each swept value that differs from it, then the other presets.  Exits if a preset is unknown."""
    if a.emu_preset is None:
        return [None]
    if presets is None:
        sys.exit("rdsm_bench: cannot read the emu presets from `rdsm run --help`")
    bad = [n for n in a.emu_preset if n not in presets]
    if bad:
        sys.exit("rdsm_bench: unknown emu preset(s) %s; the launcher offers: %s" % (", ".join(bad), ", ".join(presets)))
    settings = ",".join("%s=%s" % kv for kv in a.emu_settings)

    def point(kind, preset, extra=(), param=None, value=None):
        return {"kind": kind, "param": param, "value": value, "preset": preset,
                "settings": ",".join(x for x in [settings] + ["%s=%s" % kv for kv in extra] if x),
                "params": rdsm_emu.apply_settings(presets[preset], list(a.emu_settings) + list(extra))}

    base = point("base", a.emu_preset[0])
    points = [base]
    for name, values in a.sweep:
        for v in values:
            pt = point("sweep", base["preset"], [(name, v)], name, v)
            if pt["params"] != base["params"]:  # the base value is the base point itself
                points.append(pt)
    points += [point("preset", name) for name in a.emu_preset[1:]]
    return points


def point_label(pt):
    """How progress lines and failure lists name a network."""
    if pt is None:
        return ""
    if pt["kind"] == "sweep":
        return " %s=%s" % (pt["param"], pt["value"])
    return " " + pt["preset"] + (" + " + pt["settings"] if pt["settings"] else "")


def point_args(pt):
    if pt is None:
        return []
    return ["--emu-preset", pt["preset"]] + (["--emu", pt["settings"]] if pt["settings"] else [])


def run_one(rdsm, prog, args, protocol, nodes, timeout, tmpdir, launcher_args=(), memory=None, point=None,
            threads=1):
    """One `rdsm run -n nodes`; `nodes` is the number of processes the launcher starts; memory: the
    backend to ask for (None: no --memory); point: the emu network to run at (None: not under emu)."""
    stats_path = os.path.join(tmpdir, "stats.json")
    if os.path.exists(stats_path):
        os.unlink(stats_path)
    cmd = [rdsm, "run", "-n", str(nodes)] + ([] if threads == 1 else ["--threads", str(threads)]) + \
        ["--protocol", protocol, "--quiet", "--timeout", "%g" % timeout,
           "--stats", stats_path] + ([] if memory is None else ["--memory", memory]) + point_args(point) + \
        list(launcher_args) + [prog] + list(args)
    rec = {"memory": memory, "memory_requested": memory, "command": cmd, "wall_seconds": None, "exit_status": None, "verdict": None,
           "parallel_seconds": None, "sequential_seconds": None, "stats": None, "error": None}
    t0 = time.monotonic()
    try:
        out, status, timed_out = run_job(cmd, timeout + WAIT_SLACK)
    except OSError as e:
        rec["error"] = "cannot start %s: %s" % (rdsm, e)
        rec["wall_seconds"] = 0.0
        rec["ok"] = False
        return rec
    if timed_out:
        rec["error"] = "launcher gave no answer after %g s; killed" % (timeout + WAIT_SLACK)
    rec["wall_seconds"] = time.monotonic() - t0
    rec["exit_status"] = status
    text = out.decode("utf-8", "replace")
    verdict = None
    for line in text.splitlines():
        if line.startswith("PASS"):
            verdict = verdict or "PASS"
        elif line.startswith("FAIL"):
            verdict = "FAIL"
    rec["verdict"] = verdict
    m = PARALLEL_RE.search(text)
    if m:
        rec["parallel_seconds"] = float(m.group(1))
    m = SEQUENTIAL_RE.search(text)
    if m:
        rec["sequential_seconds"] = float(m.group(1))
    try:
        with open(stats_path, encoding="utf-8") as fh:
            rec["stats"] = json.load(fh)
        if rec["stats"].get("wall_seconds") is not None:
            rec["launcher_wall_seconds"] = rec["stats"]["wall_seconds"]
        if rec["stats"].get("memory"):
            rec["memory"] = rec["stats"]["memory"]  # the backend that ran
        rec["fabric"] = rec["stats"].get("fabric")
        rec["emu"] = rec["stats"].get("emu")
    except (OSError, ValueError, AttributeError):
        pass
    if rec["error"] is None:
        if status == 124:
            rec["error"] = "timed out (rdsm run --timeout %g)" % timeout
        elif status != 0:
            rec["error"] = "exit status %d" % status
        elif verdict != "PASS":
            rec["error"] = "verdict %s" % (verdict or "missing (no PASS line)")
    if rec["error"] is None and memory is not None and rec["memory"] != memory:
        rec["error"] = "asked for memory backend %s, the nodes ran %s" % (memory, rec["memory"])
    if rec["error"] is None and point is not None and not rdsm_emu.same_network((rec.get("emu") or {}).get("params"),
                                                                                  point["params"]):
        rec["error"] = "asked for emu network %s, the launcher ran %s" % (
            rdsm_emu.describe(point["params"]), (rec.get("emu") or {}).get("described"))
    rec["ok"] = rec["error"] is None
    if not rec["ok"]:
        rec["output_tail"] = tail(text)
        m = BACKEND_UNAVAILABLE_RE.search(text)
        if m and memory is not None and m.group(1) == memory:
            rec["backend_unavailable"] = m.group(2).split("; use --memory")[0].strip()
    return rec


TRACE_POINT = "trace"  # the plan's entry for a traced shm run (--predict)


def predict(trace_path, rec, points):
    """rdsm sim's predictions of a traced run at each emu point: [{point, predicted_seconds}], or an error."""
    handler = (rec.get("stats") or {}).get("handler") or "interrupt"
    try:
        lines = rdsm_sim.node_timelines(rdsm_sim.load_trace(trace_path))
        measured = max(f["measured"] for f in rdsm_sim.simulate(lines, rdsm_sim.Network({}, False)).values())
        out = []
        for pt in points:
            figs = rdsm_sim.simulate(lines, rdsm_sim.Network(pt["params"], handler == "interrupt"))
            predicted = max(f["predicted"] for f in figs.values())
            # The replay times the part between the statistics reset and read;
            # the program's clock is scaled alike.
            scale = rec["parallel_seconds"] / (measured / 1e9) if measured and rec.get("parallel_seconds") else None
            out.append({"point": pt, "predicted_seconds": predicted / 1e9 * scale if scale else predicted / 1e9})
        return out, None
    except rdsm_sim.SimError as e:
        return [], str(e)


def plan_runs(a, apps, protocols, hw, threads_base, points):
    """The runs to make, in order, before the fabrics are added: (app, program, size, protocol, nodes,
    threads, repeat, memory, point) each.  With threads_base, the plain-threads runs too: protocol THREADS,
    1 node of N threads for each node count N above 1 (once, with the configurations of one thread a node).

    Repetitions are the outer loop, so load from elsewhere spreads over every configuration; the backends
    and then the emu networks the inner ones, so the runs compared across backends or networks are made
    side by side, the backends' order alternating from one repeat to the next.  The protocols' order
    alternates too (hw last, then first): a speedup is compared with hw's, and a machine that slows down
    for a while should not always slow the same one of the two."""
    memories = a.memory or [None]
    in_order = protocols + (["hw"] if hw else []) + ([THREADS] if threads_base else [])
    plan = []
    for r in range(a.repeat):
        for t, prog in apps:
            for s in a.sizes:
                for p in (in_order if r % 2 == 0 else in_order[::-1]):
                    for n in a.nodes:
                        for th in a.threads:
                            if p == THREADS and (n == 1 or th != 1):
                                continue
                            shape = (1, n) if p == THREADS else (n, th)
                            for m in (memories if r % 2 == 0 else memories[::-1]):
                                if a.predict and p not in ("hw", THREADS) and n > 1 and th == 1:
                                    plan.append((t, prog, s, p, n, th, r, m, TRACE_POINT))
                                for pt in (points[:1] if p in ("hw", THREADS) else points):
                                    plan.append((t, prog, s, p) + shape + (r, m, pt))
    return plan


def main(argv):
    a = parse_args(argv)
    stop_on_sigterm()
    build = os.path.abspath(a.build)
    rdsm = os.path.join(build, "rdsm")
    if not (os.path.isfile(rdsm) and os.access(rdsm, os.X_OK)):
        sys.exit("rdsm_bench: no launcher at %s (build the project, or give --build DIR)" % rdsm)
    try:
        with open(a.apps_file, encoding="utf-8") as fh:
            table = json.load(fh)["apps"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit("rdsm_bench: cannot read the app table %s: %s" % (a.apps_file, e))
    for t in table:
        check_app(t, a.apps_file)
    by_name = {t["name"]: t for t in table}

    known = launcher_protocols(rdsm)
    notes = []
    if a.protocols is None:
        protocols = [p for p in DEFAULT_PROTOCOLS if known is None or p in known]
    else:
        protocols = a.protocols
        if known is not None:
            bad = [p for p in protocols if preset_of(p) not in known]
            if bad:
                sys.exit("rdsm_bench: unknown protocol(s) %s; the launcher knows: %s%s" % (
                    ", ".join(bad), ", ".join(known),
                    " (plain threads are run unless --no-threads)" if THREADS in bad else ""))
    hw = (not a.no_hw) and known is not None and "hw" in known and "hw" not in protocols
    if not a.no_hw and not hw and "hw" not in protocols:
        notes.append("the launcher has no hw protocol: no hardware-coherent runs")
    # One node has no coherence to keep: any preset runs plain threads; hw's is the machine's memory alone.
    threads_preset = "hw" if known is None or "hw" in known else (protocols or [None])[0]
    # Not under emu networks: one process has no network to emulate.
    threads_base = (not a.no_threads and threads_preset is not None and any(n > 1 for n in a.nodes) and
                    a.emu_preset is None)

    names = a.apps if a.apps is not None else [t["name"] for t in table]
    apps = []
    for n in names:
        if n not in by_name:
            sys.exit("rdsm_bench: unknown app '%s'; the table (%s) has: %s" % (n, a.apps_file, ", ".join(by_name)))
        t = by_name[n]
        prog = find_program(build, t["program"])
        if prog is None:
            notes.append("skipped %s: program %s is not in %s/apps" % (n, t["program"], build))
            continue
        for s in a.sizes:
            if s not in t["sizes"]:
                sys.exit("rdsm_bench: app %s has no size '%s' (has: %s)" % (n, s, ", ".join(t["sizes"])))
        apps.append((t, prog))
    out = os.path.abspath(a.out)  # checked by parse_args
    points = emu_points(a, rdsm_emu.launcher_presets(rdsm) if a.emu_preset is not None else None)
    for note in notes:
        print("note: " + note, file=sys.stderr)

    plan = plan_runs(a, apps, protocols, hw, threads_base, points)
    plan = fabric_plan(plan, a.fabric)

    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    runs = []
    predictions = []
    unavailable = {}  # backend -> why it cannot run here
    progress = Progress(len(plan))

    def execute(item, tmpdir):
        """Runs one entry of the plan into runs or predictions; False where its backend cannot run here."""
        t, prog, s, p, n, th, r, m, pt, fabric = item
        if m in unavailable:
            progress.step(0.0)
            return False
        traced = pt == TRACE_POINT
        progress.show("%s %s %s%s%s%s n=%s rep %d" % (t["name"], s, p, "" if m is None else " " + m,
                                                         " traced for rdsm sim" if traced else point_label(pt),
                                                         "" if fabric is None else " " + fabric,
                                                         shape_text(n, th), r + 1))
        fork_join = bool(t.get("fork_join"))
        # {nodes}: the workers, one per compute thread (a fork-join app forms them T to a node).
        args = with_nodes(t["sizes"][s], n * th)
        if traced:
            trace_path = os.path.join(tmpdir, "trace.json")
            launched = 1 if fork_join else n
            rec = run_one(rdsm, prog, args, p, launched, a.timeout, tmpdir,
                          with_nodes(t.get("launcher_args", {}).get(s, []), n * th) + ["--trace", trace_path],
                          m, None, th)
            pred = {"app": t["name"], "size": s, "protocol": p, "nodes": n, "threads": th, "repeat": r,
                    "memory": rec.get("memory"), "memory_requested": m, "ok": rec["ok"],
                    "error": rec["error"], "parallel_seconds": rec["parallel_seconds"], "predicted": []}
            if rec["ok"]:
                pred["predicted"], pred["error"] = predict(trace_path, rec, points)
                pred["ok"] = pred["error"] is None
            if os.path.exists(trace_path):
                os.unlink(trace_path)
            predictions.append(pred)
            progress.step(rec["wall_seconds"] or 0.0)
            return True
        rec = {"app": t["name"], "program": t["program"], "size": s, "protocol": p, "nodes": n,
               "threads": th, "fork_join": fork_join, "size_args": t["sizes"][s], "args": args, "repeat": r}
        if pt is not None:
            rec["emu_point"] = pt
        if fabric is not None:
            rec["fabric"] = fabric  # what was asked for, until the launcher's record says what ran
        # A fork-join app is one process that forks its workers, except
        # on the mpi fabric, where its workers are the job's ranks.
        launched = 1 if fork_join and fabric != "mpi" else n
        rec.update(run_one(rdsm, prog, args, threads_preset if p == THREADS else p, launched, a.timeout, tmpdir,
                           with_nodes(t.get("launcher_args", {}).get(s, []), n * th) + fabric_args(fabric), m,
                           pt, th))
        runs.append(rec)
        progress.step(rec["wall_seconds"] or 0.0)
        if rec.get("backend_unavailable"):
            unavailable[m] = rec["backend_unavailable"]
            note = "the %s memory backend cannot run here (%s): its other runs were skipped" % (
                m, rec["backend_unavailable"])
            notes.append(note)
            sys.stderr.write("\nnote: %s\n" % note)
        return True

    skipped = 0
    done = []  # (entry of the plan, its run)
    extra = []
    with tempfile.TemporaryDirectory(prefix="rdsm_bench.") as tmpdir:
        try:
            for item in plan:
                before = len(runs)
                skipped += not execute(item, tmpdir)
                if len(runs) > before:
                    done.append((item, runs[-1]))
            extra = short_rounds(done, a)
            if extra:
                note = ("%d runs more for the protocols whose parallel phase in a configuration took under %g s, "
                        "%d runs each in all (--short-runs)" % (len(extra), a.short_seconds, a.short_runs))
                notes.append(note)
                sys.stderr.write("\nnote: %s\n" % note)
                progress.total += len(extra)
                for item in extra:
                    skipped += not execute(item, tmpdir)
        except KeyboardInterrupt:
            sys.stderr.write("\ninterrupted: writing the %d runs done so far\n" % len(runs))
        progress.finish()

    doc = {
        "tool": "rdsm_bench",
        "started": started,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "build": build,
        "host": os.uname().nodename,
        "cpus": os.cpu_count(),
        "config": {"apps": [t["name"] for t, _ in apps], "protocols": protocols, "hw": hw,
                   "threads_baseline": threads_base, "nodes": a.nodes,
                   "threads": a.threads, "sizes": a.sizes, "repeat": a.repeat, "short_runs": a.short_runs,
                   "short_seconds": a.short_seconds, "timeout": a.timeout, "memory": a.memory,
                   "fabric": a.fabric,
                   "emu": None if a.emu_preset is None else {
                       "presets": a.emu_preset, "settings": a.emu, "base": points[0],
                       "sweeps": [{"param": n, "values": v} for n, v in a.sweep]}},
        "memory_ran": sorted({r["memory"] for r in runs if r.get("memory")}),
        "notes": notes,
        "runs": runs,
    }
    if a.predict:
        doc["config"]["predict"] = True
        doc["predictions"] = predictions
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, out)

    failed = [r for r in runs if not r["ok"]]
    print("%d runs, %d failed%s; wrote %s" % (len(runs), len(failed),
                                              ", %d skipped" % skipped if skipped else "", out))
    bad_predictions = [q for q in predictions if not q["ok"]]
    if predictions:
        print("%d traced runs for rdsm sim, %d failed" % (len(predictions), len(bad_predictions)))
    for q in bad_predictions:
        print("  traced %s size %s, protocol %s, %d nodes, repeat %d: %s" % (
            q["app"], q["size"], q["protocol"], q["nodes"], q["repeat"] + 1, q["error"]))
    for note in notes:
        print("note: " + note)
    if failed:
        print("\nFAILED runs:")
        for r in failed:
            print("  %s size %s, protocol %s%s%s%s, %d nodes%s, repeat %d: %s" % (
                r["app"], r["size"], r["protocol"],
                ", memory %s" % r["memory_requested"] if r.get("memory_requested") else "",
                ", network" + point_label(r["emu_point"]) if r.get("emu_point") else "",
                ", fabric %s" % r["fabric"] if r.get("fabric") and r["fabric"] != "shm" else "",
                r["nodes"], " of %d threads" % r["threads"] if r["threads"] != 1 else "", r["repeat"] + 1,
                r["error"]))
            for line in (r.get("output_tail") or "").splitlines():
                print("      | " + line)
    if len(runs) + len(predictions) + skipped < len(plan) + len(extra):
        return 130
    return 1 if failed or bad_predictions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
