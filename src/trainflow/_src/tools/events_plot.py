"""`trainflow events --plot`: one panel per scalar or histogram tag in one PNG, steps on
x; histograms drawn as percentile bands over steps (as TensorBoard's distributions).
Needs matplotlib (`pip install 'trainflow[plot]'`), imported only here."""
import math
import sys

from trainflow._src.tools import event_data

# Percentiles of TensorBoard's distribution view: bands 0-100, 7-93, 16-84, 31-69, median.
_FRACTIONS = (0.0, 0.0668, 0.1587, 0.3085, 0.5, 0.6915, 0.8413, 0.9332, 1.0)
_COLUMNS = 3

MISSING_MATPLOTLIB = ("trainflow events: --plot needs matplotlib; install it with "
                      "pip install 'trainflow[plot]'")


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _panels(runs):
    """[(tag, kind)] of every scalar and histogram tag, in first-seen order."""
    seen = {}
    for run in runs:
        for kind in ("scalar", "histogram"):
            for _, tag, _, _ in run.records[kind]:
                seen.setdefault((tag, kind), None)
    return list(seen)


def _series(run, kind, tag):
    points = {}
    for step, t, payload, _ in run.records[kind]:
        if t == tag:
            points[step] = payload  # the last value written at a step wins, as in TensorBoard
    return sorted(points.items())


def _draw_scalar(ax, runs, tag, color_of):
    for run in runs:
        points = _series(run, "scalar", tag)
        if points:
            ax.plot([s for s, _ in points], [float(v) for _, v in points], marker=".",
                    color=color_of(run), label=run.name if len(runs) > 1 else None)


def _draw_histogram(ax, runs, tag, color_of):
    for run in runs:
        points = _series(run, "histogram", tag)
        if not points:
            continue
        steps = [s for s, _ in points]
        cols = list(zip(*(event_data.histogram_percentiles(h, _FRACTIONS) for _, h in points)))
        color = color_of(run)
        for k in range(4):  # the outer band first, the inner ones over it
            ax.fill_between(steps, cols[k], cols[-1 - k], color=color, alpha=0.15,
                            linewidth=0)
        ax.plot(steps, cols[4], color=color, marker=".",
                label=(run.name + " " if len(runs) > 1 else "") + "median")


def plot(runs, out, title):
    """Writes the PNG; returns the exit status (1 without matplotlib or data)."""
    plt = _pyplot()
    if plt is None:
        print(MISSING_MATPLOTLIB, file=sys.stderr)
        return 1
    panels = _panels(runs)
    if not panels:
        print("trainflow events: no scalars or histograms to plot", file=sys.stderr)
        return 1
    cols = min(_COLUMNS, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.8 * cols, 3.2 * rows + 0.6),
                             squeeze=False)
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    order = {run.name: i for i, run in enumerate(runs)}

    def color_of(run):
        return palette[order[run.name] % len(palette)]

    from matplotlib.ticker import MaxNLocator
    for ax, (tag, kind) in zip(axes.flat, panels):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        (_draw_scalar if kind == "scalar" else _draw_histogram)(ax, runs, tag, color_of)
        ax.set_title(tag if kind == "scalar" else f"{tag} (distribution)", fontsize=10)
        ax.set_xlabel("step")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[1]:
            ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, format="png")
    plt.close(fig)
    counts = [sum(1 for _, k in panels if k == kind) for kind in ("scalar", "histogram")]
    words = [f"{n} {kind} tag{'s' if n != 1 else ''}"
             for n, kind in zip(counts, ("scalar", "histogram")) if n]
    print(f"wrote {out} ({', '.join(words)})")
    return 0
