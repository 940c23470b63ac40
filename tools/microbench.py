#!/usr/bin/env python3
"""Runs the rdsm micro-benchmarks for every protocol preset and prints one
table with the presets as columns; with --memory mprotect,uffd every figure
has a row per memory backend, so the backends stand side by side (and a
uffd/mprotect row, their ratio).

Every program (micro_page, micro_diff, micro_lock, micro_barrier,
micro_pause, micro_fault, micro_fault_hops) is run --repeat times per preset through `rdsm run --quiet
--timeout 120`; each figure in the table is the median over those runs.
micro_lock and micro_barrier also run on nodes of several compute threads
(--threads): a lock handed between two threads of one node and between
nodes, and barriers of N x T threads.
The repetitions are the outer loop, so a burst of load from elsewhere on the
machine touches every preset rather than one; the runs of one program and
preset under the different backends follow one another.  Without --memory no
backend is asked for and the nodes use their default; the header says which
ran (from the launcher's --stats).  A backend that cannot run on this
machine (uffd where the kernel refuses userfaultfd) fails its first run with
the launcher's reason; its other runs are skipped ("n/a").  --json FILE keeps
every raw result next to the medians.

After the tables (--no-pingpong leaves it out, --programs micro_pingpong
runs it alone): a message's round trip
between 2 nodes under each handler mode (micro_pingpong), with the receiver
computing and with it waiting in rdsm, as the Multiview papers' ping-pong
table of receive contexts: spin (their polling), interrupt (task queue),
signal (process) and poll (their selective polling).

A run that fails (non-zero exit, timeout, FAIL verdict, no result) is
reported with the program, preset and node count, its cell in the table
shows FAIL, and the script exits non-zero after printing everything else.

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

from microbench_report import MEMORY_BACKENDS, PINGPONG_CASES, PINGPONG_LAYOUTS, PINGPONG_MODES, Column, print_result
from launch_job import run_job, stop_on_sigterm
from rdsm_build_query import find_program, launcher_protocols, preset_of

KNOWN_PROTOCOLS = ["rdsm", "async", "ardmar", "draw", "newgen", "genima"]
# Columns beside the presets by default: sc's base protocol of the papers
# (everything in messages), beside sc itself, whose default read misses (the
# papers' RDMA-R: one-sided reads where the owner need not be disturbed) are
# the ones to set beside the HLRC presets' remote fetch.
EXTRA_COLUMNS = {"sc": ["sc+fetch=message"]}
LAUNCH_TIMEOUT = 120  # seconds, passed to rdsm run --timeout
# What a node prints when the backend asked for cannot work on this machine.
BACKEND_UNAVAILABLE_RE = re.compile(r"the (\w+) memory backend cannot run here: ([^\n]*)")
WAIT_SLACK = 30       # extra seconds before this script gives up on a launcher


# ---- what is run ---------------------------------------------------------

class Run:
    """One program invocation per preset (and per repetition)."""

    def __init__(self, key, program, nodes, args, quick_args, handler="interrupt", only=None, threads=1, axes=None):
        self.key = key
        self.axes = axes  # rdsm run --axes, for every preset
        self.program = program
        self.nodes = nodes
        self.threads = threads
        self.args = args
        self.quick_args = quick_args
        self.handler = handler
        self.only = only  # None: every preset; else the presets it runs for

    def applies_to(self, preset):
        return self.only is None or preset in self.only

    def describe(self, preset):
        return "%s, preset %s, %s, handler %s" % (self.program, preset, self.shape(), self.handler)

    def shape(self):
        """n=2, or n=2x2 for 2 nodes of 2 threads."""
        return "%d nodes" % self.nodes if self.threads == 1 else "%d nodes x %d threads" % (self.nodes, self.threads)


NO_HOMES = {"sc"}  # presets without the home axis (Run.axes is not passed to them)


def runs():
    page_q = ["--pages", "64"]
    r = []
    for n in (2, 3, 4):
        r.append(Run("page.n%d" % n, "micro_page", n, [], page_q))
    for n in (2, 3, 4):
        r.append(Run("page.poll.n%d" % n, "micro_page", n, [], page_q, handler="poll", only=["async"]))
    for size in ("small", "large"):
        # Homes fixed: under home=migrate node 1's pages would move to it
        # after its first writes, and the round timed would have no diffs.
        r.append(Run("diff." + size, "micro_diff", 2, ["--size", size], ["--size", size, "--pages", "64"],
                     axes="home=fixed"))
    lock_q = ["--count", "200"]
    r.append(Run("lock.n2", "micro_lock", 2, [], lock_q))
    r.append(Run("lock.n4", "micro_lock", 4, [], lock_q))
    for n in (2, 4):
        r.append(Run("barrier.n%d" % n, "micro_barrier", n, [], ["--rounds", "200"]))
    # Nodes of several threads: cohort locks and hierarchical barriers.
    for n, t in ((1, 2), (2, 2)):
        r.append(Run("lock.n%dt%d" % (n, t), "micro_lock", n, [], lock_q, threads=t))
    for n, t in ((1, 4), (2, 2)):
        r.append(Run("barrier.n%dt%d" % (n, t), "micro_barrier", n, [], ["--rounds", "200"], threads=t))
    r.append(Run("fault", "micro_fault", 2, [], ["--pages", "64"]))
    # A fork-join program: one process, which forks its worker.
    r.append(Run("pause", "micro_pause", 1, [], ["--rounds", "200"]))
    r.append(Run("fault_hops", "micro_fault_hops", 3, [], ["--pages", "32"]))
    return r


def get(*path, scale=1.0):
    """Extractor: the number at path in a program's JSON result, scaled."""

    def extract(res):
        v = res
        for p in path:
            v = v[p]
        return float(v) * scale

    return extract


class Figure:
    """One table row: a number taken from the result of one Run."""

    def __init__(self, key, label, unit, run_key, extract, group):
        self.key = key
        self.label = label
        self.unit = unit
        self.run_key = run_key
        self.extract = extract
        self.group = group


def figures():
    f = []
    g = "page fetch (micro_page, all other nodes read from node 0)"
    for n in (2, 3, 4):
        f.append(Figure("page_fetch_us.n%d" % n, "fetch, %d nodes" % n, "us/page", "page.n%d" % n,
                        get("mean_us_per_page"), g))
    for n in (2, 3, 4):
        f.append(Figure("page_fetch_us.poll.n%d" % n, "fetch, %d nodes, --handler poll" % n, "us/page",
                        "page.poll.n%d" % n, get("mean_us_per_page"), g))
    g = "diffs (micro_diff, 2 nodes, node 1 writes pages homed at node 0; homes fixed)"
    for size in ("small", "large"):
        f.append(Figure("diff_%s_writer_us" % size, "%s: compute at writer" % size, "us/page", "diff." + size,
                        get("writer_diff_us_per_page"), g))
        f.append(Figure("diff_%s_home_us" % size, "%s: apply at home (handler)" % size, "us/page", "diff." + size,
                        get("home_apply_us_per_page"), g))
    g = "handler time per node during micro_diff"
    for size in ("small", "large"):
        f.append(Figure("diff_%s_handler_ms.node0" % size, "%s: node 0 (home)" % size, "ms", "diff." + size,
                        get("home_stats", "handler", scale=1e3), g))
        f.append(Figure("diff_%s_handler_ms.node1" % size, "%s: node 1 (writer)" % size, "ms", "diff." + size,
                        get("writer_stats", "handler", scale=1e3), g))
    g = "locks (micro_lock; manager of the lock is node 1)"
    f.append(Figure("lock_uncontended_us", "uncontended, node 0, mean", "us", "lock.n2", get("uncontended_us"), g))
    f.append(Figure("lock_first_us", "uncontended, first (remote) acquire", "us", "lock.n2",
                    get("uncontended_first_us"), g))
    f.append(Figure("lock_handoff_us", "hand-off 0 <-> 1, per turn", "us", "lock.n2", get("handoff_us"), g))
    f.append(Figure("lock_contended_us.n2", "contended, 2 nodes, per node", "us", "lock.n2", get("contended_us"), g))
    f.append(Figure("lock_contended_us.n4", "contended, 4 nodes, per node", "us", "lock.n4", get("contended_us"), g))
    g = "barriers (micro_barrier, empty)"
    for n in (2, 4):
        f.append(Figure("barrier_us.n%d" % n, "%d nodes, node 0" % n, "us", "barrier.n%d" % n, get("node0_us"), g))
        f.append(Figure("barrier_max_us.n%d" % n, "%d nodes, max over nodes" % n, "us", "barrier.n%d" % n,
                        get("max_us"), g))
    g = "locks on nodes of threads (micro_lock --threads; N x T = nodes x threads per node)"
    f.append(Figure("lock_thread_handoff_us.n1t2", "hand-off within a node, 1x2, per turn", "us", "lock.n1t2",
                    get("thread_handoff_us"), g))
    f.append(Figure("lock_thread_handoff_us.n2t2", "hand-off within a node, 2x2, per turn", "us", "lock.n2t2",
                    get("thread_handoff_us"), g))
    f.append(Figure("lock_handoff_us.n2t2", "hand-off across nodes, 2x2, per turn", "us", "lock.n2t2",
                    get("handoff_us"), g))
    f.append(Figure("lock_contended_us.n1t2", "contended, 1x2, per thread", "us", "lock.n1t2",
                    get("contended_us"), g))
    f.append(Figure("lock_contended_us.n2t2", "contended, 2x2, per thread", "us", "lock.n2t2",
                    get("contended_us"), g))
    g = "barriers on nodes of threads (micro_barrier --threads, empty)"
    for n, t in ((1, 4), (2, 2)):
        f.append(Figure("barrier_us.n%dt%d" % (n, t), "%dx%d, node 0" % (n, t), "us", "barrier.n%dt%d" % (n, t),
                        get("node0_us"), g))
        f.append(Figure("barrier_max_us.n%dt%d" % (n, t), "%dx%d, max over nodes" % (n, t), "us",
                        "barrier.n%dt%d" % (n, t), get("max_us"), g))
    g = "SPLASH pause flags (micro_pause, 2 processes of a fork-join program, SETPAUSE / WAITPAUSE in turns)"
    f.append(Figure("pause_idle_us", "hand-off, no work between", "us", "pause", get("idle_us"), g))
    f.append(Figure("pause_busy_us", "hand-off after 200 us of work (beyond the work)", "us", "pause",
                    get("busy_us"), g))
    g = "faults at node 1 (micro_fault, 2 nodes)"
    f.append(Figure("fault_read_us", "read fault (fetch)", "us", "fault", get("read_us"), g))
    f.append(Figure("fault_read_again_us", "read fault, page held before", "us", "fault", get("read_again_us"), g))
    f.append(Figure("fault_twin_us", "write fault, twin", "us", "fault", get("twin_us"), g))
    f.append(Figure("fault_home_us", "write fault, home page", "us", "fault", get("home_us"), g))
    g = "faults by type at node 1 (micro_fault_hops, 3 nodes, pages node 0 owns)"
    f.append(Figure("fault_read_miss_us", "read miss", "us", "fault_hops", get("read_miss_us"), g))
    f.append(Figure("fault_upgrade_us", "upgrade (write to a read-only copy)", "us", "fault_hops",
                    get("upgrade_us"), g))
    f.append(Figure("fault_write_miss_us", "write miss", "us", "fault_hops", get("write_miss_us"), g))
    f.append(Figure("fault_read_3hop_us", "read miss, manager a third node (sc)", "us", "fault_hops",
                    get("read_3hop_us"), g))
    f.append(Figure("fault_read_shared_us", "read miss, owner read-only (sc: RDMA-R, fetch=one-sided)", "us",
                    "fault_hops", get("read_shared_us"), g))
    f.append(Figure("fault_read_produced_us", "read miss, page its owner wrote again since (sc: read-only at the barrier "
                    "under fetch=one-sided)", "us", "fault_hops", get("read_produced_us"), g))
    return f


# ---- running ---------------------------------------------------------------


def tail(text, lines=8):
    return "\n".join(text.rstrip().splitlines()[-lines:])


def memory_ran(stats_path):
    """The memory backend the launcher's --stats file names, or None."""
    try:
        with open(stats_path, encoding="utf-8") as fh:
            return json.load(fh).get("memory") or None
    except (OSError, ValueError, AttributeError):
        return None


def run_once(rdsm, prog_path, run, column, quick, tmpdir):
    """Runs one program once.  Returns (result dict or None, error text or None, seconds, the memory
    backend the nodes ran or None)."""
    res, err, secs = run_program(rdsm, prog_path, run, column, quick, tmpdir)
    return res, err, secs, memory_ran(os.path.join(tmpdir, "stats.json"))


def run_program(rdsm, prog_path, run, column, quick, tmpdir):
    preset = column.preset
    out_json = os.path.join(tmpdir, "result.json")
    stats_json = os.path.join(tmpdir, "stats.json")
    for f in (out_json, stats_json):
        if os.path.exists(f):
            os.unlink(f)
    args = run.quick_args if quick else run.args
    cmd = [rdsm, "run", "-n", str(run.nodes), "--threads", str(run.threads), "--protocol", preset,
           "--handler", run.handler, "--quiet",
           "--timeout", str(LAUNCH_TIMEOUT), "--stats", stats_json] + \
        ([] if column.memory is None else ["--memory", column.memory]) + \
        ([] if run.axes is None or preset_of(preset) in NO_HOMES else ["--axes", run.axes]) + [prog_path] + args + \
        ["--json", out_json]
    t0 = time.monotonic()
    try:
        out, status, timed_out = run_job(cmd, LAUNCH_TIMEOUT + WAIT_SLACK)
    except OSError as e:
        return None, "cannot start %s: %s" % (rdsm, e), 0.0
    if timed_out:
        return None, "no answer after %d s; killed\n%s" % (LAUNCH_TIMEOUT + WAIT_SLACK,
                                                           tail(out.decode("utf-8", "replace"))), \
            time.monotonic() - t0
    seconds = time.monotonic() - t0
    text = out.decode("utf-8", "replace")
    if status != 0:
        why = "timed out (rdsm run --timeout %d)" % LAUNCH_TIMEOUT if status == 124 else \
            "exit status %d" % status
        return None, "%s\n%s" % (why, tail(text)), seconds
    try:
        with open(out_json, encoding="utf-8") as fh:
            res = json.load(fh)
    except (OSError, ValueError) as e:
        return None, "no usable --json result (%s)\n%s" % (e, tail(text)), seconds
    if res.get("pass") is not True:
        return None, "the program reported FAIL\n%s" % tail(text), seconds
    return res, None, seconds


# ---- output ----------------------------------------------------------------

def columns_of(columns, preset, memories):
    """The columns of one preset, in the order of `memories`."""
    by_memory = {c.memory: c for c in columns if c.preset == preset}
    return [by_memory[m] for m in memories]


def standalone_program(build, name, extra_args):
    """Runs a micro-benchmark that measures the kernel and the protection
    backends, not a preset (started directly, no rdsm run): its table (the
    lines of its output that start with two spaces) and its JSON figures,
    or None where it is not built or cannot run."""
    prog = os.path.join(build, "apps", name)
    if not os.path.exists(prog):
        return None
    with tempfile.TemporaryDirectory(prefix="rdsm-microbench-") as tmp:
        path = os.path.join(tmp, name + ".json")
        try:
            done = subprocess.run([prog, "--json", path] + extra_args, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode != 0 or not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as fh:
            figures = json.load(fh)
    lines = [l for l in done.stdout.splitlines() if l.startswith("  ")]
    return {"text": "".join(l + "\n" for l in lines), "figures": figures}


def uffd_delivery(build, quick):
    """micro_uffd_delivery: a uffd fault delivered by signal and by thread."""
    return standalone_program(build, "micro_uffd_delivery", ["--pages", "256", "--rounds", "3"] if quick else [])


def page_groups(build, quick):
    """micro_protect: one protection change for a group of 1, 8 or 64 pages,
    for each backend, against one change per page."""
    return standalone_program(build, "micro_protect", ["--pages", "256", "--rounds", "3"] if quick else [])


def write_detection(build, quick):
    """micro_detect: finding the written pages, per page written, by write
    faults (each backend) and by a scan (uffd's scan mode)."""
    return standalone_program(build, "micro_detect", ["--pages", "256", "--rounds", "3"] if quick else [])


def masked_writes(build, quick):
    """micro_masked: a diff's byte-masked write of a page, every way the CPU
    has, and the way the runtime takes."""
    return standalone_program(build, "micro_masked", ["--pages", "512", "--rounds", "3"] if quick else [])


# The emu fabric's charges, one parameter at a time (micro_emu: the cost per
# operation with the emulation minus without, against the model's figure).
EMU_CASES = ["host_overhead=5us", "occupancy=5us", "latency=5us", "bandwidth=1GB/s", "interrupt=10us"]
EMU_ROW_RE = re.compile(r"^(put\+flush|get|fetch_add|round trip)\s+(\d+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)"
                        r"\s+([-\d.]+)\s+(\S+)(\s+OUT OF TOLERANCE)?")


def emu_charges(rdsm, build, quick):
    """Runs micro_emu under each of EMU_CASES: its rows (operation, bytes,
    base/emu us per op, charged, asked, within tolerance) per case, or the
    error of a case that could not run."""
    prog = find_program(build, "micro_emu")
    if not prog:
        return [{"setting": c, "rows": [], "error": "micro_emu is not in the build"} for c in EMU_CASES]
    # One CPU: the round trips' base delivery is then a context switch, not
    # the wake-up of an idle CPU that the emulation's busy-waiting changes.
    counts = ["--one-cpu", "1"] + (["--trials", "5", "--ops", "40"] if quick else ["--trials", "31", "--retries", "2"])
    out = []
    for setting in EMU_CASES:
        cmd = [rdsm, "run", "-n", "2", "--quiet", "--timeout", str(LAUNCH_TIMEOUT), "--emu", setting, prog] + counts
        case = {"setting": setting, "rows": [], "error": None}
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT + WAIT_SLACK)
        except (OSError, subprocess.TimeoutExpired) as e:
            case["error"] = str(e)
            out.append(case)
            continue
        for line in done.stdout.splitlines():
            m = EMU_ROW_RE.match(line)
            if m:
                case["rows"].append({"operation": m.group(1), "bytes": int(m.group(2)),
                                     "base_us": float(m.group(3)), "emu_us": float(m.group(4)),
                                     "charged_us": float(m.group(5)), "asked_us": float(m.group(6)),
                                     "error": m.group(7), "within_tolerance": not m.group(8)})
        if not case["rows"]:
            case["error"] = tail(done.stderr or done.stdout, 3) or "exit status %d" % done.returncode
        out.append(case)
    return out


def handler_round_trips(rdsm, build, repeat, quick):
    """Runs micro_pingpong under every handler mode and CPU layout, the
    repetitions as the outer loop; returns per layout, mode and case the
    median over runs of each run's median round trip (us), the runs'
    figures and the errors."""
    prog = find_program(build, "micro_pingpong")
    if not prog:
        return {"error": "micro_pingpong is not in the build"}
    rounds = ["--rounds", "200"] if quick else ["--rounds", "2000"]
    one_cpu = min(os.sched_getaffinity(0))
    runs = {layout: {m: [] for m, _ in PINGPONG_MODES} for layout in PINGPONG_LAYOUTS}
    errors = []
    with tempfile.TemporaryDirectory(prefix="rdsm-pingpong-") as tmp:
        for rep in range(repeat):
            for layout in PINGPONG_LAYOUTS:
                pin = (lambda: os.sched_setaffinity(0, {one_cpu})) if layout == "one CPU" else None
                for mode, _ in PINGPONG_MODES:
                    path = os.path.join(tmp, "%s.%s.%d.json" % (mode, layout.replace(" ", "_"), rep))
                    cmd = [rdsm, "run", "-n", "2", "--quiet", "--timeout", str(LAUNCH_TIMEOUT), "--handler", mode,
                           prog] + rounds + ["--json", path]
                    stderr = ""
                    try:
                        done = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=pin,
                                              timeout=LAUNCH_TIMEOUT + WAIT_SLACK)
                        stderr = done.stderr
                        with open(path, encoding="utf-8") as fh:
                            runs[layout][mode].append(json.load(fh))
                    except (OSError, ValueError, subprocess.TimeoutExpired, subprocess.SubprocessError) as e:
                        errors.append("handler %s, %s, repetition %d: %s" %
                                      (mode, layout, rep + 1, tail(stderr, 2) or str(e)))
    medians = {}
    for layout in PINGPONG_LAYOUTS:
        medians[layout] = {}
        for mode, _ in PINGPONG_MODES:
            medians[layout][mode] = {}
            for case, _ in PINGPONG_CASES:
                xs = [r[case]["median_us"] for r in runs[layout][mode] if r.get(case)]
                medians[layout][mode][case] = statistics.median(xs) if xs else None
    return {"medians": medians, "runs": runs, "errors": errors, "error": None}


def main():
    ap = argparse.ArgumentParser(description="Runs every rdsm micro-benchmark for every protocol preset "
                                             "and prints the figures side by side (medians of --repeat runs).")
    ap.add_argument("--build", default=None,
                    help="build directory holding rdsm and apps/ (default: build/ of this repository)")
    ap.add_argument("--repeat", type=int, default=None, help="runs of each program per preset (default 5; 1 with --quick)")
    ap.add_argument("--protocols", default=None,
                    help="comma-separated presets (default: every preset `rdsm run --help` lists)")
    ap.add_argument("--memory", default=None, metavar="LIST",
                    help="comma-separated memory backends (mprotect, uffd): a row per backend under each figure "
                         "(default: none asked for, the nodes' default; the header names it)")
    ap.add_argument("--programs", default=None, metavar="LIST",
                    help="comma-separated micro-benchmarks to run (default: all), e.g. micro_lock,micro_barrier")
    ap.add_argument("--quick", action="store_true", help="one run each with small counts (smoke test)")
    ap.add_argument("--json", metavar="FILE", help="write every raw result and the medians to FILE")
    ap.add_argument("--no-emu", action="store_true",
                    help="leave out the emu fabric's charged-vs-asked rows (micro_emu)")
    ap.add_argument("--no-pingpong", action="store_true",
                    help="leave out the round trip per handler mode (micro_pingpong)")
    opts = ap.parse_args()

    repeat = opts.repeat if opts.repeat is not None else (1 if opts.quick else 5)
    if repeat < 1:
        ap.error("--repeat must be at least 1")
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.path.abspath(opts.build or os.path.join(here, os.pardir, "build"))
    rdsm = os.path.join(build, "rdsm")
    if not (os.path.isfile(rdsm) and os.access(rdsm, os.X_OK)):
        sys.stderr.write("microbench: %s is not an rdsm launcher; build first or pass --build DIR\n" % rdsm)
        return 2

    available = launcher_protocols(rdsm) or KNOWN_PROTOCOLS
    if opts.protocols:
        presets = [p.strip() for p in opts.protocols.split(",") if p.strip()]
        unknown = [p for p in presets if preset_of(p) not in available]
        if unknown or not presets:
            ap.error("unknown protocol(s) %s; available: %s" % (", ".join(unknown) or "(none given)",
                                                                ", ".join(available)))
    else:
        presets = [c for p in available for c in [p] + EXTRA_COLUMNS.get(p, [])]
    memories = [None]
    if opts.memory:
        memories = [m.strip() for m in opts.memory.split(",") if m.strip()]
        if not memories or any(m not in MEMORY_BACKENDS for m in memories):
            ap.error("--memory takes mprotect, uffd or both, comma-separated")
        memories = list(dict.fromkeys(memories))
    # The backends of one preset side by side.
    columns = [Column(p, m) for p in presets for m in memories]

    run_list = runs()
    figs = figures()
    pingpong = not opts.no_pingpong
    if opts.programs:
        wanted = [p.strip() for p in opts.programs.split(",") if p.strip()]
        known = sorted({r.program for r in run_list} | {"micro_pingpong"})
        pingpong = pingpong and "micro_pingpong" in wanted
        if not wanted or any(p not in known for p in wanted):
            ap.error("--programs takes a comma-separated list of %s" % ", ".join(known))
        run_list = [r for r in run_list if r.program in wanted]
        kept = {r.key for r in run_list}
        figs = [f for f in figs if f.run_key in kept]
    failures = []  # dicts: program, preset, nodes, handler, repetition, error
    raw = []       # every run: what was run and what came back
    results = {}   # (run key, preset) -> list of result dicts
    programs = {}
    for run in run_list:
        if run.program not in programs:
            programs[run.program] = find_program(build, run.program)

    # The backends of one program and preset one after the other, their order alternating by repetition.
    key_width = max(len(c.key) for c in columns)
    todo = [(rep, run, c) for rep in range(repeat) for run in run_list for p in presets
            for c in (columns_of(columns, p, memories if rep % 2 == 0 else memories[::-1]))
            if run.applies_to(c.preset)]
    unavailable = {}  # memory backend -> why it cannot run here
    notes = []
    ran = set()       # memory backends the nodes reported
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rdsm-microbench-") as tmpdir:
        for i, (rep, run, column) in enumerate(todo, 1):
            if column.memory in unavailable:
                continue
            prog = programs[run.program]
            preset = column.preset
            entry = {"program": run.program, "preset": preset, "memory": column.memory, "column": column.key,
                     "nodes": run.nodes, "threads": run.threads, "handler": run.handler,
                     "args": run.quick_args if opts.quick else run.args, "repetition": rep, "run": run.key}
            if prog is None:
                res, err, secs, mem = None, "program not found under %s (apps/%s)" % (build, run.program), 0.0, None
            else:
                res, err, secs, mem = run_once(rdsm, prog, run, column, opts.quick, tmpdir)
            entry["memory_ran"] = mem
            if mem:
                ran.add(mem)
            if err is None and column.memory is not None and mem is not None and mem != column.memory:
                err = "asked for memory backend %s, the nodes ran %s" % (column.memory, mem)
            entry["seconds"] = round(secs, 3)
            entry["ok"] = err is None
            if res is not None:
                entry["result"] = res
                results.setdefault((run.key, column.key), []).append(res)
            else:
                entry["error"] = err
                failures.append(entry)
                sys.stderr.write("microbench: FAILED %s, repetition %d: %s\n" % (run.describe(column.key), rep + 1, err))
            raw.append(entry)
            shape = "n=%d" % run.nodes if run.threads == 1 else "n=%dx%d" % (run.nodes, run.threads)
            sys.stderr.write("[%d/%d] %-16s %-*s %-5s %-9s %6.2f s%s\n" %
                             (i, len(todo), run.program, key_width, column.key, shape, run.handler, secs,
                              "" if err is None else "  FAILED"))
            m = BACKEND_UNAVAILABLE_RE.search(err or "")
            if m and m.group(1) == column.memory:
                unavailable[column.memory] = m.group(2).split("; use --memory")[0].strip()
                notes.append("the %s memory backend cannot run here (%s): its other runs were skipped" %
                             (column.memory, unavailable[column.memory]))
                sys.stderr.write("microbench: note: %s\n" % notes[-1])
            sys.stderr.flush()

    # Medians per figure and preset.
    medians = {}
    for f in figs:
        run = next(r for r in run_list if r.key == f.run_key)
        medians[f.key] = {"label": f.label, "unit": f.unit, "group": f.group, "presets": {}}
        for c in columns:
            p = c.key
            if not run.applies_to(c.preset):
                continue
            if c.memory in unavailable and not results.get((f.run_key, p)):
                medians[f.key]["presets"][p] = {"preset": c.preset, "memory": c.memory, "median": None,
                                                "samples": [], "failed_runs": 0, "unavailable": True}
                continue
            samples = []
            for res in results.get((f.run_key, p), []):
                try:
                    samples.append(f.extract(res))
                except (KeyError, TypeError, ValueError):
                    pass
            failed = sum(1 for e in failures if e["run"] == f.run_key and e["column"] == p)
            if samples:
                m = statistics.median(samples)
                medians[f.key]["presets"][p] = {"preset": c.preset, "memory": c.memory, "median": m,
                                                "samples": samples, "failed_runs": failed}
            else:
                medians[f.key]["presets"][p] = {"preset": c.preset, "memory": c.memory, "median": None,
                                                "samples": [], "failed_runs": failed}
        # uffd / mprotect per preset, when both ran.
        if all(m in memories for m in ("uffd", "mprotect")):
            medians[f.key]["uffd_over_mprotect"] = {}
            for p in presets:
                if not run.applies_to(p):
                    continue
                mu = medians[f.key]["presets"][Column(p, "uffd").key]["median"]
                mm = medians[f.key]["presets"][Column(p, "mprotect").key]["median"]
                medians[f.key]["uffd_over_mprotect"][p] = mu / mm if mu is not None and mm else None
    # Runs whose counters show that a fault figure is not the fault it names.
    for p in [c.key for c in columns]:
        for res in results.get(("fault", p), []):
            phases = ("read", "twin", "home", "read_again")
            faults = [(res.get("%s_stats" % ph) or {}) for ph in phases]
            if all(st.get("read_faults") == 0 and st.get("write_faults") == 0 for st in faults):
                # Memory the hardware keeps coherent (hw): nothing to fault on.
                notes.append("micro_fault, preset %s: no page faults at all (hardware-coherent memory); "
                             "its fault rows are plain first accesses" % p)
                break
            bad = [ph for ph in phases if res.get("%s_counters_as_expected" % ph) is False]
            again = res.get("read_again_stats") or {}
            refreshed = "micro_fault, preset %s: read_again had no faults" % p
            if "read_again" in bad and again.get("read_faults") == 0 and again.get("pages_fetched") == 0:
                # Adaptive prefetch refreshes copies re-read after every
                # invalidation at the acquire that drops them (copy_refresh):
                # the row is then plain reads of valid copies, as intended.
                bad.remove("read_again")
                if not any(n.startswith(refreshed) for n in notes):
                    notes.append(refreshed + ": the copies were refreshed at the barrier (pages re-read after "
                                 "every invalidation), so that row times plain reads")
            # Write-ahead (rewrites=compare) opens the pages after a write
            # fault with it: the twin and home rows are then the time per
            # page written, a fault's cost shared among the pages it opened.
            stats = dict(zip(phases, faults))
            pages = res.get("pages", 0)
            opened = [ph for ph in ("twin", "home") if ph in bad and 0 < stats[ph].get("write_faults", 0) < pages
                      and stats[ph].get("pages_fetched") == 0 and stats[ph].get("read_faults") == 0]
            ahead = "micro_fault, preset %s: " % p
            if opened and not any(n.startswith(ahead) and "opened ahead" in n for n in notes):
                notes.append(ahead + "%s: %s of %d pages took a write fault, the others were opened ahead with "
                             "them (write-ahead), so %s the time per page written, not per fault" %
                             (", ".join(opened), " and ".join(str(stats[ph]["write_faults"]) for ph in opened), pages,
                              "those rows are" if len(opened) > 1 else "that row is"))
            bad = [ph for ph in bad if ph not in opened]
            if bad:
                notes.append("micro_fault, preset %s: counters of %s not as expected (see the JSON)" %
                             (p, ", ".join(bad)))
                break

    elapsed = time.monotonic() - started
    # The backends' own tables go with the presets' (not with the ping-pong alone).
    backends = bool(run_list)
    delivery = uffd_delivery(build, opts.quick) if backends and ("mprotect" not in ran or len(ran) > 1) else None
    groups = page_groups(build, opts.quick) if backends else None
    detection = write_detection(build, opts.quick) if backends else None
    masked = masked_writes(build, opts.quick) if backends else None
    charges = emu_charges(rdsm, build, opts.quick) if not opts.no_emu else None
    round_trips = handler_round_trips(rdsm, build, repeat, opts.quick) if pingpong else None
    doc = {
        "repeat": repeat,
        "quick": opts.quick,
        "build": build,
        "protocols": presets,
        "memory": memories,
        "memory_ran": sorted(ran),
        "unavailable": unavailable,
        "columns": [c.key for c in columns],
        "cpus": os.cpu_count(),
        "seconds": round(elapsed, 3),
        "figures": medians,
        "runs": raw,
        "failures": [{k: e[k] for k in ("program", "preset", "memory", "column", "nodes", "threads", "handler",
                                         "repetition", "error")}
                     for e in failures],
        "notes": notes,
        "uffd_delivery": delivery["figures"] if delivery else None,
        "page_groups": groups["figures"] if groups else None,
        "write_detection": detection["figures"] if detection else None,
        # The backends' programs print their own tables: kept as printed.
        "tables": {"uffd_delivery": delivery["text"] if delivery else None,
                   "page_groups": groups["text"] if groups else None,
                   "write_detection": detection["text"] if detection else None,
                   "masked_writes": masked["text"] if masked else None},
        "emu_charges": charges,
        "handler_round_trips": round_trips,
    }
    print_result(doc, sys.stdout)
    if opts.json:
        try:
            with open(opts.json, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=1)
                fh.write("\n")
        except OSError as e:
            sys.stderr.write("microbench: cannot write %s: %s\n" % (opts.json, e))
            return 1
    pingpong_failed = round_trips and (round_trips.get("error") or round_trips["errors"])
    return 1 if failures or (charges and any(c["error"] for c in charges)) or pingpong_failed else 0


if __name__ == "__main__":
    stop_on_sigterm()
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        # The run in progress has been ended (launch_job.py) and the
        # temporary files removed on the way out.
        sys.stderr.write("\nmicrobench: interrupted\n")
        sys.exit(130)
