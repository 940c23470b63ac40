"""The communication-parameter study of a bench file made under the emu
fabric (rdsm bench --sweep / --emu-preset), after Bilas et al.:

  per swept parameter, a table of per app, protocol and node count the
  median parallel time at each value and the slowdown: that time / the
  time at the sweep's cheapest value (the lowest cost: the lowest time
  parameter, the highest bandwidth), which is how the study defines it for
  its Figures 1.3-1.6; and a figure in their style, sweep_PARAM.png: the
  slowdown against the parameter's value, one panel per app, a line per
  protocol (and node count);

  when the file holds runs at the study's "achievable" and "best" presets
  (Table 1.1), both unchanged by --emu settings: per app, protocol and
  node count the time and speedup at each and their ratio (its Table 1.2);

  when the file holds predictions (rdsm bench --predict): per app,
  protocol, node count and network the median time rdsm sim predicted from
  the shm traces beside the median time of the emu runs, and their ratio.

The sweep of a parameter is the runs at the base network (the other
parameters' values) and those that vary it: the base point is a point of
every sweep.  The ordinary tables of rdsm_report.py are drawn from the runs
at the base network (main_runs).
"""

import os

import rdsm_emu
from rdsm_report_common import (fmt, fmt_seconds, grid, median, memory_of, order_protocols, parallel_time, print_table,
                                shape_label, shape_of, shape_short, shapes_with_threads)

HW = "hw"
# The study's figure of each parameter (it does not vary latency).
FIGURES = {"host_overhead": "Figure 1.3", "occupancy": "Figure 1.4", "bandwidth": "Figure 1.5",
           "interrupt": "Figure 1.6"}
SLOWDOWN_LEGEND = ("slowdown: median parallel time / that at the sweep's lowest cost (the lowest value; for\n"
                   "bandwidth the highest), as Bilas et al. define it; * = the base network's value")


def point_of(run):
    return run.get("emu_point")


def is_base(run):
    return (point_of(run) or {}).get("kind") == "base"


def main_runs(doc):
    """(runs for the ordinary tables, the network they ran at or None): with emu points, the base network's."""
    runs = doc.get("runs", [])
    if not any(point_of(r) for r in runs):
        return runs, None
    base = ((doc.get("config") or {}).get("emu") or {}).get("base") or next(
        (point_of(r) for r in runs if is_base(r)), None)
    label = None
    if base:
        label = base["preset"] + (" + " + base["settings"] if base.get("settings") else "")
    return [r for r in runs if point_of(r) is None or is_base(r)], label


def network_label(run):
    """A run's network, for lists of failed runs: the swept value, else the preset and settings."""
    pt = point_of(run)
    if not pt:
        return None
    if pt.get("kind") == "sweep":
        return "%s=%s" % (pt["param"], pt["value"])
    return pt["preset"] + (" + " + pt["settings"] if pt.get("settings") else "")


def at_preset(run, name):
    """The run ran at preset `name` exactly (no settings on top), by the launcher's record."""
    emu = (run.get("stats") or {}).get("emu") or run.get("emu") or point_of(run) or {}
    return emu.get("preset") == name and not emu.get("settings")


class Study:
    def __init__(self, doc):
        self.doc = doc
        runs = doc.get("runs", [])
        self.ok = [r for r in runs if r.get("ok") and point_of(r)]
        cfg = (doc.get("config") or {}).get("emu") or {}
        self.base = cfg.get("base") or next((point_of(r) for r in self.ok if is_base(r)), None)
        named = [s["param"] for s in cfg.get("sweeps", [])]
        seen = [point_of(r)["param"] for r in self.ok if point_of(r).get("kind") == "sweep"]
        self.params = [p for p in dict.fromkeys(named + seen) if p in rdsm_emu.KEYS]
        self.groups = []
        for r in self.ok:
            if (r["app"], r["size"]) not in self.groups:
                self.groups.append((r["app"], r["size"]))
        self.multi_size = len({g[1] for g in self.groups}) > 1
        self.multi_memory = len({memory_of(r) for r in self.ok}) > 1
        self.with_threads = shapes_with_threads(self.ok)  # rows keep each (nodes, threads) apart, as NxT
        self.sequential = {g: median([r.get("sequential_seconds") for r in runs if (r["app"], r["size"]) == g])
                           for g in self.groups}

    def label(self, g):
        return "%s (%s)" % g if self.multi_size else g[0]

    # ---- sweeps ----------------------------------------------------------------

    def sweep_runs(self, param):
        # hw (plain threads) runs at the base network only: it is the limit, not a point of a sweep.
        return [r for r in self.ok if r["protocol"] != HW and (
            is_base(r) or (point_of(r).get("kind") == "sweep" and point_of(r).get("param") == param))]

    def values(self, param):
        """The values swept, cheapest first."""
        vs = {rdsm_emu.value_of(r, param) for r in self.sweep_runs(param)}
        return sorted(vs, key=lambda v: rdsm_emu.cost(param, v))

    def base_value(self, param):
        return None if not self.base else self.base["params"].get(rdsm_emu.KEYS[param])

    def rows(self, param, g):
        """(protocol, (nodes, threads), memory) with runs in the sweep of param, for app and size g."""
        keys = {(r["protocol"], shape_of(r), memory_of(r)) for r in self.sweep_runs(param) if (r["app"], r["size"]) == g}
        order = order_protocols({k[0] for k in keys})
        return sorted(keys, key=lambda k: (order.index(k[0]), k[1], k[2] or ""))

    def time(self, param, g, key, v):
        return median([parallel_time(r) for r in self.sweep_runs(param)
                       if (r["app"], r["size"]) == g and (r["protocol"], shape_of(r), memory_of(r)) == key
                       and rdsm_emu.value_of(r, param) == v])

    def slowdowns(self, param, g, key):
        """[(value, time, slowdown)] over the sweep's values; slowdown None without the reference time."""
        vs = self.values(param)
        times = [self.time(param, g, key, v) for v in vs]
        ref = times[0] if times else None
        return [(v, t, t / ref if t is not None and ref else None) for v, t in zip(vs, times)]

    def value_label(self, param, v):
        return rdsm_emu.format_value(param, v) + ("*" if v == self.base_value(param) else "")

    def heading(self, param):
        others = rdsm_emu.describe(self.base["params"], leave_out=param) if self.base else "?"
        figure = FIGURES.get(param)
        return "== sweep of %s%s\n   the others at %s: %s" % (
            param, " (Bilas et al. %s)" % figure if figure else "", self.base_label(), others)

    def base_label(self):
        if not self.base:
            return "?"
        return self.base["preset"] + (" + " + self.base["settings"] if self.base.get("settings") else "")

    def row_cells(self, g, key):
        p, n, m = key
        return [self.label(g), p, shape_short(n, self.with_threads)] + ([m or "?"] if self.multi_memory else [])

    def row_header(self):
        return ["app", "protocol", "nodes x threads" if self.with_threads else "nodes"] + (
            ["memory"] if self.multi_memory else [])

    def print_sweep(self, param, brief=False):
        vs = self.values(param)
        print(self.heading(param))
        rows = []
        for g in self.groups:
            for key in self.rows(param, g):
                cells = self.row_cells(g, key)
                for _, t, sd in self.slowdowns(param, g, key):
                    cells += ([] if brief else [fmt_seconds(t)]) + [fmt(sd, "%.2f")]
                rows.append(cells)
        lead = len(self.row_header())
        if brief:
            print_table(rows, self.row_header() + [self.value_label(param, v) for v in vs], lead=lead)
        else:
            print_table(rows, self.row_header() + ["time (s)", "slowdown"] * len(vs),
                        [(self.value_label(param, v), 2) for v in vs], lead)
        print()

    # ---- achievable vs best -----------------------------------------------------

    def preset_table(self):
        """Rows of app, protocol and node count measured at both the achievable and the best preset."""
        out = []
        for g in self.groups:
            keys = {(r["protocol"], shape_of(r), memory_of(r)) for r in self.ok if (r["app"], r["size"]) == g}
            order = order_protocols({k[0] for k in keys})
            for key in sorted(keys, key=lambda k: (order.index(k[0]), k[1], k[2] or "")):
                t = {}
                for preset in ("best", "achievable"):
                    t[preset] = median([parallel_time(r) for r in self.ok if (r["app"], r["size"]) == g
                                        and (r["protocol"], shape_of(r), memory_of(r)) == key and at_preset(r, preset)])
                if t["best"] is None or t["achievable"] is None:
                    continue
                seq = self.sequential.get(g)
                out.append({"app": g[0], "size": g[1], "protocol": key[0], "nodes": key[1][0],
                            "threads": key[1][1], "memory": key[2], "best_seconds": t["best"], "achievable_seconds": t["achievable"],
                            "achievable_over_best": t["achievable"] / t["best"] if t["best"] else None,
                            "speedup_best": seq / t["best"] if seq and t["best"] else None,
                            "speedup_achievable": seq / t["achievable"] if seq and t["achievable"] else None})
        return out

    def print_presets(self):
        table = self.preset_table()
        if not table:
            return
        print("== achievable vs best (Bilas et al. Table 1.1 presets; their Table 1.2 compares the speedups): median "
              "parallel time; speedup = sequential / time")
        rows = []
        for x in table:
            g = (x["app"], x["size"])
            rows.append(self.row_cells(g, (x["protocol"], (x["nodes"], x["threads"]), x["memory"])) +
                        [fmt_seconds(x["best_seconds"]), fmt_seconds(x["achievable_seconds"]),
                         fmt(x["achievable_over_best"], "%.2f"), fmt(x["speedup_best"], "%.2f"),
                         fmt(x["speedup_achievable"], "%.2f")])
        print_table(rows, self.row_header() + ["best (s)", "achievable (s)", "achievable/best", "speedup best",
                                               "speedup achievable"], lead=len(self.row_header()))
        print()

    # ---- rdsm sim against the emu runs (rdsm bench --predict) -------------------

    def prediction_table(self):
        """Per configuration traced for rdsm sim and network it was predicted at: the median predicted and the
        median measured (emu) parallel time."""
        rows = {}
        for q in self.doc.get("predictions", []):
            if not q.get("ok"):
                continue
            for x in q.get("predicted", []):
                pt = x["point"]
                key = (q["app"], q["size"], q["protocol"], q["nodes"], q["threads"], q.get("memory"),
                       network_label({"emu_point": pt}))
                rows.setdefault(key, {"point": pt, "predicted": []})["predicted"].append(x["predicted_seconds"])
        out = []
        for (app, size, protocol, nodes, threads, memory, label), v in rows.items():
            measured = median([parallel_time(r) for r in self.ok
                               if (r["app"], r["size"], r["protocol"]) == (app, size, protocol)
                               and shape_of(r) == (nodes, threads) and memory_of(r) == memory
                               and rdsm_emu.same_network(point_of(r).get("params"), v["point"].get("params"))])
            predicted = median(v["predicted"])
            out.append({"app": app, "size": size, "protocol": protocol, "nodes": nodes, "threads": threads,
                        "memory": memory, "network": label, "predicted_seconds": predicted,
                        "measured_seconds": measured, "traces": len(v["predicted"]),
                        "predicted_over_measured": predicted / measured if predicted and measured else None})
        groups = {g: i for i, g in enumerate(self.groups)}
        order = order_protocols({x["protocol"] for x in out})
        out.sort(key=lambda x: (groups.get((x["app"], x["size"]), len(groups)), order.index(x["protocol"]),
                                x["nodes"], x["threads"], x["memory"] or ""))
        return out

    def print_predictions(self):
        table = self.prediction_table()
        if not table:
            return
        print("== rdsm sim against the emu fabric: the median prediction from shm traces (rdsm bench --predict) and "
              "the median emu run, parallel time")
        rows = [self.row_cells((x["app"], x["size"]), (x["protocol"], (x["nodes"], x["threads"]), x["memory"])) +
                [x["network"], "%d" % x["traces"], fmt_seconds(x["predicted_seconds"]),
                 fmt_seconds(x["measured_seconds"]), fmt(x["predicted_over_measured"], "%.2f")] for x in table]
        print_table(rows, self.row_header() + ["network", "traces", "predicted (s)", "measured (s)",
                                               "predicted/measured"], lead=len(self.row_header()))
        within = [x for x in table if x["predicted_over_measured"] is not None]
        if within:
            close = sum(1 for x in within if abs(x["predicted_over_measured"] - 1) <= 0.15)
            print("within 15%%: %d of %d" % (close, len(within)))
        print()

    # ---- output -----------------------------------------------------------------

    def empty(self):
        """Neither a sweep nor both presets nor predictions: nothing to print."""
        return not self.params and not self.preset_table() and not self.prediction_table()

    def print_all(self, brief=False):
        if self.params:
            print(SLOWDOWN_LEGEND + "\n")
        for param in self.params:
            self.print_sweep(param, brief)
        self.print_presets()
        self.print_predictions()

    def summary(self):
        sweeps = []
        for param in self.params:
            vs = self.values(param)
            rows = []
            for g in self.groups:
                for key in self.rows(param, g):
                    rows.append({"app": g[0], "size": g[1], "protocol": key[0], "nodes": key[1][0],
                                 "threads": key[1][1], "memory": key[2],
                                 "points": [{"value": rdsm_emu.format_value(param, v), "parallel_seconds": t,
                                             "slowdown": sd} for v, t, sd in self.slowdowns(param, g, key)]})
            sweeps.append({"param": param, "base": self.base, "values": [rdsm_emu.format_value(param, v) for v in vs],
                           "reference": rdsm_emu.format_value(param, vs[0]) if vs else None, "results": rows})
        return {"sweeps": sweeps, "achievable_vs_best": self.preset_table(),
                "predicted_vs_measured": self.prediction_table()}

    def plot(self, plt, out_dir):
        """sweep_PARAM.png per swept parameter; returns the paths written."""
        paths = []
        for param in self.params:
            path = os.path.join(out_dir, "sweep_%s.png" % param)
            self.plot_sweep(param, plt, path)
            paths.append(path)
        return paths

    def plot_sweep(self, param, plt, path):
        vs = self.values(param)
        groups = [g for g in self.groups if self.rows(param, g)]
        rows, cols = grid(len(groups))
        width, height = max(4 * cols, 8), 3.6 * rows + 1.5
        fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False)
        cmap = plt.get_cmap("tab10")
        protocols = order_protocols({k[0] for g in groups for k in self.rows(param, g)})
        node_counts = sorted({k[1] for g in groups for k in self.rows(param, g)})
        handles = {}
        for i, g in enumerate(groups):
            ax = axes[i // cols][i % cols]
            top = 1.1
            for key in self.rows(param, g):
                p, n, m = key
                pts = [(k, sd) for k, (_, _, sd) in enumerate(self.slowdowns(param, g, key)) if sd is not None]
                if not pts:
                    continue
                label = p + ("" if len(node_counts) == 1 else ", " + shape_label(n, self.with_threads)) + (
                    ", %s" % (m or "?") if self.multi_memory else "")
                style = ["-", "--", ":", "-."][node_counts.index(n) % 4]
                h, = ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", linestyle=style,
                             color=cmap(protocols.index(p) % 10), label=label)
                handles.setdefault(label, h)
                top = max(top, 1.05 * max(y for _, y in pts))
            ax.axhline(1.0, color="0.6", linewidth=0.8)
            ax.set_xticks(range(len(vs)))
            ax.set_xticklabels([self.value_label(param, v) for v in vs])
            # The values sit evenly spaced, as the study's figures place theirs: a range such as
            # 0-50 us would crowd the cheap end on a linear axis, and bandwidth may be inf.
            ax.set_xlabel("%s (the values swept, evenly spaced%s)" % (
                param, "; cheapest left" if param == "bandwidth" else ""))
            ax.set_ylabel("slowdown")
            ax.set_ylim(0, top)
            ax.set_title(self.label(g) + ("" if len(node_counts) > 1 else
                                          ", " + shape_label(node_counts[0], self.with_threads)))
            ax.grid(True, alpha=0.3)
        for j in range(len(groups), rows * cols):
            axes[j // cols][j % cols].axis("off")
        if handles:
            fig.legend(list(handles.values()), list(handles), loc="lower center",
                       ncol=max(1, min(len(handles), int(width // 1.9))), frameon=False)
        base = self.base_label()
        fig.suptitle("Slowdown vs %s (time / time at the lowest cost)\nthe others at %s (* = its value of %s)" % (
            param, base, param))
        fig.tight_layout(rect=(0, 0.45 / height, 1, 1))
        fig.savefig(path, dpi=110)
        plt.close(fig)
