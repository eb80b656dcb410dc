"""`trainflow events PATH`: list, export, extract or plot what event files hold.

PATH is an event file or a directory; a directory means every event file
(`*tfevents*`) under it. Each directory holding event files is a run, as in
TensorBoard; with more than one run the output gains a `run` column. Without an
option, every kind is listed: scalars, histograms (with a sparkline of their
distribution), images, audio, text and other tensors.
"""
import os
import sys

from trainflow._src.tools import event_data, events_plot, events_text


def add_arguments(parser):
    """Declares the subcommand's arguments on `parser`."""
    parser.add_argument("path", help="an event file, or a directory searched for event files")
    parser.add_argument("--tags", nargs="?", const="", metavar="TAG[,TAG...]",
                        help="alone: list the tags with their kind and count; with tags "
                             "(comma-separated, glob patterns allowed): keep only those")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--csv", action="store_true",
                      help="write the scalars as CSV (step,tag,value,wall_time) to stdout")
    mode.add_argument("--plot", metavar="OUT.png",
                      help="draw one panel per scalar or histogram tag (percentile bands) "
                           "against the step into a PNG (needs matplotlib: "
                           "pip install 'trainflow[plot]')")
    mode.add_argument("--extract", metavar="DIR",
                      help="write the images (.png), audio (.wav) and text (.txt) into DIR")


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


def _title(path, runs):
    name = os.path.basename(os.path.normpath(path)) or path
    if len(runs) > 1:
        return f"{name}: runs {', '.join(r.name for r in runs)}"
    return name if runs[0].name == "." else f"{name}/{runs[0].name}"


def _run(args):
    if not os.path.exists(args.path):
        print(f"trainflow events: {args.path}: no such file or directory", file=sys.stderr)
        return 1
    runs, problems = event_data.load(args.path)
    if not runs:
        print(f"trainflow events: no event files under {args.path}", file=sys.stderr)
        return 1
    patterns = [p for p in (args.tags or "").split(",") if p]
    for r in runs:
        r.select(patterns)
    status = 0
    if args.csv:
        events_text.write_csv(runs)
    elif args.plot:
        status = events_plot.plot(runs, args.plot, _title(args.path, runs))
    elif args.extract:
        for path in events_text.extract(runs, args.extract):
            print(path)
    elif args.tags == "":
        events_text.print_tags(runs)
    else:
        events_text.print_all(runs)
    for problem in problems:
        print(f"trainflow events: {problem}", file=sys.stderr)
    return status or (1 if problems else 0)
