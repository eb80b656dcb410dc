"""tf.train.replica_device_setter and tf.train.ClusterSpec, against TensorFlow's placement."""
import json

import pytest

import trainflow.compat.v1 as tf
from tests.helpers.tf_interop import needs_tf, run_json

# One program, run here and under TensorFlow: the device of every op it builds.
PROGRAM = r"""
def build(tf):
    out = {}
    cluster = tf.train.ClusterSpec({"ps": ["ps0:2222", "ps1:2222"],
                                    "worker": ["w0:2222", "w1:2222"]})
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=cluster)):
            a = tf.Variable(1.0, name="a")
            b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
            c = tf.Variable(3.0, name="c")
            with tf.device("/job:ps/task:1"):
                d = tf.Variable(4.0, name="d")
            with tf.device("/cpu:0"):
                e = tf.Variable(5.0, name="e")
            y = tf.add(a, c, name="y")
        with tf.device(tf.train.replica_device_setter(
                ps_tasks=3, worker_device="/job:worker/task:1", merge_devices=True)):
            f = tf.Variable(6.0, name="f")
            z = tf.identity(f, name="z")
    for op in g.get_operations():
        out[op.name] = op.device
    return out
"""


def _ours():
    scope = {}
    exec(PROGRAM, scope)  # noqa: S102 - the test's own program
    return scope["build"](tf)


def test_round_robin_and_merge_rules():
    devices = _ours()
    assert devices["a"] == "/job:ps/task:0"
    assert devices["b"] == "/job:ps/task:1"
    assert devices["c"] == "/job:ps/task:0"
    assert devices["d"] == "/job:ps/task:1"
    assert devices["y"] == "/job:worker"
    assert devices["z"] == "/job:worker/task:1"


@needs_tf
def test_devices_match_tensorflow():
    code = ("import json\nimport tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" +
            PROGRAM + "\nprint(json.dumps(build(tf)))\n")
    theirs = run_json(code)
    ours = _ours()
    shared = sorted(set(theirs) & set(ours))
    assert {n: ours[n] for n in shared} == {n: theirs[n] for n in shared}
    assert {"a", "b", "c", "d", "e", "y", "f", "z"} <= set(shared)


def test_no_ps_tasks_gives_no_device_function():
    assert tf.train.replica_device_setter() is None
    assert tf.train.replica_device_setter(cluster={"worker": ["w:1"]}) is None
    with pytest.raises(TypeError, match="cluster must be"):
        tf.train.replica_device_setter(cluster=["ps:1"])
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_cluster_spec():
    spec = tf.train.ClusterSpec({"ps": ["p0:1", "p1:1"], "worker": {1: "w1:1", 3: "w3:1"}})
    assert spec.jobs == ["ps", "worker"]
    assert spec.as_dict() == {"ps": ["p0:1", "p1:1"], "worker": {1: "w1:1", 3: "w3:1"}}
    assert spec.num_tasks("worker") == 2 and spec.task_indices("worker") == [1, 3]
    assert spec.task_address("worker", 3) == "w3:1"
    assert spec.job_tasks("worker") == [None, "w1:1", None, "w3:1"]
    assert tf.train.ClusterSpec(spec.as_cluster_def()) == spec
    assert tf.train.ClusterSpec(spec) == spec and bool(spec)
    assert not tf.train.ClusterSpec({})
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        spec.num_tasks("chief")
    with pytest.raises(ValueError, match="No task with index 0 in job 'worker'"):
        spec.task_address("worker", 0)
    with pytest.raises(TypeError):
        tf.train.ClusterSpec(["ps"])
    with pytest.raises(TypeError):
        tf.train.ClusterSpec({"ps": "p0:1"})
    assert json.dumps(spec.as_dict()["ps"]) == '["p0:1", "p1:1"]'
