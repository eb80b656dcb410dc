"""Session construction, close, context managers, default sessions, InteractiveSession,
devices and config."""
import os
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.protos import config_pb2


@pytest.fixture
def g():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="a")
    return g


def test_close_and_use_after_close(g):
    sess = tf.Session(graph=g)
    assert sess.run("a:0") == 1.0
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run("a:0")
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.partial_run_setup(["a:0"])
    sess.close()  # closing twice is fine


def test_context_manager_sets_defaults_and_closes(g):
    with tf.Session(graph=g) as sess:
        assert tf.get_default_session() is sess
        assert tf.get_default_graph() is g
        assert g.get_tensor_by_name("a:0").eval() == 1.0
    assert tf.get_default_session() is None
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run("a:0")


def test_as_default_keeps_the_session_open(g):
    sess = tf.Session(graph=g)
    with sess.as_default():
        assert tf.get_default_session() is sess
        assert g.get_tensor_by_name("a:0").eval() == 1.0
    assert tf.get_default_session() is None
    assert sess.run("a:0") == 1.0
    sess.close()


def test_default_session_is_per_thread(g):
    seen = []
    with tf.Session(graph=g).as_default():
        t = threading.Thread(target=lambda: seen.append(tf.get_default_session()))
        t.start()
        t.join()
    assert seen == [None]


def test_reset_default_graph_inside_a_session_block(g):
    def worker(out):
        with tf.Session(graph=tf.Graph()):
            try:
                tf.reset_default_graph()
            except AssertionError:
                out.append("refused")
        sess = tf.Session(graph=tf.Graph())
        with sess.as_default():  # as_default alone does not enter the graph
            tf.reset_default_graph()
            out.append("ok")
    out = []
    t = threading.Thread(target=worker, args=(out,))
    t.start()
    t.join()
    assert out == ["refused", "ok"]


def test_interactive_session(g):
    isess = tf.InteractiveSession(graph=g)
    try:
        assert tf.get_default_session() is isess
        assert tf.get_default_graph() is g
        assert g.get_tensor_by_name("a:0").eval() == 1.0
    finally:
        isess.close()
    assert tf.get_default_session() is not isess
    assert tf.get_default_graph() is not g


def test_interactive_sessions_may_close_out_of_order(g):
    first = tf.InteractiveSession(graph=g)
    second = tf.InteractiveSession(graph=g)
    first.close()
    assert tf.get_default_session() is second
    second.close()
    assert tf.get_default_session() is None


@pytest.mark.parametrize("kwargs, message", [
    ({"graph": 5}, 'Argument `graph` must be a tf.Graph, but got "int"'),
    ({"target": 5}, 'Argument `target` must be a string, but got "int"'),
    ({"config": 5}, 'Argument `config` must be a tf.ConfigProto, but got "int"'),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(TypeError, match=message):
        tf.Session(**kwargs)


def test_properties_devices_and_config(g):
    config = tf.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1,
                            allow_soft_placement=True, log_device_placement=False)
    with tf.Session(graph=g, config=config) as sess:
        assert sess.run("a:0") == 1.0
        assert sess.graph is g
        assert sess.sess_str == b""
        assert [n.name for n in sess.graph_def.node] == ["a"]
        devices = sess.list_devices()
        assert [(d.name, d.device_type) for d in devices] == [
            ("/job:localhost/replica:0/task:0/device:CPU:0", "CPU")]
        assert devices[0].memory_limit_bytes > 0


def test_operation_timeout_from_config_is_the_default_timeout(g):
    config = config_pb2.ConfigProto(operation_timeout_in_ms=1234)
    with tf.Session(graph=g, config=config) as sess:
        assert sess._default_timeout_ms == 1234


def test_sessions_have_separate_variable_state():
    from trainflow._src.ops.state import state_ops
    with tf.Graph().as_default():
        v = state_ops.variable_op_v2([], tf.float32, name="v")
        init = state_ops.assign(v, np.float32(3.0))
        s1, s2 = tf.Session(), tf.Session()
        s1.run(init)
        assert s1.run(v) == 3.0
        with pytest.raises(tf.errors.FailedPreconditionError):
            s2.run(v)
        s1.close()
        s2.close()


@pytest.mark.parametrize("config, expected", [
    (tf.ConfigProto(intra_op_parallelism_threads=1), 1),
    (tf.ConfigProto(intra_op_parallelism_threads=3), 3),
    (tf.ConfigProto(), None),
    (None, None),
])
def test_intra_op_threads_follow_the_first_sessions_config(g, config, expected,
                                                          monkeypatch):
    from trainflow._src.kernels import intra_op
    monkeypatch.setitem(intra_op._state, "sized_by_session", False)
    try:
        with tf.Session(graph=g, config=config):
            automatic = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
                else os.cpu_count()
            assert intra_op.threads() == (expected or automatic)
        # Later sessions share the pool the first one sized, as in TensorFlow.
        with tf.Session(graph=g, config=tf.ConfigProto(intra_op_parallelism_threads=5)):
            assert intra_op.threads() == (expected or automatic)
    finally:
        intra_op.set_threads(0)
