"""The figures of rdsm_report.py: speedup against node count with the
fraction of hw below it, the time breakdown at the largest node count, and
the handler time per protocol."""
import statistics

from rdsm_report_common import COMPONENTS, HANDLER_PARTS, HW, THREADS, colors_for, grid, order_protocols


def series_style(d, p, m):
    """Line style and marker of a (protocol, backend) series: hw dashed, plain threads dotted; the backends by
    marker and line."""
    k = d.memories.index(m) if m in d.memories else 0
    marker = "osD^v"[k % 5]
    if p == HW:
        return "--", marker
    if p == THREADS:
        return ":", "x"
    return ["-", ":", "-."][k % 3], marker


def series_key(d, p, m):
    return d.series_label(p, m)


def plot_speedup(d, plt, path):
    """Per app two panels: speedup vs nodes above, fraction of the hw speedup vs nodes below.  With nodes of
    several threads the x axis is the shapes (NxT) in the tables' order, evenly spaced."""
    groups = [g for g in d.groups if d.shapes(g)]
    rows, cols = grid(len(groups))
    # At least wide enough for the title and a legend row of a few entries.
    width, height = max(4 * cols, 8), 5.4 * rows
    fig, axes = plt.subplots(2 * rows, cols, figsize=(width, height), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 2] * rows})
    allp = order_protocols({p for g in groups for p in d.protocols(g)})
    color = colors_for(allp, plt)
    handles = {}
    order = []  # legend entries in protocol, then backend order
    for i, g in enumerate(groups):
        ax = axes[2 * (i // cols)][i % cols]
        axr = axes[2 * (i // cols) + 1][i % cols]
        ns = d.shapes(g)
        xs = list(range(len(ns))) if d.with_threads else [n for n, _ in ns]
        at = dict(zip(ns, xs))
        top = 1.1
        for p, m in d.series(g):
            hw = p == HW
            key = series_key(d, p, m)
            style, marker = series_style(d, p, m)
            pts = [(at[n], d.speedup(g, p, n, m)) for n in ns]
            pts = [(n, s) for n, s in pts if s is not None]
            if pts:
                h, = ax.plot([x for x, _ in pts], [y for _, y in pts], marker=marker, color=color[p],
                             linestyle=style, label=key)
                if key not in handles:
                    order.append((allp.index(p), d.memories.index(m), key))
                handles[key] = h
            if hw:
                continue
            pts = [(at[n], d.fraction_of_hw(g, p, n, m)) for n in ns]
            pts = [(n, f) for n, f in pts if f is not None]
            if pts:
                axr.plot([x for x, _ in pts], [y for _, y in pts], marker=marker, color=color[p],
                         linestyle=style, label=key)
                top = max(top, 1.1 * max(y for _, y in pts))
        ax.plot(xs, [n * t for n, t in ns], color="0.8", linewidth=0.8, zorder=0)  # ideal: one per thread
        ax.set_title(d.label(g))
        ticks = [d.shape_short(n) for n in ns]
        ax.set_xticks(xs, ticks)
        ax.set_ylabel("speedup")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        axr.set_xticks(xs, ticks)
        axr.set_xlim(ax.get_xlim())
        axr.set_xlabel("nodes x threads" if d.with_threads else "nodes")
        axr.set_ylabel("speedup / hw")
        if d.has_hw(g):
            axr.axhline(1.0, color=color.get(HW, "black"), linestyle="--", linewidth=1)
            axr.set_ylim(0, top)
        else:
            axr.set_yticks([])
            axr.text(0.5, 0.5, "no hw runs", ha="center", va="center", transform=axr.transAxes, color="0.4")
        axr.grid(True, alpha=0.3)
    for j in range(len(groups), rows * cols):
        axes[2 * (j // cols)][j % cols].axis("off")
        axes[2 * (j // cols) + 1][j % cols].axis("off")
    legend_rows = 1
    if handles:
        keys = [k for _, _, k in sorted(order)]
        ncol = max(1, min(len(keys), int(width // 1.9)))
        legend_rows = (len(keys) + ncol - 1) // ncol
        fig.legend([handles[k] for k in keys], keys, loc="lower center", ncol=ncol, frameon=False)
    fig.suptitle("Speedup over the sequential run (grey: linear; dashed: hw; dotted: plain threads)\n"
                 "and below it each protocol's speedup as a fraction of hw's (1 = the limit)")
    fig.tight_layout(rect=(0, min(0.3, (0.1 + 0.3 * legend_rows) / height), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_breakdown(d, plt, path):
    groups = [g for g in d.groups if d.shapes(g)]
    rows, cols = grid(len(groups))
    height = 3.5 * rows + (0.6 if d.multi_memory else 0.0)  # room for the longer bar labels
    fig, axes = plt.subplots(rows, cols, figsize=(max(4 * cols, 8), height), squeeze=False)
    cmap = plt.get_cmap("Set2")
    handles = None
    for i, g in enumerate(groups):
        ax = axes[i // cols][i % cols]
        n = d.shapes(g)[-1]
        ps = [(p, m) for p, m in d.series(g) if d.breakdown(g, p, n, m) is not None]
        bds = {pm: d.breakdown(g, pm[0], n, pm[1]) for pm in ps}
        ref_p = next((pm for pm in ps if pm[0] == "async"), ps[0] if ps else None)
        ref = sum(bds[ref_p][f] for f, _ in COMPONENTS) if ref_p else 0.0
        if not ref:
            ref = 1.0
        bottoms = [0.0] * len(ps)
        bars = []
        for k, (f, lbl) in enumerate(COMPONENTS):
            vals = [bds[pm][f] / ref for pm in ps]
            bars.append(ax.bar(range(len(ps)), vals, bottom=bottoms, color=cmap(k), label=lbl, width=0.7))
            bottoms = [b + v for b, v in zip(bottoms, vals)]
        handles = bars
        ax.set_xticks(range(len(ps)))
        ax.set_xticklabels([series_key(d, p, m) for p, m in ps], rotation=30, ha="right" if d.multi_memory else "center")
        ax.set_title("%s, %s" % (d.label(g), d.shape_label(n)))
        ax.set_ylabel("time / %s" % (series_key(d, *ref_p) if ref_p else "-"))
        ax.axhline(1.0, color="0.5", linewidth=0.6)
        ax.grid(True, axis="y", alpha=0.3)
    for j in range(len(groups), rows * cols):
        axes[j // cols][j % cols].axis("off")
    if handles:
        fig.legend(handles, [lbl for _, lbl in COMPONENTS], loc="lower center", ncol=len(COMPONENTS), frameon=False)
    fig.suptitle("Time breakdown at the largest node count (mean over nodes), normalised to async")
    fig.tight_layout(rect=(0, 0.4 / height, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def handler_means(d):
    """(protocol, memory) -> {part: ms} mean over apps of (mean per node) at each app's largest node count."""
    per_p = {}
    for g in d.groups:
        ns = d.shapes(g)
        if not ns:
            continue
        for p, m in d.series(g):
            b = d.breakdown(g, p, ns[-1], m)
            if b is None:
                continue
            parts = {f: b[f] for f, _ in HANDLER_PARTS}
            parts["other"] = max(0.0, b["handler"] - sum(parts.values()))
            per_p.setdefault((p, m), []).append(parts)
    out = {}
    for p, lst in per_p.items():
        out[p] = {k: 1e3 * statistics.mean(x[k] for x in lst) for k in lst[0]}
        out[p]["apps"] = len(lst)
    return out


def order_series(d, pms):
    return sorted(pms, key=lambda pm: (order_protocols({x for x, _ in pms}).index(pm[0]), d.memories.index(pm[1])))


def plot_handler(d, plt, path):
    hm = handler_means(d)
    ps = order_series(d, hm)
    fig, ax = plt.subplots(figsize=(1.3 * max(len(ps), 3) + 2, 4))
    cmap = plt.get_cmap("Set1")
    parts = [(f, lbl) for f, lbl in HANDLER_PARTS] + [("other", "other")]
    bottoms = [0.0] * len(ps)
    for k, (f, lbl) in enumerate(parts):
        vals = [hm[p][f] for p in ps]
        ax.bar(range(len(ps)), vals, bottom=bottoms, color=cmap(k), label=lbl, width=0.6)
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    ax.set_xticks(range(len(ps)))
    ax.set_xticklabels([series_key(d, p, m) for p, m in ps], rotation=30 if d.multi_memory else 0,
                       ha="right" if d.multi_memory else "center")
    ax.set_ylabel("handler time per node (ms)")
    ax.set_title("Handler time per protocol (mean per node, averaged over apps)")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return hm
