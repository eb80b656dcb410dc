"""The master's runtime features on a localhost cluster: step stats and partition graphs
in RunMetadata, callables (MakeCallable/RunCallable/ReleaseCallable), resource
containers and Session.reset across tasks."""
import gc

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.protos import master_pb2
from local_cluster import local_cluster

CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)
PS = "/job:ps/replica:0/task:0/device:CPU:0"
WORKER = "/job:worker/replica:0/task:0/device:CPU:0"


@pytest.fixture
def cluster():
    with local_cluster(ps=1, workers=2) as (spec, servers):
        yield spec, servers


def _step_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.device("/job:ps/task:0"):
            w = tf.Variable([1.0, 2.0], name="w")
            scaled = tf.multiply(w, 3.0, name="scaled")
        with tf.device("/job:worker/task:0"):
            out = tf.reduce_sum(scaled * x, name="out")
    return g, x, w, out


@pytest.mark.xla_differs("step stats and partition graphs show a compiled segment, not its ops")
def test_full_trace_gives_step_stats_per_task_device_and_partition_graphs(cluster):
    spec, servers = cluster
    g, x, w, out = _step_graph()
    with tf.Session(servers["worker"][0].target, graph=g, config=CONFIG) as sess:
        sess.run(w.initializer)
        md = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE,
                             output_partition_graphs=True)
        assert sess.run(out, {x: [1.0, 1.0]}, options=opts, run_metadata=md) == 9.0
        by_device = {d.device: d for d in md.step_stats.dev_stats}
        assert sorted(by_device) == [PS, WORKER]
        ps_nodes = {n.node_name: n for n in by_device[PS].node_stats}
        worker_nodes = {n.node_name for n in by_device[WORKER].node_stats}
        assert {"w", "scaled"} <= set(ps_nodes) and "out" in worker_nodes
        assert not {"w", "scaled"} & worker_nodes
        # _Send/_Recv pairs carry the values between the tasks.
        assert any(n.startswith("scaled") and "_send" in n for n in ps_nodes)
        stat = ps_nodes["scaled"]
        assert stat.all_start_micros > 0
        assert stat.op_end_rel_micros >= stat.op_start_rel_micros >= 0
        assert stat.timeline_label.startswith("scaled = Mul(")
        devices = sorted({n.device for gd in md.partition_graphs for n in gd.node})
        assert devices == [PS, WORKER] and len(md.partition_graphs) == 2
        # Without tracing, no metadata.
        md2 = tf.RunMetadata()
        sess.run(out, {x: [1.0, 1.0]}, run_metadata=md2)
        assert not md2.step_stats.dev_stats and not md2.partition_graphs


def test_make_callable_runs_on_the_master(cluster):
    spec, servers = cluster
    g, x, w, out = _step_graph()
    with tf.Session(servers["worker"][0].target, graph=g, config=CONFIG) as sess:
        sess.run(w.initializer)
        master = servers["worker"][0]._master
        fn = sess.make_callable(out, [x])
        (session,) = master._sessions.values()
        assert len(session._callables) == 1
        assert fn(np.array([1.0, 0.0], np.float32)) == 3.0
        assert fn([0.0, 1.0]) == 6.0
        with pytest.raises(ValueError, match="shape"):
            fn([1.0, 2.0, 3.0])
        both = sess.make_callable({"out": out, "w": w, "init": w.initializer}, [x])
        got = both([1.0, 1.0])
        assert got["out"] == 9.0 and got["init"] is None
        np.testing.assert_array_equal(got["w"], [1.0, 2.0])
        del fn, both
        gc.collect()
        assert session._callables == {}  # released when the callables went away
        for handle, message in [(0, "Attempted to run callable after handle was released: 0"),
                                (99, "No such callable handle: 99")]:
            with pytest.raises(errors.InvalidArgumentError) as info:
                session.run_callable(master_pb2.RunCallableRequest(handle=handle))
            assert info.value.message == message
        session.release_callable(99)  # quietly, as TensorFlow
        with_opts = sess.make_callable(out, [x], accept_options=True)
        md = tf.RunMetadata()
        with_opts([1.0, 1.0], options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                  run_metadata=md)
        assert len(md.step_stats.dev_stats) == 2


def _container_graph(cluster, task):
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{task}", cluster=cluster)):
        with tf.container("experiment"):
            v = tf.get_variable("v", [], initializer=tf.ones_initializer())
            with tf.device("/job:ps/task:0"):
                q = tf.FIFOQueue(5, tf.float32, shapes=[[]], shared_name="q", name="q")
        w = tf.get_variable("w", [], initializer=tf.ones_initializer())
        init = tf.global_variables_initializer()
        enq = q.enqueue(7.0)
    return g, v, w, q, init, enq


def test_containers_and_reset_across_tasks(cluster):
    spec, servers = cluster
    g0, v0, w0, q0, init0, enq0 = _container_graph(spec, 0)
    g1, v1, w1, q1, _, _ = _container_graph(spec, 1)
    assert v0.op.get_attr("container") == b"experiment"
    assert q0.queue_ref.op.get_attr("container") == b"experiment"
    assert w0.op.get_attr("container") == b""
    target0, target1 = servers["worker"][0].target, servers["worker"][1].target
    ps = servers["ps"][0].resources
    s0 = tf.Session(target0, graph=g0, config=CONFIG)
    s1 = tf.Session(target1, graph=g1, config=CONFIG)  # another master's session
    try:
        s0.run([init0, enq0])
        assert s1.run([v1, w1, q1.size()]) == [1.0, 1.0, 1]
        assert "v" in ps.variables("experiment") and "w" not in ps.variables("experiment")
        assert "v" not in ps.variables("localhost") and "w" in ps.variables("localhost")
        # Without containers, Session.reset clears the default container only.
        tf.Session.reset(target0)
        with pytest.raises(errors.AbortedError, match="not found"):
            s0.run(w0)  # the master closed its sessions
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized value w"):
            s1.run(w1)
        assert s1.run([v1, q1.size()]) == [1.0, 1]
        tf.Session.reset(target0, ["experiment"])
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
            s1.run(v1)
        assert s1.run(q1.size()) == 0  # a new, empty queue
    finally:
        s0.close()
        s1.close()
