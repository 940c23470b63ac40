#!/usr/bin/env python3
"""The tables of a micro-benchmark result (tools/microbench.py): printed by
the driver as it finishes, and again from its --json file by `rdsm report`
(rdsm_report.py), so that a saved result reads as it did when it was made.

Every table is drawn from the result document alone (the JSON the driver
writes): the figures' medians per preset and memory backend, the uffd/mprotect
ratios, the backends' own tables (fault delivery, page groups, write
detection), the emu charges and the ping-pong table of handler modes.

Python 3 standard library only.
"""

MEMORY_BACKENDS = ["mprotect", "uffd"]


class Column:
    """What a figure is measured under: a preset and a memory backend (None: the nodes' default)."""

    def __init__(self, preset, memory):
        self.preset = preset
        self.memory = memory
        self.key = preset if memory is None else "%s/%s" % (preset, memory)



def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a < 1:
        return "%.3f" % v
    if a < 10:
        return "%.2f" % v
    if a < 1000:
        return "%.1f" % v
    return "%.0f" % v


RATIO_ROW = "uffd/mprotect"


def print_table(figs, presets, memories, cells, out):
    """A column per preset; with several backends a row per backend under each figure (and the
    uffd/mprotect ratio when both ran).  cells[(figure key, column key)] = text."""
    rows = [m for m in MEMORY_BACKENDS if m in memories] if None not in memories else list(memories)
    if all(m in memories for m in ("uffd", "mprotect")):
        rows.append(RATIO_ROW)
    mem_w = max(len(str(m)) for m in rows) + 2 if len(rows) > 1 else 0
    label_w = max(len("%s [%s]" % (f.label, f.unit)) for f in figs) + (4 if mem_w else 2)
    col_w = max(9, max(len(p) for p in presets) + 2)
    header = "%-*s" % (label_w, "") + ("%-*s" % (mem_w, "memory") if mem_w else "") + \
        "".join("%*s" % (col_w, p) for p in presets)
    out.write(header + "\n")
    out.write("-" * len(header) + "\n")
    group = None
    for f in figs:
        if f.group != group:
            group = f.group
            out.write("%s\n" % group)
        for i, m in enumerate(rows):
            label = "  %s [%s]" % (f.label, f.unit) if i == 0 else ""
            line = "%-*s" % (label_w, label)
            if mem_w:
                line += "%-*s" % (mem_w, m)
            line += "".join("%*s" % (col_w, cells[(f.key, Column(p, m).key)]) for p in presets)
            out.write(line.rstrip() + "\n")


def print_emu_charges(cases, out):
    out.write("\nemu fabric, charged vs asked (micro_emu, 2 nodes on one CPU, handler interrupt; each parameter alone;\n"
              "charged = median over paired batches of emu minus base, per operation; tolerance 5% or 1 us):\n")
    out.write("  %-18s %-11s %7s %11s %11s %9s\n" % ("parameter", "operation", "bytes", "asked us", "charged us",
                                                   "error"))
    for case in cases:
        if case["error"]:
            out.write("  %-18s FAIL: %s\n" % (case["setting"], case["error"].splitlines()[0]))
        for r in case["rows"]:
            out.write("  %-18s %-11s %7d %11.3f %11.3f %9s%s\n" %
                      (case["setting"], r["operation"], r["bytes"], r["asked_us"], r["charged_us"], r["error"],
                       "" if r["within_tolerance"] else "  out of tolerance"))


# A message's round trip per handler mode (micro_pingpong, 2 nodes), as the
# Multiview papers' ping-pong table: the receive contexts in their order
# (polling, task queue, process) and selective polling beside them.
PINGPONG_MODES = [("spin", "polling"), ("interrupt", "task queue"), ("signal", "process"),
                  ("poll", "selective polling")]
PINGPONG_CASES = [("computing", "receiver computing"), ("waiting", "receiver waiting in rdsm")]
# Both nodes on the machine's CPUs as the scheduler places them, and both on
# one CPU: across CPUs a round trip also pays for waking a CPU (on a virtual
# machine that varies from a few to about a hundred microseconds with the
# host's load); on one it is the receive context's own cost.
PINGPONG_LAYOUTS = ["all CPUs", "one CPU"]


def print_round_trips(rt, repeat, out):
    out.write("\nmessage round trip by handler mode, us (micro_pingpong, 2 nodes, 8-byte messages; median over %d "
              "run(s)\nof each run's median; the Multiview papers' receive contexts in brackets):\n" % repeat)
    if rt.get("error"):
        out.write("  FAIL: %s\n" % rt["error"])
        return
    out.write("  %-36s" % "" + "".join("%20s" % m for m, _ in PINGPONG_MODES) + "\n")
    out.write("  %-36s" % "" + "".join("%20s" % ("(" + p + ")") for _, p in PINGPONG_MODES) + "\n")
    for layout in PINGPONG_LAYOUTS:
        for case, label in PINGPONG_CASES:
            cells = [rt["medians"][layout][m][case] for m, _ in PINGPONG_MODES]
            out.write("  %-36s" % ("%s, %s" % (label, layout)) +
                      "".join("%20s" % ("-" if v is None else "%.1f" % v) for v in cells) + "\n")
    out.write("  '-': not run (under poll a computing node answers only when it next calls rdsm).\n")
    for e in rt["errors"]:
        out.write("  failed: %s\n" % e)



class SavedFigure:
    """A table row as the result document keeps it."""

    def __init__(self, key, saved):
        self.key = key
        self.label = saved["label"]
        self.unit = saved["unit"]
        self.group = saved.get("group")


def figure_cells(doc):
    """The figure table's rows and cells from a result document: cells[(figure
    key, column key)] = text, "-" for a preset the figure does not apply to,
    "n/a" for a backend that cannot run here, "FAIL" when every run failed,
    "!" after a median of the runs that did not fail."""
    figs = [SavedFigure(k, v) for k, v in (doc.get("figures") or {}).items()]
    cells = {}
    for f in figs:
        saved = doc["figures"][f.key]
        for c in doc.get("columns", []):
            e = saved["presets"].get(c)
            if e is None:
                cells[(f.key, c)] = "-"
            elif e.get("unavailable"):
                cells[(f.key, c)] = "n/a"
            elif e["median"] is None:
                cells[(f.key, c)] = "FAIL"
            else:
                cells[(f.key, c)] = fmt(e["median"]) + ("!" if e["failed_runs"] else "")
        ratios = saved.get("uffd_over_mprotect")
        if ratios is not None:
            for p in doc.get("protocols", []):
                r = ratios.get(p)
                cells[(f.key, Column(p, RATIO_ROW).key)] = "-" if r is None else "%.2f" % r
    return figs, cells


def print_result(doc, out):
    """Every table of a result document, as the driver prints them."""
    memories = doc.get("memory") or [None]
    ran = doc.get("memory_ran") or []
    unavailable = doc.get("unavailable") or {}
    runs = doc.get("runs") or []
    out.write("\nrdsm micro-benchmarks: median of %d run(s) per figure%s; %d runs in %.0f s%s\n\n" %
              (doc.get("repeat", 0), ", quick counts" if doc.get("quick") else "", len(runs), doc.get("seconds", 0),
               "; memory backend %s (the nodes' default)" % "/".join(sorted(ran)) if memories == [None] and ran
               else "; memory backend %s" % memories[0] if len(memories) == 1 and memories[0] else ""))
    figs, cells = figure_cells(doc)
    if figs:
        print_table(figs, doc.get("protocols", []), memories, cells, out)
        out.write("\n'-': not run for this preset; 'FAIL': every run of it failed; "
                  "'!': median of the runs that did not fail%s.\n" %
                  ("; 'n/a': the backend cannot run here" if unavailable else ""))
    if len(memories) > 1 and all(m in memories for m in ("uffd", "mprotect")):
        out.write("%s: the uffd median / the mprotect median (below 1.00: uffd faster).\n" % RATIO_ROW)
    for n in doc.get("notes", []):
        out.write("note: %s\n" % n)
    tables = doc.get("tables") or {}
    if tables.get("uffd_delivery"):
        out.write("\nuffd fault delivery, the kernel alone (micro_uffd_delivery):\n%s" % tables["uffd_delivery"])
    if tables.get("page_groups"):
        out.write("\npage-group protection changes, us per call / per page; the last column: 64 one-page calls\n"
                  "against one 64-page call (micro_protect, the backends alone):\n%s" % tables["page_groups"])
    if tables.get("write_detection"):
        out.write("\nwrite detection, us per page written, detection included (micro_detect, the backends alone;\n"
                  "pages valid and write-protected, one byte written to each or to every 8th):\n%s" %
                  tables["write_detection"])
    if tables.get("masked_writes"):
        out.write("\na diff's byte-masked write, us per page, every way this CPU has (micro_masked, no protocol):\n%s" %
                  tables["masked_writes"])
    if doc.get("emu_charges"):
        print_emu_charges(doc["emu_charges"], out)
    if doc.get("handler_round_trips"):
        print_round_trips(doc["handler_round_trips"], doc.get("repeat", 0), out)
    failures = doc.get("failures") or []
    if failures:
        out.write("\n%d run(s) failed:\n" % len(failures))
        for e in failures:
            first = (e.get("error") or "").splitlines()[0] if e.get("error") else ""
            out.write("  %s, preset %s, %d nodes x %d threads, handler %s, repetition %d: %s\n" %
                      (e["program"], e.get("column", e["preset"]), e["nodes"], e["threads"], e["handler"],
                       e["repetition"] + 1, first))
    out.flush()


def is_result(doc):
    """Whether a JSON document is a micro-benchmark result (not a bench.json)."""
    return isinstance(doc, dict) and "figures" in doc and "columns" in doc and "handler_round_trips" in doc
