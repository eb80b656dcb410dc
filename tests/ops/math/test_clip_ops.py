"""clip_by_value / clip_by_norm / clip_by_average_norm / global_norm / clip_by_global_norm
against the values TensorFlow recorded (fixtures/clip_ema/clip.json); the ClipByValue op,
its gradient and saturate_cast against TF 2.21's numbers."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.indexed_slices import IndexedSlicesValue
from trainflow._src.framework import errors
from trainflow._src.ops.math import clip_ops

from fixture_paths import FIXTURES

with open(os.path.join(FIXTURES, "clip_ema", "clip.json")) as _f:
    CASES = json.load(_f)["cases"]

F = np.float32


def _slices(values, indices=(0, 2)):
    return tf.IndexedSlices(tf.constant(np.asarray(values, F)), tf.constant(list(indices)),
                            tf.constant([4, 2]))


def _build(name, inp):
    t = inp.get("t")
    if name == "clip_by_value":
        return tf.clip_by_value(np.asarray(t, F), -2.5, 4.0)
    if name == "clip_by_value_tensor_bounds":
        return tf.clip_by_value(np.asarray(t, F), [-1., -3., 0.], [2., 4., 1.])
    if name == "clip_by_norm":
        return tf.clip_by_norm(np.asarray(t, F), 5.0)
    if name.startswith("clip_by_norm_axes"):
        return tf.clip_by_norm(np.asarray(t, F), 5.0, axes=[int(name[-1])])
    if name == "clip_by_norm_no_change":
        return tf.clip_by_norm(np.asarray(t, F), 100.0)
    if name == "clip_by_norm_indexed_slices":
        return tf.clip_by_norm(_slices(inp["values"]), 2.0)
    if name == "clip_by_average_norm":
        return tf.clip_by_average_norm(np.asarray(t, F), 0.5)
    a = np.asarray(inp.get("a", [0]), F)
    b = np.asarray(inp.get("b", [0]), F)
    if name == "global_norm":
        return tf.global_norm([a, b])
    if name == "global_norm_with_none_and_indexed_slices":
        return tf.global_norm([a, None, _slices(inp["values"])])
    if name == "clip_by_global_norm":
        return tf.clip_by_global_norm([a, None, _slices(inp["values"]), b], 2.0)
    if name == "clip_by_global_norm_no_change":
        return tf.clip_by_global_norm([a, b], 100.0)
    if name == "clip_by_global_norm_use_norm":
        return tf.clip_by_global_norm([a, b], 2.0, use_norm=tf.constant(10.0))
    return tf.clip_by_global_norm([a, np.asarray(inp["second"], F)], 1.0)


def _check(expected, got):
    if expected is None:
        assert got is None
    elif expected.get("type") == "IndexedSlices":
        assert isinstance(got, IndexedSlicesValue)
        np.testing.assert_allclose(got.values, np.asarray(expected["values"], F), rtol=1e-6)
        np.testing.assert_array_equal(got.indices, expected["indices"])
        np.testing.assert_array_equal(got.dense_shape, expected["dense_shape"])
    else:
        value = np.asarray(expected["value"], F)
        assert got.dtype == value.dtype and got.shape == value.shape
        np.testing.assert_allclose(got, value, rtol=1e-6)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the Inf cases
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    case = CASES[name]
    with tf.Graph().as_default():
        out = _build(name, case["inputs"])
        fetch = out if not isinstance(out, tuple) else (
            [x for x in out[0] if x is not None], out[1])
        with tf.Session() as sess:
            got = sess.run(fetch)
    if "output_list" in case:
        clipped = iter(got[0])
        for exp, tensor in zip(case["output_list"], out[0]):
            _check(exp, None if tensor is None else next(clipped))
        _check(case["global_norm"], got[1])
    else:
        _check(case["output"], got)


def test_op_names_and_types():
    with tf.Graph().as_default() as g:
        clipped = tf.clip_by_value(tf.constant([1.0, 5.0]), 0.0, 2.0, name="cv")
        assert clipped.op.type == "Maximum" and clipped.op.name == "cv"
        norm = tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0)
        assert norm.op.name == "clip_by_norm" and norm.op.type == "Identity"
        gn = tf.global_norm([tf.constant([3.0, 4.0])])
        assert gn.op.name == "global_norm/global_norm" and gn.op.type == "Sqrt"
        assert "L2Loss" in {op.type for op in g.get_operations()}
        out, _ = tf.clip_by_global_norm([tf.constant([3.0, 4.0]), tf.constant(1.0)], 1.0)
        assert [t.op.name for t in out] == ["clip_by_global_norm/clip_by_global_norm_0",
                                            "clip_by_global_norm/clip_by_global_norm_1"]
        sparse = tf.clip_by_value(_slices([[3.0, -5.0], [0.5, 9.0]]), -1.0, 2.0)
        assert isinstance(sparse, tf.IndexedSlices)
        with tf.Session() as sess:
            got = sess.run(sparse)
        np.testing.assert_array_equal(got.values, [[2.0, -1.0], [0.5, 2.0]])
        np.testing.assert_array_equal(got.indices, [0, 2])
    with pytest.raises(TypeError, match="should be a sequence"):
        tf.global_norm(tf.constant([1.0]))
    with pytest.raises(ValueError):
        tf.clip_by_value(tf.constant([1.0, 2.0]), [0.0, 0.0, 0.0], 1.0)


def test_clip_by_value_op_and_gradient():
    x = np.array([[1., 5., -3.], [0.5, 2., 9.]], F)
    with tf.Graph().as_default():
        tx, lo, hi = tf.constant(x), tf.constant([0., 1., -5.]), tf.constant(4.)
        y = clip_ops.clip_by_value_op(tx, tf.constant(-1.0), tf.constant(4.0))
        assert y.op.type == "ClipByValue" and y.shape.as_list() == [2, 3]
        z = clip_ops.clip_by_value_op(tx, lo, hi)
        grads = tf.gradients(tf.reduce_sum(z * [[1., 2., 3.], [4., 5., 6.]]), [tx, lo, hi])
        bad = clip_ops.clip_by_value_op(tx, tf.constant([0., 1.]), hi)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y), np.clip(x, -1, 4))
            gx, glo, ghi = sess.run(grads)
            with pytest.raises(errors.InvalidArgumentError, match="must be either scalars"):
                sess.run(bad)
    # TF 2.21's numbers for this case.
    np.testing.assert_array_equal(gx, [[1., 0., 3.], [4., 5., 0.]])
    np.testing.assert_array_equal(glo, [0., 0., 0.])
    assert ghi == 8.0


@pytest.mark.parametrize("value,dtype,expected", [
    (np.array([-5., 300.7, 3.5, np.inf, -np.inf], F), tf.uint8, [0, 255, 3, 255, 0]),
    (np.array([-3e9, 3e9, 1.5], F), tf.int32, [-2147483648, 2147483520, 1]),
    (np.array([70000., -1e6, 2.5]), tf.float16, [65504., -65504., 2.5]),
    (np.array([-200, 100, 300], np.int32), tf.int8, [-128, 100, 127]),
    (np.array([1 + 2j, 300 - 4j], np.complex64), tf.uint8, [1, 255]),
    (np.array([2 ** 40, -5], np.int64), tf.uint32, [4294967295, 0]),
])
def test_saturate_cast_clamps_with_clip_by_value(value, dtype, expected):
    with tf.Graph().as_default() as g:
        out = tf.saturate_cast(value, dtype)
        assert ("ClipByValue", "saturate_cast/clamp") in {
            (op.type, op.name) for op in g.get_operations()}
        with tf.Session() as sess:
            got = sess.run(out)
    assert got.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(got, np.asarray(expected, dtype.as_numpy_dtype))
