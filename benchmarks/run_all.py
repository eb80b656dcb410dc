"""Every benchmark against trainflow and TensorFlow, side by side, in one table.

  python benchmarks/run_all.py                      # all workloads, TF if found
  python benchmarks/run_all.py --only mlp_big --only conv_step --repeat 5
  python benchmarks/run_all.py --busy --jit --json
  python benchmarks/run_all.py --list

Each workload runs its script in a fresh process per side and round: trainflow (this
python), then TensorFlow (--tf-python, else $TRAINFLOW_TF_PYTHON, else a TF environment
found beside the repository), alternating A/B/A/B for --repeat rounds; each figure keeps
its best round. The ratio column is "higher = trainflow better": trainflow's rate over
TF's, or TF's time over trainflow's. --busy runs every pair again while a process burns
one core (pinned to CPU 0, ended after the pair, also on Ctrl-C); --jit adds a trainflow
run with the XLA backend (TF's global_jit_level ON_1) where the script has --jit.
distributed_step is slow and runs only with --distributed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass

from _harness import TF1, busy_neighbour, print_table, run_capture, tf_python

TRAINFLOW = "trainflow.compat.v1"
TIMEOUT_S = 1800


@dataclass
class Workload:
    """A script run and the figures read from its output."""
    key: str
    script: str
    args: object  # side ("trainflow" or "tf") -> CLI arguments
    parse: object  # (stdout, side) -> {row label: value}
    rows: list  # (label, unit, higher is better, target)
    jit: bool = False
    slow: bool = False


def _module(side):
    return TRAINFLOW if side == "trainflow" else TF1


def _last_json(out):
    return json.loads(out.strip().splitlines()[-1])


def _by_module(*pairs):
    """A parser of `{module: {name: value}}` output: rows from (label, name) pairs."""
    def parse(out, side):
        figures = _last_json(out)
        figures = figures.get(_module(side)) or figures.get("trainflow") or \
            next(iter(figures.values()))
        return {label: figures[name] for label, name in pairs}
    return parse


def _regex(pattern, label):
    def parse(out, side):
        return {label: float(re.findall(pattern, out)[-1])}
    return parse


def _conv(out, side):
    return {f"conv {layer} + pool fwd+bwd": float(ms) for layer, ms in
            re.findall(r"(conv\d) .*?:\s+([\d.]+) ms/step", out)}


def _records(out, side):
    figures = _last_json(out)
    return {f"TFRecord {verb} {c.lower()}": figures[c][f"{verb}_rps"]
            for c in ("NONE", "GZIP") for verb in ("write", "read")}


def _checkpoint(out, side):
    figures = _last_json(out)
    return {"Saver.save 200 MB": figures["save_GBps"],
            "Saver.restore 200 MB": figures["restore_GBps"]}


def _events(out, side):
    figures = _last_json(out)
    return {"summary events write": figures["write_eps"],
            "summary events read": figures["read_eps"]}


def _distributed(out, side):
    figures = next(iter(_last_json(out).values()))
    rates = figures["steps_per_s"]
    return {"distributed step per worker": sum(rates) / len(rates),
            "distributed RunStep (trivial)": figures["runstep_ms"]}


OPTIMIZERS = ("GradientDescent", "Momentum", "Nesterov", "Adagrad", "AdagradDA", "Adadelta",
              "Ftrl", "FtrlV2", "ProximalGD", "ProximalAdagrad", "RMSProp", "CenteredRMSProp",
              "Adam")
_AHEAD = ">= 1.0x TF"

WORKLOADS = [
    Workload("import_time", "import_time.py",
             lambda s: ["--module", "trainflow" if s == "trainflow" else TF1,
                        "--repeat", "5", "--json"],
             lambda out, s: {"import over numpy": next(iter(_last_json(out).values()))
                             ["module_s"]},
             [("import over numpy", "s", False, "< 0.25 s, ahead")]),
    Workload("session_overhead", "session_overhead.py",
             lambda s: ["--module", _module(s), "--calls", "5000", "--json"],
             _by_module(("Session.run constant", "constant_us"),
                        ("Session.run 1 feed", "feed_us")),
             [("Session.run constant", "us", False, "< 35 us, ahead"),
              ("Session.run 1 feed", "us", False, "< 35 us, ahead")]),
    Workload("many_small_ops", "many_small_ops.py",
             lambda s: ["--module", _module(s), "--json"],
             _by_module(("1000-op chain, per op", "us_per_op")),
             [("1000-op chain, per op", "us", False, "< 2 us, ahead")], jit=True),
    Workload("mlp_big", "mlp_step.py",
             lambda s: ["--module", _module(s), "--model", "big", "--optimizer", "adam",
                        "--batch", "128", "--seconds", "2"],
             _regex(r"([\d.]+) steps/s", "MLP 784-512-512-10 Adam b128"),
             [("MLP 784-512-512-10 Adam b128", "steps/s", True, _AHEAD)], jit=True),
    Workload("mlp_small", "mlp_step.py",
             lambda s: ["--module", _module(s), "--model", "small", "--batch", "32",
                        "--seconds", "2"],
             _regex(r"([\d.]+) steps/s", "MLP 784-64-10 GD b32"),
             [("MLP 784-64-10 GD b32", "steps/s", True, ">= 1.5x TF")], jit=True),
    Workload("conv_step", "conv_step.py",
             lambda s: ["--module", _module(s), "--steps", "10"], _conv,
             [("conv conv1 + pool fwd+bwd", "ms", False, _AHEAD),
              ("conv conv2 + pool fwd+bwd", "ms", False, _AHEAD)], jit=True),
    Workload("rnn_step", "rnn_step.py",
             lambda s: ["--module", _module(s), "--seconds", "3", "--json"],
             _by_module(("PTB small LSTM 2x200 step", "steps_per_s")),
             [("PTB small LSTM 2x200 step", "steps/s", True, _AHEAD)], jit=True),
    Workload("ctc_ops", "ctc_ops.py",
             lambda s: ["--module", _module(s), "--calls", "3", "--repeat", "2", "--json"],
             _by_module(("ctc_loss+grad 200x32x30", "loss_grad_ms"),
                        ("ctc_beam_search beam 100", "beam100_ms")),
             [("ctc_loss+grad 200x32x30", "ms", False, _AHEAD),
              ("ctc_beam_search beam 100", "ms", False, "")]),
    Workload("optimizer_update", "optimizer_update.py",
             lambda s: ["--module", _module(s), "--calls", "3", "--repeat", "2", "--json"],
             _by_module(*((f"{o} update, 10M float32", o) for o in OPTIMIZERS)),
             [(f"{o} update, 10M float32", "updates/s", True, _AHEAD) for o in OPTIMIZERS]),
    Workload("input_pipeline", "input_pipeline.py",
             lambda s: ["--module", _module(s), "--repeat", "1", "--json"],
             _by_module(("input pipeline (queues)", "records_per_s")),
             [("input pipeline (queues)", "records/s", True, "")]),
    Workload("input_per_record", "input_pipeline.py",
             lambda s: ["--module", _module(s), "--mode", "per_record", "--repeat", "2",
                        "--json"],
             _by_module(("queues read -> parse_single_example -> shuffle_batch(64)",
                         "records_per_s")),
             [("queues read -> parse_single_example -> shuffle_batch(64)", "examples/s", True,
               ">= 1.5x TF")]),
    Workload("input_read_up_to", "input_pipeline.py",
             lambda s: ["--module", _module(s), "--read-batch", "1000", "--repeat", "2",
                        "--json"],
             _by_module(("queues read_up_to(1000) -> parse_example", "records_per_s")),
             [("queues read_up_to(1000) -> parse_example", "records/s", True, ">= 1.0x TF")]),
    Workload("data_input", "data_input.py",
             lambda s: ["--module", _module(s), "--repeat", "2", "--json"],
             _by_module(("tf.data map(parse_single_example)", "per_record_examples_per_s"),
                        ("tf.data batch(1000).map(parse_example)", "batched_records_per_s")),
             [("tf.data map(parse_single_example)", "examples/s", True, ">= 1.0x TF"),
              ("tf.data batch(1000).map(parse_example)", "records/s", True, ">= 1.0x TF")]),
    Workload("data_map", "data_map.py",
             lambda s: ["--module", _module(s), "--repeat", "1", "--json"],
             _by_module(("tf.data map, 2 parallel calls", "elements_per_s")),
             [("tf.data map, 2 parallel calls", "elements/s", True, "")]),
    Workload("tfrecord_io", "tfrecord_io.py", lambda s: ["--backend", s], _records,
             [(f"TFRecord {v} {c}", "records/s", True, "") for c in ("none", "gzip")
              for v in ("write", "read")]),
    Workload("checkpoint_io", "checkpoint_io.py",
             lambda s: ["--module", _module(s), "--repeat", "3"], _checkpoint,
             [("Saver.save 200 MB", "GB/s", True, ""),
              ("Saver.restore 200 MB", "GB/s", True, "")]),
    Workload("summary_events", "summary_io.py", lambda s: ["--backend", s], _events,
             [("summary events write", "events/s", True, ""),
              ("summary events read", "events/s", True, "")]),
    Workload("summary_step", "summary_io.py",
             lambda s: ["--module", _module(s), "--json"],
             _by_module(("merged summary step", "steps_per_s")),
             [("merged summary step", "steps/s", True, _AHEAD)]),
    Workload("distributed_step", "distributed_step.py",
             lambda s: ["--module", _module(s), "--seconds", "3", "--json"], _distributed,
             [("distributed step per worker", "steps/s", True, ""),
              ("distributed RunStep (trivial)", "ms", False, "")], slow=True),
]


def _run_side(workload, python, side, jit, here):
    args = workload.args(side) + (["--jit"] if jit else [])
    try:
        out = run_capture(python, os.path.join(here, workload.script), *args,
                          timeout=TIMEOUT_S)
        return workload.parse(out, side)
    except subprocess.CalledProcessError as e:
        tail = (e.stderr or "").strip().splitlines()[-3:]
        print(f"# {workload.key} ({side}{' +jit' if jit else ''}) failed: {' | '.join(tail)}",
              file=sys.stderr)
    except (subprocess.TimeoutExpired, ValueError, KeyError, IndexError) as e:
        print(f"# {workload.key} ({side}{' +jit' if jit else ''}): {type(e).__name__} {e}",
              file=sys.stderr)
    return {}


def _keep_best(best, figures, workload):
    higher = {label: h for label, _, h, _ in workload.rows}
    for label, value in figures.items():
        old = best.get(label)
        if old is None or (value > old if higher.get(label, True) else value < old):
            best[label] = value


def measure(workload, sides, repeat, jit, here):
    """{column: {row label: best value}} over `repeat` alternating rounds."""
    best = {column: {} for column, _, _ in sides}
    if jit and workload.jit:
        best["trainflow+jit"] = {}
    for _ in range(repeat):
        for column, python, side in sides:
            _keep_best(best[column], _run_side(workload, python, side, False, here), workload)
            if column == "trainflow" and "trainflow+jit" in best:
                _keep_best(best["trainflow+jit"],
                           _run_side(workload, python, side, True, here), workload)
    return best


def _ratio(ours, theirs, higher):
    if ours is None or theirs is None or not ours or not theirs:
        return None
    return ours / theirs if higher else theirs / ours


def rows_of(workload, best, load):
    out = []
    for label, unit, higher, target in workload.rows:
        tf_value = best.get("tensorflow", {}).get(label)
        row = {"workload": label, "load": load, "unit": unit, "higher_is_better": higher,
               "trainflow": best["trainflow"].get(label), "tensorflow": tf_value,
               "target": target}
        row["ratio"] = _ratio(row["trainflow"], tf_value, higher)
        if "trainflow+jit" in best:
            row["trainflow_jit"] = best["trainflow+jit"].get(label)
            row["jit_ratio"] = _ratio(row["trainflow_jit"], tf_value, higher)
        out.append(row)
    return out


def _fmt(value):
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def print_rows(rows, jit):
    columns = [("workload", "<34"), ("load", "<6"), ("unit", "<10"), ("trainflow", ">11")]
    if jit:
        columns.append(("tf+jit", ">10"))
    columns += [("TF", ">11"), ("ratio", ">8"), ("", "<3"), ("target", "<18")]
    table = []
    for r in rows:
        line = [r["workload"], r["load"], r["unit"], _fmt(r["trainflow"])]
        if jit:
            line.append(_fmt(r.get("trainflow_jit")))
        ratio = r["ratio"]
        line += [_fmt(r["tensorflow"]), "-" if ratio is None else f"{ratio:.2f}x", "",
                 r["target"]]
        table.append(line)
    print_table(columns, table)
    print("ratio: higher = trainflow better (trainflow's rate / TF's, or TF's time / "
          "trainflow's); load busy: beside a process burning one core; tf+jit: trainflow "
          "with the XLA backend")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="run only this workload (repeatable; see --list)")
    ap.add_argument("--list", action="store_true", help="list the workloads and exit")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds (best of N)")
    ap.add_argument("--busy", action="store_true",
                    help="run each pair again beside a process burning one core")
    ap.add_argument("--jit", action="store_true",
                    help="also run trainflow with the XLA backend where supported")
    ap.add_argument("--distributed", action="store_true", help="include distributed_step")
    ap.add_argument("--no-tf", action="store_true", help="trainflow only")
    ap.add_argument("--tf-python", help="python with TensorFlow installed")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    chosen = [w for w in WORKLOADS if (w.key in args.only if args.only else
                                       (args.distributed or not w.slow))]
    if args.only and len(chosen) < len(set(args.only)):
        known = {w.key for w in WORKLOADS}
        ap.error(f"unknown workload(s) {sorted(set(args.only) - known)}; see --list")
    if args.list:
        for w in WORKLOADS:
            print(f"{w.key:18s} {w.script:22s} " + ", ".join(r[0] for r in w.rows) +
                  (" (--jit)" if w.jit else "") + (" (slow: --distributed)" if w.slow else ""))
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    sides = [("trainflow", sys.executable, "trainflow")]
    python = None if args.no_tf else tf_python(args.tf_python)
    if python:
        sides.append(("tensorflow", python, "tf"))
    rows = []
    load_before = os.getloadavg()
    for w in chosen:
        print(f"# {w.key} ...", file=sys.stderr, flush=True)
        done = rows_of(w, measure(w, sides, args.repeat, args.jit, here), "plain")
        if args.busy:
            with busy_neighbour(0):
                done += rows_of(w, measure(w, sides, args.repeat, args.jit, here), "busy")
        for r in done:  # progress, as a long run goes
            print(f"#   {r['workload']} ({r['load']}): trainflow {_fmt(r['trainflow'])}, "
                  f"TF {_fmt(r['tensorflow'])} {r['unit']}", file=sys.stderr, flush=True)
        rows += done
    loads = {"before": load_before, "after": os.getloadavg()}
    if args.json:
        print(json.dumps({"rows": rows, "load_average": loads}))
    else:
        print_rows(rows, args.jit)
        print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}, after: "
              "{:.2f} {:.2f} {:.2f}".format(*loads["before"], *loads["after"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
