"""The resource-variable ops' lowerings (reads, assignments, gather, scatters) against
their NumPy kernels: each case updates a resource variable from fed indices and values
three times in a row on both backends (repeated indices included), and the errors the
NumPy kernels raise are raised on XLA too. Skipped when jax is not installed."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.ops.state import resource_variable_ops as rv_ops

pytest.importorskip("jax")
import xla_compare  # noqa: E402

IDX = np.array([0, 2, 0], np.int32)
ROWS = np.array([[2.0, -1.0], [0.5, 4.0], [-3.0, 0.25]], np.float32)
INIT = np.arange(1.0, 9.0, dtype=np.float32).reshape(4, 2)

# (name, the variable's initial value, fed inputs, fn(handle, *placeholders) -> update op)
CASES = [
    ("scatter_add", INIT, (IDX, ROWS), rv_ops.resource_scatter_add),
    ("scatter_sub", INIT, (IDX, ROWS), rv_ops.resource_scatter_sub),
    ("scatter_mul", INIT, (IDX, ROWS), rv_ops.resource_scatter_mul),
    ("scatter_div", INIT, (IDX, ROWS), rv_ops.resource_scatter_div),
    ("scatter_min", INIT, (IDX, ROWS), rv_ops.resource_scatter_min),
    ("scatter_max", INIT, (IDX, ROWS), rv_ops.resource_scatter_max),
    ("scatter_update", INIT, (IDX, ROWS), rv_ops.resource_scatter_update),
    ("scatter_add_2d_indices", INIT, (np.array([[3, 1], [1, 3]], np.int32),
                                      np.ones((2, 2, 2), np.float32)),
     rv_ops.resource_scatter_add),
    ("scatter_div_int", np.array([[7, -7], [9, 100], [-5, 3]], np.int32),
     (np.array([0, 1, 0, 2], np.int32), np.array([[2, 2], [-3, 7], [2, -1], [5, 5]],
                                                  np.int32)),
     rv_ops.resource_scatter_div),
    ("scatter_mul_int64", np.array([3, -2, 5], np.int64),
     (np.array([2, 2], np.int64), np.array([4, -1], np.int64)), rv_ops.resource_scatter_mul),
    ("assign", INIT, (INIT[::-1] * 0.5,), rv_ops.assign_variable_op),
    ("assign_add", INIT, (INIT * 0.5,), rv_ops.assign_add_variable_op),
    ("assign_sub", INIT, (INIT * 0.5,), rv_ops.assign_sub_variable_op),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_update_matches_numpy(case):
    _, init, fed, update = case

    def build():
        v = tf.Variable(init, use_resource=True)
        phs = [xla_compare.placeholder(f) for f in fed]
        before = v.read_value() * 1
        with tf.control_dependencies([before]):
            op = update(v.handle, *phs)
        with tf.control_dependencies([op]):
            after = v.read_value() + 0
        return [before, after], v.initializer, phs
    np_run, xla_run = xla_compare.run_both(build, lambda i: fed, steps=3,
                                           on_host=["VarHandleOp"])
    for a, b in zip(np_run, xla_run):
        for va, vb in zip(a, b):
            assert va.dtype == vb.dtype
            np.testing.assert_allclose(vb, va, rtol=1e-6)
    assert not np.array_equal(np_run[-1][1], init)


def test_reads_gather_shape_and_is_initialized_match_numpy():
    def build():
        v = tf.Variable(INIT, use_resource=True)
        ids = tf.placeholder(tf.int64, [None, None])
        x = tf.placeholder(tf.float32, [None])
        fetches = [v.sparse_read(ids) * x[0], v.read_value() * x[0],
                   rv_ops.var_is_initialized_op(v.handle),
                   apply_op("VariableShape", input=v.handle, out_type=tf.int64).outputs[0],
                   tf.reduce_sum(tf.nn.embedding_lookup(v, ids[0]), 0) + x]
        return fetches, v.initializer, [ids, x]
    feeds = (np.array([[3, 0], [1, 1]], np.int64), np.array([2.0, 1.0], np.float32))
    np_run, xla_run = xla_compare.run_both(build, lambda i: feeds, on_host=["VarHandleOp"])
    for va, vb in zip(np_run[0], xla_run[0]):
        assert va.dtype == vb.dtype
        np.testing.assert_array_equal(vb, va)


def _errors(build, feeds):
    """The (class, op type, message) each backend raises for `build()`'s fetch."""
    out = []
    for jit in (False, True):
        with tf.Graph().as_default():
            fetch, init, phs = build()
            with tf.Session(config=xla_compare.config(jit)) as sess:
                sess.run(init)
                with pytest.raises(tf.errors.OpError) as info:
                    sess.run(fetch, dict(zip(phs, feeds)))
        out.append((type(info.value), info.value.op.type, info.value.message))
    return out


def _scatter_program(fn, init):
    def build():
        v = tf.Variable(init, use_resource=True)
        idx = tf.placeholder(tf.int32, [None])
        upd = tf.placeholder(tf.as_dtype(init.dtype), [None] + list(init.shape[1:]))
        with tf.control_dependencies([fn(v.handle, idx, upd)]):
            return v.read_value() * 1, v.initializer, [idx, upd]
    return build


ERROR_CASES = [
    ("scatter_index_out_of_range", _scatter_program(rv_ops.resource_scatter_add, INIT),
     (np.array([1, 4], np.int32), np.ones((2, 2), np.float32)),
     tf.errors.InvalidArgumentError),
    ("scatter_div_int_by_zero", _scatter_program(rv_ops.resource_scatter_div,
                                                 np.ones((3, 2), np.int32)),
     (np.array([1], np.int32), np.zeros((1, 2), np.int32)), tf.errors.InvalidArgumentError),
    ("scatter_updates_shape", _scatter_program(rv_ops.resource_scatter_update, INIT),
     (np.array([1, 2], np.int32), np.ones((3, 2), np.float32)),
     tf.errors.InvalidArgumentError),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_numpy(case):
    _, build, feeds, cls = case
    on_numpy, on_xla = _errors(build, feeds)
    assert on_numpy[0] is cls and on_xla == on_numpy


def test_assign_of_the_wrong_shape_raises_the_numpy_error():
    def build():
        v = tf.get_variable("v", [2, 2], use_resource=True)
        x = tf.placeholder(tf.float32, [None, 2])
        assign = apply_op("AssignVariableOp", resource=v.handle, value=x * 2,
                          validate_shape=True)
        with tf.control_dependencies([assign]):
            return v.read_value() * 1, v.initializer, [x]
    on_numpy, on_xla = _errors(build, (np.ones((3, 2), np.float32),))
    assert on_numpy[0] is tf.errors.InvalidArgumentError and on_xla == on_numpy
