"""TensorFlow 2.21 and trainflow on one wire: a TF client trains on a trainflow server,
a trainflow client trains on a TF server, and mixed clusters (TF ps with trainflow
workers, trainflow ps with TF workers) train, all with the in-process numbers.
TensorFlow runs in subprocesses; skipped without it."""
import json
import os
import subprocess

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from local_cluster import cluster_dict
from tf_interop import TF_ENV, TF_PYTHON, needs_tf

pytestmark = needs_tf

# The model of every test here, written for both libraries (TF 2.21 has no tf.layers).
MODEL = r'''
import numpy as np
rng = np.random.RandomState(0)
X = rng.rand(16, 4).astype(np.float32); Y = rng.rand(16, 1).astype(np.float32)
def build(tf, device_fn=None):
    import contextlib
    with (tf.device(device_fn) if device_fn else contextlib.nullcontext()):
        gs = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 4]); y = tf.placeholder(tf.float32, [None, 1])
        w1 = tf.get_variable("w1", [4, 8], initializer=tf.ones_initializer())
        b1 = tf.get_variable("b1", [8], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [8, 1], initializer=tf.ones_initializer())
        b2 = tf.get_variable("b2", [1], initializer=tf.zeros_initializer())
        out = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
        loss = tf.reduce_mean(tf.square(out - y))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=gs)
    return x, y, loss, train, gs
def steps(tf, sess, m, n=5):
    x, y, loss, train, gs = m
    sess.run(tf.global_variables_initializer())
    out = [float(sess.run([loss, train], {x: X, y: Y})[0]) for _ in range(n)]
    return out + [int(sess.run(gs))]
'''

TF_CLIENT = MODEL + r'''
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
target, spec = sys.argv[1], json.loads(sys.argv[2])
fn = tf.train.replica_device_setter(worker_device="/job:worker/task:0",
                                    cluster=tf.train.ClusterSpec(spec)) if spec else None
with tf.Session(target, config=tf.ConfigProto(operation_timeout_in_ms=30000)) as sess:
    print(json.dumps(steps(tf, sess, build(tf, fn))))
'''

TF_SERVER = r'''
import json, sys
import tensorflow as tf
spec, job, task = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
server = (tf.distribute.Server(tf.train.ClusterSpec(spec), job_name=job, task_index=task)
          if spec else tf.distribute.Server.create_local_server())
print(server.target, flush=True)
sys.stdin.read()
'''

_ns = {}
exec(MODEL, _ns)  # noqa: S102 - the shared model text above


def _env():
    env = dict(os.environ, **TF_ENV)
    env.pop("PYTHONPATH", None)
    return env


def _ours(target, spec=None):
    g = tf.Graph()
    with g.as_default():
        fn = tf.train.replica_device_setter(worker_device="/job:worker/task:0",
                                            cluster=tf.train.ClusterSpec(spec)) if spec else None
        m = _ns["build"](tf, fn)
        with tf.Session(target, graph=g, config=tf.ConfigProto(
                operation_timeout_in_ms=30000)) as sess:
            return _ns["steps"](tf, sess, m)


def _in_process():
    return _ours("")


def _tf_client(target, spec=None):
    proc = subprocess.run([TF_PYTHON, "-c", TF_CLIENT, target, json.dumps(spec or {})],
                          capture_output=True, text=True, timeout=180, env=_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


class _TFServer:
    def __init__(self, spec=None, job="", task=0):
        self.proc = subprocess.Popen([TF_PYTHON, "-c", TF_SERVER, json.dumps(spec or {}), job,
                                      str(task)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=_env())
        self.target = self.proc.stdout.readline().strip()
        assert self.target.startswith("grpc://"), "TF server did not start"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def _close(expected, got):
    np.testing.assert_allclose(got[:-1], expected[:-1], rtol=1e-5)
    assert got[-1] == expected[-1] == 5


def test_tf_client_on_trainflow_server():
    server = tf.train.Server.create_local_server()
    try:
        _close(_in_process(), _tf_client(server.target))
    finally:
        server.stop()


def test_trainflow_client_on_tf_server():
    with _TFServer() as tf_server:
        _close(_in_process(), _ours(tf_server.target))


def test_mixed_cluster_tf_ps_trainflow_worker():
    spec = cluster_dict(ps=1, workers=1)
    with _TFServer(spec, "ps", 0):
        worker = tf.train.Server(spec, "worker", 0)
        try:
            _close(_in_process(), _ours(worker.target, spec))
        finally:
            worker.stop()


def test_mixed_cluster_trainflow_ps_tf_worker():
    spec = cluster_dict(ps=1, workers=1)
    ps = tf.train.Server(spec, "ps", 0)
    try:
        with _TFServer(spec, "worker", 0) as tf_worker:
            _close(_in_process(), _tf_client(tf_worker.target, spec))
            assert "w1" in ps.resources.variables()
    finally:
        ps.stop()


TF_CALLABLE = r'''
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
a = tf.placeholder(tf.float32, [2], name="a")
v = tf.get_variable("v", [], initializer=tf.ones_initializer())
c = tf.reduce_sum(a * v)
with tf.Session(sys.argv[1]) as s:
    s.run(v.initializer)
    fn = s.make_callable(c, [a])
    print(json.dumps([float(fn(np.array([1, 2], np.float32))), float(s.run(c, {a: [3, 3]})),
                      [d.name for d in s.list_devices()]]))
'''


def test_tf_client_callable_and_devices():
    server = tf.train.Server.create_local_server()
    try:
        proc = subprocess.run([TF_PYTHON, "-c", TF_CALLABLE, server.target],
                              capture_output=True, text=True, timeout=180, env=_env())
        assert proc.returncode == 0, proc.stderr[-3000:]
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        assert got == [3.0, 6.0, ["/job:localhost/replica:0/task:0/device:CPU:0"]]
    finally:
        server.stop()


TF_FEATURES = r'''
import json, sys
import tensorflow.compat.v1 as tf
from tensorflow.python.client import timeline
tf.disable_v2_behavior()
target = sys.argv[1]
a = tf.placeholder(tf.float32, [], name="a"); b = tf.placeholder(tf.float32, [], name="b")
c = tf.placeholder(tf.float32, [], name="c")
r1 = tf.add(a, b, name="r1"); r2 = tf.multiply(r1, c, name="r2")
with tf.container("exp"):
    v = tf.Variable(2.0, name="v", use_resource=False)
out = {}
with tf.Session(target) as s:
    s.run(v.initializer)
    h = s.partial_run_setup([r1, r2], [a, b, c])
    out["r1"] = float(s.partial_run(h, r1, {a: 1, b: 2}))
    try:
        s.partial_run(h, r1)
    except tf.errors.InvalidArgumentError as e:
        out["twice"] = e.message.splitlines()[-1]
    out["r2"] = float(s.partial_run(h, r2, {c: 3}))
    md = tf.RunMetadata()
    s.run(tf.multiply(r2, v, name="scaled"), {a: 1, b: 2, c: 3},
          options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    out["nodes"] = sorted(n.node_name for d in md.step_stats.dev_stats for n in d.node_stats)
    trace = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    out["traced"] = sorted({e["args"]["name"] for e in trace["traceEvents"]
                            if e.get("ph") == "X"})
tf.Session.reset(target, ["exp"])
with tf.Session(target) as s:
    try:
        s.run(v)
    except tf.errors.FailedPreconditionError as e:
        out["after_reset"] = e.message
print(json.dumps(out))
'''


def test_tf_client_partial_run_trace_and_reset_on_trainflow_server():
    server = tf.train.Server.create_local_server()
    try:
        proc = subprocess.run([TF_PYTHON, "-c", TF_FEATURES, server.target],
                              capture_output=True, text=True, timeout=180, env=_env())
        assert proc.returncode == 0, proc.stderr[-3000:]
        got = json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        server.stop()
    assert got["r1"] == 3.0 and got["r2"] == 9.0
    assert got["twice"] == "The fetch r1:0 has already been fetched."
    assert {"r1", "r2", "scaled", "v", "v/read"} <= set(got["nodes"])
    assert {"r1", "r2", "scaled"} <= set(got["traced"])
    assert "Attempting to use uninitialized value v" in got["after_reset"]


def test_trainflow_partial_run_callable_trace_and_reset_on_tf_server():
    with _TFServer() as tf_server:
        g = tf.Graph()
        with g.as_default():
            a, b, c = (tf.placeholder(tf.float32, [], name=n) for n in "abc")
            r1 = tf.add(a, b, name="r1")
            r2 = tf.multiply(r1, c, name="r2")
            with tf.container("exp"):
                v = tf.Variable(2.0, name="v")
        with tf.Session(tf_server.target, graph=g) as sess:
            sess.run(v.initializer)
            h = sess.partial_run_setup([r1, r2], [a, b, c])
            assert sess.partial_run(h, r1, {a: 1, b: 2}) == 3.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="already been fed"):
                sess.partial_run(h, r2, {a: 1, c: 1})
            assert sess.partial_run(h, r2, {c: 3}) == 9.0
            fn = sess.make_callable(r2, [a, b, c])
            assert fn(1.0, 2.0, 3.0) == 9.0
            md = tf.RunMetadata()
            sess.run(r2, {a: 1, b: 2, c: 3}, run_metadata=md,
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
            names = {n.node_name for d in md.step_stats.dev_stats for n in d.node_stats}
            assert {"r1", "r2"} <= names
        tf.Session.reset(tf_server.target, ["exp"])
        with tf.Session(tf_server.target, graph=g) as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
                sess.run(v)
