"""Checkpoint save/restore throughput: trainflow vs TensorFlow, through `tf.train.Saver`
(default) or the raw tensor bundle / SaveV2-RestoreV2 ops (`--api bundle`).

Saves N float32 variables totalling --mb megabytes to a V2 checkpoint and restores them, and
reports the best GB/s over --repeat runs (page cache warm, as in a training loop).
With `--api saver`, `Saver.save(sess, prefix)` (no meta graph, no state file) and
`Saver.restore(sess, prefix)` are timed in a session holding the variables.

  python benchmarks/checkpoint_io.py                      # trainflow, then TF if found
  python benchmarks/checkpoint_io.py --module trainflow.compat.v1
  /path/to/tf/python benchmarks/checkpoint_io.py --module tensorflow.compat.v1

TensorFlow runs in a subprocess using --tf-python (default: $TRAINFLOW_TF_PYTHON, else
a TF environment found beside the repository), since it pins its own protobuf.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from _harness import load_tf1, tf_python


def _bench_saver(module, tensors, directory, repeat):
    """Saver.save / Saver.restore of one variable per tensor, in `module`'s TF1 API."""
    tf = load_tf1(module)
    prefix = os.path.join(directory, "saver_model.ckpt")
    names = sorted(tensors)
    save, restore = [], []
    with tf.Graph().as_default():
        variables = [tf.get_variable(n, tensors[n].shape, tf.float32,
                                     initializer=tf.zeros_initializer()) for n in names]
        value = tf.placeholder(tf.float32)
        loads = [tf.assign(v, value, validate_shape=False) for v in variables]
        saver = tf.train.Saver(variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for op, n in zip(loads, names):
                sess.run(op.op, {value: tensors[n]})
            for _ in range(repeat):
                t0 = time.perf_counter()
                saver.save(sess, prefix, write_meta_graph=False, write_state=False)
                save.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                saver.restore(sess, prefix)
                restore.append(time.perf_counter() - t0)
            out = sess.run(variables[0])
    assert np.array_equal(out, tensors[names[0]])
    return save, restore


def _tensors(total_mb, count):
    rng = np.random.default_rng(0)
    per = int(total_mb * 1e6) // 4 // count
    return {f"layer_{i:03d}/kernel": rng.standard_normal(per, dtype=np.float32)
            for i in range(count)}


def _bench_trainflow(tensors, directory, repeat, sync):
    from trainflow._src.formats.tensor_bundle import BundleWriter
    from trainflow._src.formats.tensor_bundle_reader import BundleReader
    prefix = os.path.join(directory, "tf_model.ckpt")
    names = sorted(tensors)
    save, restore = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        with BundleWriter(prefix, sync=sync) as w:
            for n in names:
                w.add(n, tensors[n])
        save.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        with BundleReader(prefix) as r:
            out = [r.lookup(n) for n in names]
        restore.append(time.perf_counter() - t0)
        assert all(np.array_equal(a, tensors[n]) for a, n in zip(out, names))
    return save, restore


def _bench_tensorflow(tensors, directory, repeat):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    prefix = os.path.join(directory, "tf_model.ckpt")
    names = sorted(tensors)
    values = [tf.constant(tensors[n]) for n in names]
    dtypes = [tf.float32] * len(names)
    slices = [""] * len(names)
    save, restore = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=slices,
                          tensors=values)
        save.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        out = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=names,
                                   shape_and_slices=slices, dtypes=dtypes)
        out = [o.numpy() for o in out]
        restore.append(time.perf_counter() - t0)
        assert all(np.array_equal(a, tensors[n]) for a, n in zip(out, names))
    return save, restore


def _report(module, tensors, save, restore, extra=""):
    nbytes = sum(v.nbytes for v in tensors.values())
    result = {"module": module + extra, "megabytes": round(nbytes / 1e6, 1),
              "tensors": len(tensors),
              "save_GBps": round(nbytes / min(save) / 1e9, 3),
              "restore_GBps": round(nbytes / min(restore) / 1e9, 3),
              "save_s": [round(s, 4) for s in save], "restore_s": [round(s, 4) for s in restore]}
    print(json.dumps(result))
    return result


def main(argv=None):
    """Runs the benchmark; prints one JSON line per module."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--module", default="both",
                   help="trainflow[.compat.v1], tensorflow[.compat.v1], or both")
    p.add_argument("--api", choices=["saver", "bundle"], default="saver",
                   help="time tf.train.Saver (default) or the raw bundle / SaveV2 ops")
    p.add_argument("--mb", type=float, default=200.0, help="total tensor megabytes")
    p.add_argument("--tensors", type=int, default=50, help="number of tensors")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--dir", default=None, help="directory for the checkpoint (default: temp)")
    p.add_argument("--no-sync", action="store_true",
                   help="trainflow bundle API: skip fsync on save")
    p.add_argument("--tf-python", default=tf_python())
    args = p.parse_args(argv)
    tensors = _tensors(args.mb, args.tensors)
    directory = args.dir or tempfile.mkdtemp(prefix="ckpt_bench_")
    os.makedirs(directory, exist_ok=True)
    family = args.module.split(".")[0]
    try:
        if family in ("trainflow", "both"):
            if args.api == "saver":
                save, restore = _bench_saver("trainflow.compat.v1", tensors, directory,
                                             args.repeat)
                _report("trainflow.compat.v1 Saver", tensors, save, restore)
            else:
                save, restore = _bench_trainflow(tensors, directory, args.repeat,
                                                 not args.no_sync)
                _report("trainflow", tensors, save, restore,
                        extra="" if not args.no_sync else " (no fsync)")
        if family == "tensorflow":
            if args.api == "saver":
                save, restore = _bench_saver("tensorflow.compat.v1", tensors, directory,
                                             args.repeat)
                _report("tensorflow.compat.v1 Saver", tensors, save, restore)
            else:
                save, restore = _bench_tensorflow(tensors, directory, args.repeat)
                _report("tensorflow", tensors, save, restore)
        elif family == "both":
            if not args.tf_python:
                print("# TensorFlow not found (set TRAINFLOW_TF_PYTHON or --tf-python)")
            else:
                cmd = [args.tf_python, os.path.abspath(__file__), "--module",
                       "tensorflow.compat.v1", "--api", args.api, "--mb", str(args.mb),
                       "--tensors", str(args.tensors), "--repeat", str(args.repeat),
                       "--dir", directory]
                subprocess.run(cmd, check=True)
    finally:
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
