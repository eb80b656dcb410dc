"""Between-graph training over gRPC: 1 ps + 2 workers on localhost, one process a task.

    python benchmarks/distributed_step.py                                # trainflow (+ TF)
    python benchmarks/distributed_step.py --module tensorflow.compat.v1  # TensorFlow only

An MLP of ~10M float32 parameters (1000-2400-2400-800-10) lives on the ps; each worker
runs plain gradient descent steps, batch 64, fed from NumPy. Prints steps/s per worker,
the CPU seconds each worker process spends per step (the steady figure on a shared
machine), the bytes each step moves (parameters to the worker, gradients back), and the
RunStep latency of a trivial fetch from a one-task server.
"""
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np

from _harness import TF1, load_tf1, parser, tf_python

SIZES = [1000, 2400, 2400, 800, 10]


def _ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _build(tf, cluster, task):
    with tf.device(tf.train.replica_device_setter(worker_device=f"/job:worker/task:{task}",
                                                  cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, SIZES[0]])
        y = tf.placeholder(tf.int64, [None])
        h = x
        rng = np.random.RandomState(0)
        for i, (a, b) in enumerate(zip(SIZES[:-1], SIZES[1:])):
            w = tf.Variable(rng.uniform(-0.05, 0.05, (a, b)).astype(np.float32), name=f"w{i}")
            h = tf.matmul(h, w) + tf.Variable(np.zeros(b, np.float32), name=f"b{i}")
            if i < len(SIZES) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                             logits=h))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    return x, y, train


def _task(module, spec, job, index, seconds, batch):
    tf = load_tf1(module)
    cluster = tf.train.ClusterSpec(spec)
    server_cls = tf.train.Server if hasattr(tf.train, "Server") else tf.distribute.Server
    server = server_cls(cluster, job_name=job, task_index=index)
    if job == "ps":
        print("ready", flush=True)
        sys.stdin.read()
        return None
    x, y, train = _build(tf, cluster, index)
    rng = np.random.RandomState(index)
    xb = rng.rand(batch, SIZES[0]).astype(np.float32)
    yb = rng.randint(0, SIZES[-1], batch).astype(np.int64)
    with tf.Session(server.target) as sess:
        if index == 0:
            sess.run(tf.global_variables_initializer())
        else:
            while sess.run(tf.report_uninitialized_variables()).size:
                time.sleep(0.05)
        for _ in range(3):
            sess.run(train, {x: xb, y: yb})
        n, start, cpu = 0, time.perf_counter(), _cpu_s()
        while time.perf_counter() - start < seconds:
            sess.run(train, {x: xb, y: yb})
            n += 1
        return [n / (time.perf_counter() - start), (_cpu_s() - cpu) / n]


def _cpu_s():
    """CPU seconds this process used (all its threads): a figure that holds up on a
    machine other work shares, unlike steps/s."""
    t = os.times()
    return t.user + t.system


def _latency(module):
    tf = load_tf1(module)
    server_cls = tf.train.Server if hasattr(tf.train, "Server") else tf.distribute.Server
    server = server_cls.create_local_server()
    c = tf.constant(1.0)
    with tf.Session(server.target) as sess:
        for _ in range(20):
            sess.run(c)
        n, start = 200, time.perf_counter()
        for _ in range(n):
            sess.run(c)
        return (time.perf_counter() - start) / n * 1e3


def measure(module, python, seconds, batch):
    """{"steps_per_s": [per worker], "cpu_s_per_step": [per worker], "bytes_per_step": N,
    "runstep_ms": M}."""
    ports = _ports(3)
    spec = {"ps": [f"localhost:{ports[0]}"],
            "worker": [f"localhost:{p}" for p in ports[1:]]}
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    me = os.path.abspath(__file__)

    def task(job, i):
        return subprocess.Popen([python, me, "--module", module, "--role", job,
                                 "--index", str(i), "--spec", json.dumps(spec),
                                 "--seconds", str(seconds), "--batch", str(batch)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                env=env)
    ps = task("ps", 0)
    try:
        ps.stdout.readline()
        workers = [task("worker", i) for i in range(2)]
        rates = [json.loads(w.communicate(timeout=600)[0].strip().splitlines()[-1])
                 for w in workers]
    finally:
        ps.stdin.close()
        ps.wait(30)
    params = sum(a * b + b for a, b in zip(SIZES[:-1], SIZES[1:]))
    latency = json.loads(subprocess.run(
        [python, me, "--module", module, "--role", "latency"], capture_output=True,
        text=True, check=True, env=env).stdout.strip().splitlines()[-1])
    return {"steps_per_s": [r[0] for r in rates], "cpu_s_per_step": [r[1] for r in rates],
            "bytes_per_step": 2 * 4 * params, "runstep_ms": latency}


def main():
    ap = parser(__doc__, "run only this module (trainflow.compat.v1 or tensorflow.compat.v1)",
                ("--batch", 64))
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--role", help=__import__("argparse").SUPPRESS)
    ap.add_argument("--index", type=int, default=0, help=__import__("argparse").SUPPRESS)
    ap.add_argument("--spec", help=__import__("argparse").SUPPRESS)
    args = ap.parse_args()
    if args.role == "latency":
        print(json.dumps(_latency(args.module)))
        return 0
    if args.role:
        out = _task(args.module, json.loads(args.spec), args.role, args.index, args.seconds,
                    args.batch)
        if out is not None:
            print(json.dumps(out))
        return 0
    runs = [(args.module, sys.executable)] if args.module else \
        [("trainflow.compat.v1", sys.executable)]
    if not args.module and tf_python(args.tf_python):
        runs.append((TF1, tf_python(args.tf_python)))
    results = {m: measure(m, py, args.seconds, args.batch) for m, py in runs}
    if args.json:
        print(json.dumps(results))
        return 0
    for m, r in results.items():
        rates = ", ".join(f"{x:.2f}" for x in r["steps_per_s"])
        cpu = ", ".join(f"{x:.3f}" for x in r["cpu_s_per_step"])
        print(f"{m:24s} steps/s per worker: {rates:12s} worker CPU s/step: {cpu:14s} "
              f"MB/step: {r['bytes_per_step'] / 1e6:.1f}  "
              f"RunStep(trivial): {r['runstep_ms']:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
