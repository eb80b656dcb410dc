"""The master's placement: partial device specs completed from the master's task,
colocation and ref edges followed, unknown devices rejected (or soft-placed)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.distributed.placement import Placer

CLUSTER = tf.train.ClusterSpec({"ps": ["h:1", "h:2"], "worker": ["h:3", "h:4"]})


@pytest.mark.parametrize("device,task", [
    ("", "/job:worker/replica:0/task:1"),
    ("/device:CPU:0", "/job:worker/replica:0/task:1"),
    ("/job:ps", "/job:ps/replica:0/task:0"),
    ("/job:ps/task:1", "/job:ps/replica:0/task:1"),
    ("/job:worker", "/job:worker/replica:0/task:1"),
    ("/job:worker/task:0/device:GPU:3", "/job:worker/replica:0/task:0"),
])
def test_partial_specs(device, task):
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        c = tf.constant(1.0)
    assert Placer(CLUSTER, "worker", 1).place(c.op) == task


def test_colocation_and_refs_follow_the_variable():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:1"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:0"):
            add = tf.assign_add(v, 2.0)
    placer = Placer(CLUSTER, "worker", 0)
    assert placer.place(v.op) == "/job:ps/replica:0/task:1"
    assert placer.place(g.get_operation_by_name("v/read")) == "/job:ps/replica:0/task:1"
    assert placer.place(add.op) == "/job:ps/replica:0/task:1"


def test_unknown_task():
    g = tf.Graph()
    with g.as_default(), tf.device("/job:ps/task:5"):
        c = tf.constant(1.0, name="c")
    with pytest.raises(errors.InvalidArgumentError, match="Cannot assign a device for "
                                                          "operation c"):
        Placer(CLUSTER, "worker", 0).place(c.op)
    assert Placer(CLUSTER, "worker", 0, allow_soft_placement=True).place(c.op) == \
        "/job:worker/replica:0/task:0"
