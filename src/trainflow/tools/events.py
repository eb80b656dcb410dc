"""`trainflow events PATH`: print, export or plot the scalars of event files.

PATH is an event file or a directory; a directory means every event file
(`*tfevents*`) under it. Each directory holding event files is a run, as in
TensorBoard; with more than one run the output gains a `run` column.
"""
import csv
import os
import sys

import numpy as np

from trainflow.framework import errors
from trainflow.protos import types_pb2
from trainflow.summary.summary_iterator import summary_iterator

_SCALAR_DTYPES = (types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_HALF,
                  types_pb2.DT_BFLOAT16, types_pb2.DT_INT32, types_pb2.DT_INT64)


def add_arguments(parser):
    """Declares the subcommand's arguments on `parser`."""
    parser.add_argument("path", help="an event file, or a directory searched for event files")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--tags", action="store_true",
                      help="list the tags with their kind and number of values")
    mode.add_argument("--csv", action="store_true",
                      help="write the scalars as CSV (step,tag,value,wall_time) to stdout")
    mode.add_argument("--plot", metavar="OUT.png",
                      help="plot each scalar tag against the step into a PNG "
                           "(needs matplotlib: pip install 'trainflow[plot]')")


def find_event_files(path):
    """Returns the event files at `path` (a file, or every one under a directory), sorted."""
    if os.path.isfile(path):
        return [path]
    found = []
    for root, _, names in os.walk(path):
        found.extend(os.path.join(root, n) for n in names if "tfevents" in n)
    return sorted(found)


def _scalar_of(value):
    """The value of a scalar summary value (simple_value or a scalar tensor), else None."""
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return np.float32(value.simple_value)
    if kind == "tensor" and value.tensor.dtype in _SCALAR_DTYPES \
            and not value.tensor.tensor_shape.dim:
        from trainflow.formats.tensor_proto import make_ndarray
        return make_ndarray(value.tensor)[()]
    return None


def _kind_of(value):
    kind = value.WhichOneof("value")
    if _scalar_of(value) is not None:
        return "scalar"
    if kind == "histo":
        return "histogram"
    if kind == "tensor" and value.metadata.plugin_data.plugin_name:
        return value.metadata.plugin_data.plugin_name
    return kind or "empty"


class _Run:
    """What one run's event files hold: scalar rows and tag counts."""

    def __init__(self, name):
        self.name = name
        self.scalars = []      # (step, tag, value, wall_time)
        self.tags = {}         # tag -> [kind, count]

    def add(self, event):
        what = event.WhichOneof("what")
        if what == "summary":
            for value in event.summary.value:
                entry = self.tags.setdefault(value.tag, [_kind_of(value), 0])
                entry[1] += 1
                scalar = _scalar_of(value)
                if scalar is not None:
                    self.scalars.append((event.step, value.tag, scalar, event.wall_time))
        elif what == "tagged_run_metadata":
            entry = self.tags.setdefault(event.tagged_run_metadata.tag, ["run_metadata", 0])
            entry[1] += 1


def _load(path):
    """Reads every event file under `path`; returns (runs, problems)."""
    files = find_event_files(path)
    root = path if os.path.isdir(path) else os.path.dirname(path)
    runs, problems = {}, []
    for file in files:
        name = os.path.relpath(os.path.dirname(file), root) if os.path.isdir(path) else "."
        run = runs.setdefault(name, _Run(name))
        try:
            for event in summary_iterator(file):
                run.add(event)
        except errors.OpError as e:
            problems.append(f"{file}: {e.message}")
    return list(runs.values()), problems


def _fmt(number):
    # str() of a NumPy scalar is the shortest text that reads back exactly
    # at its own precision: float32 0.1 prints as 0.1, not 0.10000000149011612.
    return str(number)


def _print_table(rows, header):
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def _scalar_rows(runs):
    with_run = len(runs) > 1
    rows = []
    for run in runs:
        for step, tag, value, wall_time in run.scalars:
            row = [str(step), tag, _fmt(value), "%.6f" % wall_time]
            rows.append(([run.name] if with_run else []) + row)
    header = (["run"] if with_run else []) + ["step", "tag", "value", "wall_time"]
    return header, rows


def _plot(runs, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("trainflow events: --plot needs matplotlib; install it with "
              "pip install 'trainflow[plot]'", file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(8, 5))
    lines = 0
    for run in runs:
        series = {}
        for step, tag, value, _ in run.scalars:
            series.setdefault(tag, []).append((step, value))
        for tag, points in series.items():
            points.sort()
            label = tag if len(runs) == 1 else f"{run.name}/{tag}"
            ax.plot([p[0] for p in points], [float(p[1]) for p in points], marker=".",
                    label=label)
            lines += 1
    if not lines:
        plt.close(fig)
        print("trainflow events: no scalars to plot", file=sys.stderr)
        return 1
    ax.set_xlabel("step")
    ax.set_ylabel("value")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, format="png")
    plt.close(fig)
    print(f"wrote {out} ({lines} scalar tag{'s' if lines != 1 else ''})")
    return 0


def run(args):
    """Runs the subcommand; returns the exit status."""
    try:
        return _run(args)
    except BrokenPipeError:
        # The reader went away (`trainflow events ... | head`): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1


def _run(args):
    if not os.path.exists(args.path):
        print(f"trainflow events: {args.path}: no such file or directory", file=sys.stderr)
        return 2
    runs, problems = _load(args.path)
    if not runs:
        print(f"trainflow events: no event files under {args.path}", file=sys.stderr)
        return 1
    status = 0
    if args.tags:
        with_run = len(runs) > 1
        rows = [([r.name] if with_run else []) + [tag, kind, str(count)]
                for r in runs for tag, (kind, count) in sorted(r.tags.items())]
        _print_table(rows, (["run"] if with_run else []) + ["tag", "kind", "count"])
    elif args.csv:
        header, rows = _scalar_rows(runs)
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(header)
        out.writerows(rows)
    elif args.plot:
        status = _plot(runs, args.plot)
    else:
        header, rows = _scalar_rows(runs)
        _print_table(rows, header)
    for problem in problems:
        print(f"trainflow events: {problem}", file=sys.stderr)
    return status or (1 if problems else 0)
