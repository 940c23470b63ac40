"""What the tables and figures of rdsm_report.py share: medians, a run's
time, memory backend and fabric, the order of protocols, plain text tables and the
grid of panels.  Python 3 standard library only."""

import json
import math
import statistics
import sys

PROTOCOL_ORDER = ["rdsm", "async", "ardmar", "draw", "newgen", "genima", "hw", "threads"]
MEMORY_ORDER = ["mprotect", "uffd"]
FABRIC_ORDER = ["shm", "emu", "mpi"]
FABRIC_MARK = "@"  # rdsm@mpi: protocol rdsm on the mpi fabric


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.mean(xs) if xs else None


def order_protocols(ps):
    """The presets in the usual order; a preset's fabrics (rdsm@shm, rdsm@mpi) together, shm first."""
    def key(p):
        name, _, fabric = p.partition(FABRIC_MARK)
        return (PROTOCOL_ORDER.index(name) if name in PROTOCOL_ORDER else len(PROTOCOL_ORDER), name,
                FABRIC_ORDER.index(fabric) if fabric in FABRIC_ORDER else len(FABRIC_ORDER), fabric)
    return sorted(ps, key=key)


def fabric_of(run):
    """The fabric a run's nodes used: the launcher's record, else the one asked for, else shm (older files)."""
    return (run.get("stats") or {}).get("fabric") or run.get("fabric") or "shm"


def label_fabrics(runs):
    """With runs on several fabrics (rdsm bench --fabric shm,mpi), names each run's protocol after its fabric
    (rdsm@shm, rdsm@mpi, kept in "protocol_preset"), so that every table and plot shows the fabrics side by
    side, as series of their own; hw and plain threads, which run on shm only, keep their names.  Returns the
    fabrics seen."""
    fabrics = sorted({fabric_of(r) for r in runs},
                     key=lambda f: FABRIC_ORDER.index(f) if f in FABRIC_ORDER else len(FABRIC_ORDER))
    if len(fabrics) > 1:
        for r in runs:
            if r["protocol"] not in (HW, THREADS) and FABRIC_MARK not in r["protocol"]:
                r["protocol_preset"] = r["protocol"]
                r["protocol"] = r["protocol"] + FABRIC_MARK + fabric_of(r)
    return fabrics


def memory_of(run):
    """The memory backend the run's nodes used; None when the file does not say (older bench files)."""
    return run.get("memory") or (run.get("stats") or {}).get("memory") or None


def order_memories(ms):
    return sorted(ms, key=lambda m: (m is None, MEMORY_ORDER.index(m) if m in MEMORY_ORDER else len(MEMORY_ORDER),
                                     m or ""))


def memory_label(m):
    return "?" if m is None else m


def parallel_time(run):
    """The program's `parallel` seconds; else the slowest node's total; else the wall time."""
    if run.get("parallel_seconds") is not None:
        return run["parallel_seconds"]
    nodes = (run.get("stats") or {}).get("per_node") or []
    if nodes:
        return max(n.get("total") or 0.0 for n in nodes)
    return run.get("wall_seconds")


def fmt(v, spec="%.4f"):
    return "-" if v is None else spec % v


def fmt_seconds(v):
    """Three significant digits without an exponent: test sizes take milliseconds, paper sizes seconds."""
    if v is None:
        return "-"
    if v <= 0:
        return "0"
    return "%.*f" % (min(6, max(0, 2 - int(math.floor(math.log10(v))))), v)


def print_table(rows, header, groups=None, lead=1):
    """The first `lead` columns are labels (left-aligned); groups: [(label, number of columns)] spanning
    the columns after them, printed above the header."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    if groups:
        # Widen a group's last column if its label is wider than the columns under it.
        k = lead
        for label, span in groups:
            need = len(label) + 2 - (sum(widths[k:k + span]) + 2 * (span - 1))
            if need > 0:
                widths[k + span - 1] += need
            k += span
    line = lambda cells: "  ".join(str(c).rjust(w) if i >= lead else str(c).ljust(w)
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    if groups:
        cells, k = [" " * (sum(widths[:lead]) + 2 * (lead - 1))], lead
        for label, span in groups:
            w = sum(widths[k:k + span]) + 2 * (span - 1)
            cells.append((" " + label + " ").center(w, "-"))
            k += span
        print("  ".join(cells))
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def nodes_label(n):
    return "%d node%s" % (n, "" if n == 1 else "s")


def threads_of(run):
    """A run's compute threads per node (rdsm bench --threads); 1 for files that do not say."""
    return run.get("threads") or 1


def shape_of(run):
    """What a run is compared at: (nodes, threads per node).  hw is compared with at the same shape; plain
    threads (rdsm bench's protocol THREADS: one process of N threads) at N nodes of one thread."""
    if run.get("protocol") == THREADS:
        return run["nodes"] * threads_of(run), 1
    return run["nodes"], threads_of(run)


def shapes_with_threads(runs):
    """Whether the shapes must name the threads: some run had nodes of several threads (plain threads aside)."""
    return any(threads_of(r) != 1 for r in runs if r.get("protocol") != THREADS)


def shape_label(shape, threads):
    """A column's heading: "2 nodes", or "2x2" (nodes x threads) when the file has nodes of several threads."""
    return "%dx%d" % shape if threads else nodes_label(shape[0])


def shape_short(shape, threads):
    """The same in a cell or after "at": "2", or "2x2"."""
    return "%dx%d" % shape if threads else "%d" % shape[0]


SHAPE_LEGEND = "NxT: N nodes of T compute threads each (rdsm bench --threads)"


def grid(n):
    cols = min(n, 4) if n > 0 else 1
    rows = (n + cols - 1) // cols if n > 0 else 1
    return rows, cols


def colors_for(protocols, plt):
    cmap = plt.get_cmap("tab10")
    return {p: ("black" if p == "hw" else cmap(i % 10)) for i, p in enumerate(order_protocols(protocols))}


def read_json(path):
    """The JSON document of a file, or the program ends saying why not."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as e:
        sys.exit("rdsm_report: cannot read %s: %s" % (path, e))


# The time breakdown's parts, the handler's, and the threads baseline's name.
COMPONENTS = [("compute", "compute"), ("data_wait", "data wait"), ("lock_wait", "lock wait"),
              ("barrier_wait", "barrier wait"), ("barrier_protocol", "barrier protocol")]
HANDLER_PARTS = [("handler_page", "page"), ("handler_diff", "diff"), ("handler_sync", "sync")]
HW = "hw"
THREADS = "threads"  # rdsm bench's plain-threads runs
