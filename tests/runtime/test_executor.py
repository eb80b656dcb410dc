"""The executor: pruning and ordering, plan caching, kernel errors mapped to the node."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors, registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.runtime.planner import needed_ops

if not registry.is_registered("TestExecFail"):
    def _fail(x, *, mode):
        if mode == b"value":
            raise ValueError("bad value")
        if mode == b"memory":
            raise MemoryError("too big")
        if mode == b"oom":
            raise errors.OutOfRangeError(None, None, "End of sequence")
        return x

    registry.register_op("TestExecFail", inputs=["x: T"], outputs=["y: T"],
                         attrs=["T: type", "mode: string"], shape_fn=unchanged_shape,
                         kernel=_fail)
    registry.register_op("TestExecNoKernel", inputs=["x: T"], outputs=["y: T"],
                         attrs=["T: type"], shape_fn=unchanged_shape)
    registry.register_op("TestExecLog", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
                         shape_fn=unchanged_shape, stateful=True,
                         kernel=lambda x, *, ctx: _LOG.append(ctx.op.name) or x.copy())

_LOG = []


def _log(x, name):
    return apply_op("TestExecLog", x=x, name=name).outputs[0]


def test_needed_ops_prunes_and_orders_by_creation():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        unused = tf.identity(a, name="unused")
        with tf.control_dependencies([b]):
            c = tf.identity(a, name="c")
        d = tf.identity(c, name="d")
    assert [op.name for op in needed_ops([d.op], set())] == ["a", "b", "c", "d"]
    assert [op.name for op in needed_ops([d.op], {c})] == ["d"]
    assert unused.op not in needed_ops([d.op], set())


def test_only_needed_kernels_run_in_the_order_they_become_ready():
    _LOG.clear()
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [], name="p")
        x = _log(p, "x")
        _log(p, "not_needed")
        y = _log(x, "y")
        z = _log(p, "z")
        with tf.Session() as sess:
            sess.run([y, z], {p: 1.0})
            assert _LOG == ["x", "z", "y"]  # x and z are ready once p is fed; y after x
            sess.run(y, {x: 5.0})
            assert _LOG == ["x", "z", "y", "y"]


def test_plans_are_cached_per_signature_and_graph_version():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
        with tf.Session() as sess:
            sess.run(a)
            sess.run(a)
            assert len(sess._plans) == 1
            sess.run([a])  # the same elements: the same plan
            assert len(sess._plans) == 1
            sess.run(a, {a: 3.0})
            assert len(sess._plans) == 2
            tf.identity(a)
            sess.run(a)
            assert len(sess._plans) == 3


@pytest.mark.xla_differs("a compiled segment is one XlaCluster call in the plan source")
def test_plan_source_is_straight_line_code():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [], name="p")
        y = tf.identity(tf.identity(p))
        with tf.Session() as sess:
            sess.run(y, {p: 1.0})
            [plan] = sess._plans.values()
    assert plan.source.splitlines()[0] == "def _plan(_f):"
    assert "for " not in plan.source and len(plan.ops) == 2


@pytest.mark.parametrize("mode, exc, text", [
    (b"value", tf.errors.InvalidArgumentError, "TestExecFail: ValueError: bad value"),
    (b"memory", tf.errors.ResourceExhaustedError, "TestExecFail: MemoryError: too big"),
    (b"oom", tf.errors.OutOfRangeError, "End of sequence"),
])
def test_kernel_errors_name_the_node(mode, exc, text):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [], name="p")
        y = apply_op("TestExecFail", x=tf.identity(p), mode=mode, name="failing").outputs[0]
        line = y.op.traceback[-1][1]
        out = tf.identity(y)
        with tf.Session() as sess:
            with pytest.raises(exc) as info:
                sess.run(out, {p: 1.0})
            with pytest.raises(exc):
                sess.run(out, {p: 1.0}, options=tf.RunOptions(trace_level=3),
                         run_metadata=tf.RunMetadata())
    assert info.value.op is y.op
    assert text in info.value.message
    assert f"[[node failing (TestExecFail) defined at {__file__}:{line} ]]" in info.value.message


def test_missing_kernel():
    with tf.Graph().as_default():
        y = apply_op("TestExecNoKernel", x=tf.constant(1.0), name="nokernel").outputs[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.UnimplementedError,
                               match="No kernel registered for op type 'TestExecNoKernel'"):
                sess.run(y)


def test_cycles_are_reported():
    with tf.Graph().as_default():
        a = tf.identity(tf.constant(1.0), name="ca")
        b = tf.identity(a, name="cb")
        a.op._update_input(0, b)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Graph has a cycle through the ops: ca, cb"):
                sess.run(b)


def test_kernels_are_bound_once_per_session_with_their_attrs():
    with tf.Graph().as_default():
        y = apply_op("TestExecFail", x=tf.constant(np.float32(2)), mode=b"ok").outputs[0]
        with tf.Session() as sess:
            assert sess.run(y) == 2.0
            bound = sess._context.kernels[y.op]
            sess.run([y])
            assert sess._context.kernels[y.op] is bound
            assert bound.keywords == {"mode": b"ok"}
