"""Slice, StridedSlice and `Tensor.__getitem__`: values against NumPy, static shapes and
errors as TensorFlow 2.21 gives them (expectations produced by TF in a TF 2.21 environment; 300
random slice specs were also compared value-for-value with TF while writing this)."""
import random

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.array.slicing import strided_slice_plan

from op_checks import assert_run_error, cases, raises


STATIC_SHAPES = [
    ("range_and_step", lambda e: e.x[1:, ::2], "(?, 2)"),
    ("last_column", lambda e: e.x[:, -1], "(?,)"),
    ("tensor_index", lambda e: e.x[e.i], "(3,)"),
    ("tensor_start", lambda e: e.x[e.i:], "(?, 3)"),
    ("reversed", lambda e: e.c[::-1, 1::-1], "(2, 2)"),
    ("past_the_end", lambda e: e.c[5:], "(0, 3)"),
    ("ellipsis", lambda e: e.x3[..., 0], "(?, 2)"),
    ("new_axes", lambda e: e.x3[tf.newaxis, :, None, 1], "(1, ?, 1, 3)"),
    ("unknown_rank", lambda e: e.u[0], "<unknown>"),
    ("unknown_rank_ellipsis", lambda e: e.u[..., 1:], "<unknown>"),
    ("negative_bounds", lambda e: e.c[-1:, -2:-1], "(1, 1)"),
    ("scalar", lambda e: e.c[1, 2], "()"),
    ("slice_minus_one", lambda e: tf.slice(e.x, [0, 1], [-1, -1]), "(?, 2)"),
    ("slice_partial_begin", lambda e: tf.slice(e.x, [e.i, 1], [2, -1]), "(2, 2)"),
]


@pytest.mark.parametrize("build,expected", cases(STATIC_SHAPES))
def test_static_shapes_match_tf(env, build, expected):
    assert str(build(env).shape) == expected


GRAPH_ERRORS = [
    ("out_of_bounds", lambda e: e.c[:, 10], ValueError,
     "slice index 10 of dimension 1 out of bounds."),
    ("too_many_indices", lambda e: e.c[0, 0, 0], ValueError,
     "Index out of range using input dim 2; input has only 2 dims"),
    ("two_ellipses", lambda e: e.c[..., 0, ...], ValueError,
     "Multiple ellipses in slice spec not allowed"),
    ("float_index", lambda e: e.c[1.5], TypeError,
     "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
     "tf.int32/tf.int64 tensors are valid indices, got 1.5"),
    ("vector_index", lambda e: e.c[tf.constant([0, 1])], TypeError,
     "scalar tf.int32/tf.int64 tensors are valid indices, got <tf.Tensor"),
    ("zero_stride", lambda e: e.c[::0], ValueError, "strides[0] must be non-zero"),
    ("shrink_negative_stride", lambda e: tf.strided_slice(e.c, [0], [1], [-1],
                                                          shrink_axis_mask=1),
     ValueError, "only stride 1 allowed on non-range indexing."),
    ("slice_rank", lambda e: tf.slice(e.c, [0], [1]), ValueError,
     "Shape must be rank 1 but is rank 2"),
    ("slice_negative_size", lambda e: tf.slice(e.c, [0, 0], [-2, 1]), ValueError,
     "Invalid value in tensor used for shape: -2"),
]


@pytest.mark.parametrize("build,cls,message", cases(GRAPH_ERRORS))
def test_graph_time_errors(env, build, cls, message):
    with raises(cls, message):
        build(env)


F23 = np.zeros([2, 3], np.float32)
RUN_ERRORS = [
    ("index_out_of_bounds", lambda p, i: p[i], [F23, np.int32(5)],
     "slice index 5 of dimension 0 out of bounds."),
    ("zero_stride", lambda p, s: tf.strided_slice(p, [0], [1], s), [F23, np.array([0], np.int32)],
     "strides[0] must be non-zero"),
    ("slice_size", lambda p, b, s: tf.slice(p, b, s),
     [F23, np.array([0, 1], np.int32), np.array([1, 3], np.int32)],
     "Expected size[1] in [0, 2], but got 3"),
    ("slice_begin", lambda p, b, s: tf.slice(p, b, s),
     [F23, np.array([0, 4], np.int32), np.array([1, -1], np.int32)],
     "Expected begin[1] in [0, 3], but got 4"),
    ("slice_rank", lambda p, b, s: tf.slice(p, b, s),
     [F23, np.array([0, 1, 0], np.int32), np.array([1, 1, 1], np.int32)],
     "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [3] and [3] "
     "instead."),
]


@pytest.mark.parametrize("build,values,message", cases(RUN_ERRORS))
def test_run_time_errors(build, values, message):
    assert_run_error(build, values, message)


def _random_spec(rng, shape):
    """A random valid NumPy basic index for `shape` (ints in range, any slices)."""
    spec, dim, used_ellipsis = [], 0, False
    for _ in range(rng.randint(1, len(shape) + 2)):
        k = rng.random()
        if k < 0.15 and not used_ellipsis:
            spec.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape) - sum(1 for s in spec if s is not None and s is not Ellipsis) + 1
        elif k < 0.3:
            spec.append(None)
        elif dim < len(shape) and k < 0.5:
            spec.append(rng.randint(-shape[dim], shape[dim] - 1))
            dim += 1
        elif dim < len(shape):
            spec.append(slice(rng.choice([None, rng.randint(-8, 8)]),
                              rng.choice([None, rng.randint(-8, 8)]),
                              rng.choice([None, 1, 2, 3, -1, -2])))
            dim += 1
    return tuple(spec)


def test_random_slices_match_numpy():
    rng = random.Random(1)
    x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    with tf.Graph().as_default():
        c = tf.constant(x)
        p = tf.placeholder(tf.float32, [None, 5, None])
        specs, outs = [], []
        while len(specs) < 200:
            spec = _random_spec(rng, x.shape)
            try:
                want = x[spec]
            except IndexError:
                continue
            a, b = c[spec], p[spec]
            assert a.shape.as_list() == list(want.shape), spec
            assert b.shape.is_compatible_with(want.shape), spec
            specs.append((spec, want))
            outs.append((a, b))
        with tf.Session() as sess:
            got = sess.run(outs, {p: x})
    for (spec, want), (a, b) in zip(specs, got):
        np.testing.assert_array_equal(a, want, err_msg=repr(spec))
        np.testing.assert_array_equal(b, want, err_msg=repr(spec))


def test_plan_with_unknown_values():
    final, index = strided_slice_plan([4, None, 3], None, None, [1, 1], shrink_axis_mask=1)
    assert final == [None, 3] and index is None
    final, index = strided_slice_plan([4, 5], [1, 0], [3, 0], [1, -1], begin_mask=2,
                                      end_mask=2)
    assert final == [2, 5] and index == (slice(1, 3, 1), slice(4, None, -1))


def test_getitem_builds_strided_slice_like_tf(env):
    y = env.x[1:, 0]
    names = [o.name for o in env.g.get_operations()][-4:]
    assert names == ["strided_slice/stack", "strided_slice/stack_1", "strided_slice/stack_2",
                     "strided_slice"]
    assert y.op.get_attr("begin_mask") == 0 and y.op.get_attr("end_mask") == 1
    assert y.op.get_attr("shrink_axis_mask") == 2
    z = env.x[env.i:]
    ops = [(o.name, o.type) for o in env.g.get_operations()][-6:]
    assert ops == [("Const", "Const"), ("Const_1", "Const"),
                   ("strided_slice_1/stack", "Pack"), ("strided_slice_1/stack_1", "Pack"),
                   ("strided_slice_1/stack_2", "Pack"), ("strided_slice_1", "StridedSlice")]
    assert str(z.shape) == "(?, 3)"


def test_int64_tensor_index_casts_the_rest(env):
    j = tf.constant(1, dtype=tf.int64)
    y = env.c[j, 1:]
    assert y.op.inputs[1].dtype == tf.int64 and y.op.get_attr("Index") == tf.int64
    with tf.Session() as sess:
        assert sess.run(y).shape == (2,)


def test_tensor_indices_run(env):
    v = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = env.x[env.i, ::-1]
    z = env.x[env.i:env.i + 2]
    with tf.Session() as sess:
        a, b = sess.run([y, z], {env.x: v, env.i: 1})
    np.testing.assert_array_equal(a, v[1, ::-1])
    np.testing.assert_array_equal(b, v[1:3])


def test_boolean_index_is_boolean_mask(env):
    c = tf.constant(np.arange(6).reshape(2, 3))
    y = c[c > 2]
    assert y.op.type == "GatherV2" and y.op.name.startswith("boolean_mask")
    with tf.Session() as sess:
        assert sess.run(y).tolist() == [3, 4, 5]


def test_strided_slice_default_strides_and_static_value(env):
    y = tf.strided_slice(env.c, [0, 1], [2, 3])
    assert y.op.inputs[3].op.type in ("Fill", "Const")
    assert y.shape.as_list() == [2, 2]
    s = tf.shape(env.x3)
    assert tf.get_static_value(s[1:]).tolist() == [2, 3]
    assert tf.get_static_value(s[:2]) is None
    assert tf.get_static_value(s[-1]) == 3
    k = tf.constant(np.arange(10))
    assert tf.get_static_value(k[::3]).tolist() == [0, 3, 6, 9]
