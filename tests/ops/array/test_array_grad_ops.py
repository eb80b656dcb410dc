"""Gradients of the array ops beyond the table: IndexedSlices results, slicing specs,
gradients of gradients, the helper ops (ConcatOffset, StridedSliceGrad, MirrorPadGrad),
and the ops marked not differentiable."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op


def _run(fetches, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def _op_types(graph, prefix="gradients/"):
    return [op.type for op in graph.get_operations() if op.name.startswith(prefix)]


def _grad_error(x, x_value, y, feeds=None):
    """The finite-difference error of d y / d x (y's shape taken from a run)."""
    feeds = dict(feeds or {})
    with tf.Session() as sess:
        y_shape = list(np.shape(sess.run(y, {x: x_value, **feeds})))
        return tf.test.compute_gradient_error(x, list(x_value.shape), y, y_shape,
                                              x_init_value=x_value, extra_feed_dict=feeds)


# -- gather ---------------------------------------------------------------------------------
def test_gather_gradient_is_indexed_slices_with_repeated_indices():
    with tf.Graph().as_default():
        params = tf.placeholder(tf.float32, [4, 2])
        y = tf.gather(params, [[3, 1], [3, 3]])
        dy = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
        (grad,) = tf.gradients(y, params, grad_ys=dy)
        assert isinstance(grad, tf.IndexedSlices)
        assert grad.values.shape.as_list() == [4, 2]
        value = _run(grad, {params: np.zeros((4, 2), np.float32)})
    np.testing.assert_array_equal(value.indices, [3, 1, 3, 3])
    np.testing.assert_array_equal(value.values, dy.reshape(4, 2))
    np.testing.assert_array_equal(value.dense_shape, [4, 2])


def test_gather_v1_op_and_dense_sum_of_slices():
    with tf.Graph().as_default():
        params = tf.placeholder(tf.float64, [3])
        y = apply_op("Gather", params=params, indices=[2, 2, 0]).outputs[0]
        (grad,) = tf.gradients(y, params, grad_ys=np.array([1., 2., 4.]))
        dense = tf.convert_to_tensor(grad)
        value = _run(dense, {params: np.zeros(3)})
    np.testing.assert_array_equal(value, [4., 0., 3.])


def test_gather_along_a_fed_axis_is_dense():
    with tf.Graph().as_default():
        params = tf.placeholder(tf.float64, [2, 3])
        axis = tf.placeholder(tf.int32, [])
        y = tf.gather(params, [2, 0, 2], axis=axis)
        (grad,) = tf.gradients(y, params, grad_ys=np.ones((2, 3)))
        assert isinstance(grad, tf.Tensor)
        value = _run(grad, {params: np.zeros((2, 3)), axis: 1})
    np.testing.assert_array_equal(value, [[1., 0., 2.], [1., 0., 2.]])


def test_gather_negative_batch_dims():
    with tf.Graph().as_default():
        params = tf.placeholder(tf.float64, [2, 3, 2])
        value = np.arange(12.).reshape(2, 3, 2)
        y = tf.gather(params, [[0, 2], [1, 1]], axis=1, batch_dims=-1)
        assert _grad_error(params, value, y) < 1e-8


# -- slicing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [
    lambda x: x[::-1, 2:0:-1, ::-2], lambda x: x[None, ..., 1:, tf.newaxis, -1],
    lambda x: x[..., ::-3], lambda x: x[1, None, -2::-1], lambda x: x[:, tf.newaxis, ...],
])
def test_getitem_gradient_scatters_into_zeros(spec):
    x_value = np.arange(24.).reshape(2, 3, 4)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [2, 3, 4])
        y = spec(x)
        dy = np.cos(np.arange(y.shape.num_elements())).reshape(y.shape.as_list())
        (grad,) = tf.gradients(y, x, grad_ys=dy)
        assert grad.shape.as_list() == [2, 3, 4]
        assert "StridedSliceGrad" in _op_types(g)
        value = _run(grad, {x: x_value})
    # The gradient is the slice's adjoint: <grad, x> == <dy, x[spec]>.
    index_map = spec(np.arange(24).reshape(2, 3, 4))
    want = np.zeros(24)
    np.add.at(want, index_map.reshape(-1), dy.reshape(-1))
    np.testing.assert_allclose(value.reshape(-1), want)


def test_getitem_with_tensor_bounds():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [5])
        start = tf.placeholder(tf.int32, [])
        (grad,) = tf.gradients(x[start:start + 2], x, grad_ys=np.array([3., 5.]))
        value = _run(grad, {x: np.zeros(5), start: 2})
    np.testing.assert_array_equal(value, [0., 0., 3., 5., 0.])


def test_strided_slice_grad_op():
    with tf.Graph().as_default():
        out = apply_op("StridedSliceGrad", shape=[3, 4], begin=[0, 3], end=[3, -5],
                       strides=[2, -2], dy=np.ones((2, 2)), end_mask=1).outputs[0]
        assert out.shape.as_list() == [3, 4]
        bad = apply_op("StridedSliceGrad", shape=[3, 4], begin=[0], end=[1], strides=[1],
                       dy=np.ones((2, 4))).outputs[0]
        value = _run(out)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape of dy was \[2,4\] "
                                                                 r"instead of \[1,4\]"):
            _run(bad)
    np.testing.assert_array_equal(value, [[0, 1, 0, 1], [0, 0, 0, 0], [0, 1, 0, 1]])


# -- joins -------------------------------------------------------------------------------------
def test_concat_offset_op():
    with tf.Graph().as_default():
        offsets = apply_op("ConcatOffset", concat_dim=1,
                           shape=[[2, 3, 5], [2, 7, 5], [2, 1, 5]]).outputs
        assert [tf.get_static_value(o).tolist() for o in offsets] == [[0, 0, 0], [0, 3, 0],
                                                                      [0, 10, 0]]
        dim = tf.placeholder(tf.int32, [])
        fed = apply_op("ConcatOffset", concat_dim=dim, shape=[[2, 3], [4, 3]]).outputs
        mismatch = apply_op("ConcatOffset", concat_dim=dim, shape=[[2, 3], [4, 2]]).outputs
        assert _run(fed, {dim: -2})[1].tolist() == [2, 0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Concat dim is out of range"):
            _run(fed, {dim: 2})
        with pytest.raises(tf.errors.InvalidArgumentError, match="All dimensions except 0 "
                                                                 "must match"):
            _run(mismatch, {dim: 0})


@pytest.mark.parametrize("n", [3, 18])
def test_concat_gradient_slices_or_splits(n):
    with tf.Graph().as_default() as g:
        xs = [tf.placeholder(tf.float64, [2, i + 1]) for i in range(n)]
        y = tf.concat(xs, 1)
        dy = np.arange(2 * sum(range(1, n + 1)), dtype=np.float64).reshape(2, -1)
        grads = tf.gradients(y, xs, grad_ys=dy)
        assert ("SplitV" in _op_types(g)) == (n > 16)
        values = _run(grads, {x: np.zeros(x.shape.as_list()) for x in xs})
    np.testing.assert_array_equal(np.concatenate(values, 1), dy)


def test_concat_gradient_of_unknown_shapes_uses_shape_n():
    with tf.Graph().as_default() as g:
        a, b = tf.placeholder(tf.float64, [None, 2]), tf.placeholder(tf.float64)
        y = tf.concat([a, b], 0)
        grads = tf.gradients(y, [a, b], grad_ys=np.arange(10.).reshape(5, 2))
        assert "ShapeN" in _op_types(g)
        values = _run(grads, {a: np.zeros((2, 2)), b: np.zeros((3, 2))})
    np.testing.assert_array_equal(values[1], np.arange(4., 10.).reshape(3, 2))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_of_sparse_gradient_stays_sparse(axis):
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float64, [2, 2]), tf.placeholder(tf.float64, [2, 2])
        y = tf.gather(tf.concat([a, b], axis), [3, 0, 1] if axis == 0 else [1, 1])
        dy = np.arange(1., 1 + y.shape.num_elements()).reshape(y.shape.as_list())
        grads = tf.gradients(y, [a, b], grad_ys=dy)
        assert all(isinstance(gr, tf.IndexedSlices) for gr in grads)
        dense = [tf.convert_to_tensor(gr) for gr in grads]
        values = _run(dense, {a: np.zeros((2, 2)), b: np.zeros((2, 2))})
    full = np.zeros((4, 2) if axis == 0 else (2, 4))
    if axis == 0:
        np.add.at(full, [3, 0, 1], dy)
        np.testing.assert_array_equal(np.concatenate(values, 0), full)
    else:
        np.add.at(full, [1, 1], dy)
        np.testing.assert_array_equal(np.concatenate(values, 1), full)


def test_concat_of_sparse_gradient_needs_static_axis():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [2, 2])
        axis = tf.placeholder(tf.int32, [])
        y = tf.gather(tf.concat([a, a], axis), [0])
        with pytest.raises(ValueError, match="statically-known concat_dim"):
            tf.gradients(y, a)


def test_unused_outputs_of_unstack_and_split_get_zeros():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 4])
        y = tf.unstack(x, axis=1)[2] + tf.split(x, [1, 2], 0)[1][0, 0]
        (grad,) = tf.gradients(y, x)
        value = _run(grad, {x: np.zeros((3, 4))})
    want = np.zeros((3, 4))
    want[:, 2] = 1
    want[1, 0] += 3
    np.testing.assert_array_equal(value, want)


# -- gradients of gradients -----------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda x: tf.reshape(x, [3, 2]), lambda x: tf.reshape(x, [-1]),
    lambda x: tf.transpose(x), lambda x: tf.concat([x, 2. * x], 0),
    lambda x: tf.concat([x, x[:, :1]], 1), lambda x: x[::-1, 1:],
    lambda x: tf.tile(x, [2, 2]), lambda x: tf.pad(x, [[1, 1], [2, 1]], "REFLECT"),
    lambda x: tf.gather(x, [1, 1, 0]), lambda x: tf.gather(x, [2, 0], axis=1),
    lambda x: tf.stack([x, x], 2), lambda x: tf.split(x, 3, 1)[1],
    lambda x: tf.slice(x, [0, 1], [2, 2]), lambda x: tf.reverse(x, [1]),
])
def test_gradient_of_the_gradient(fn):
    """The gradient of a linear op is linear in the incoming gradient; check it."""
    x_value = np.arange(6.).reshape(2, 3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2, 3])
        y = fn(x)
        dy = tf.placeholder(tf.float64, y.shape)
        dy_value = np.cos(np.arange(y.shape.num_elements())).reshape(y.shape.as_list())
        (dx,) = tf.gradients(y, x, grad_ys=dy)
        dx = tf.convert_to_tensor(dx)
        assert _grad_error(dy, dy_value, dx, {x: x_value}) < 1e-8


def test_hessian_through_array_ops():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2, 2])
        z = tf.concat([tf.transpose(tf.reshape(x, [4, 1])), tf.reshape(x, [1, 4])[:, ::-1]], 0)
        (hess,) = tf.hessians(tf.reduce_sum(tf.square(z)), x)
        value = _run(hess, {x: np.ones((2, 2))})
    np.testing.assert_allclose(value.reshape(4, 4), 4 * np.eye(4))


# -- layout ops ------------------------------------------------------------------------------------
def test_tile_of_sparse_gradient_folds_rows():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2, 2])
        y = tf.gather(tf.tile(x, [3, 1]), [5, 0, 2])
        (grad,) = tf.gradients(y, x, grad_ys=np.array([[1., 2.], [3., 4.], [5., 6.]]))
        value = _run(grad, {x: np.zeros((2, 2))})
    np.testing.assert_array_equal(value, [[8., 10.], [1., 2.]])


@pytest.mark.parametrize("mode,want", [
    ("REFLECT", [[0, 0, 0], [4, 42, 17], [0, 0, 0]]),  # pads x2 x1 | x0 x1 x2 | x1
    ("SYMMETRIC", [[0, 0, 0], [6, 9, 48], [0, 0, 0]]),  # pads x1 x0 | x0 x1 x2 | x2
])
def test_mirror_pad_grad_op_folds_borders(mode, want):
    with tf.Graph().as_default():
        dy = np.zeros((3, 6))
        dy[1] = 2. ** np.arange(6)
        out = apply_op("MirrorPadGrad", input=dy, paddings=[[0, 0], [2, 1]],
                       mode=mode).outputs[0]
        assert out.shape.as_list() == [3, 3]
        np.testing.assert_array_equal(_run(out), want)


def test_mirror_pad_grad_op_rejects_wide_paddings():
    with tf.Graph().as_default():
        out = apply_op("MirrorPadGrad", input=tf.placeholder(tf.float32),
                       paddings=[[2, 2]], mode="REFLECT").outputs[0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="paddings must be less"):
            _run(out, {out.op.inputs[0]: np.zeros(5, np.float32)})


def test_conjugate_transpose_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.complex128, [2, 3])
        y = tf.transpose(x, conjugate=True)
        dy = (np.arange(6) + 1j * np.arange(6)[::-1]).reshape(3, 2)
        (grad,) = tf.gradients(y, x, grad_ys=dy)
        value = _run(grad, {x: np.zeros((2, 3), np.complex128)})
    np.testing.assert_array_equal(value, np.conj(dy.T))


def test_reshape_gradient_uses_shape_only_when_needed():
    with tf.Graph().as_default() as g:
        dy = tf.placeholder(tf.float64, [None])
        one = tf.placeholder(tf.float64, [None, 3])
        tf.gradients(tf.reshape(one, [-1]), one, grad_ys=dy)
        assert _op_types(g, "gradients/Reshape_grad/") == ["Const", "Reshape"]
        two = tf.placeholder(tf.float64, [None, None])
        (grad,) = tf.gradients(tf.reshape(two, [-1]), two, grad_ys=dy)
        assert _op_types(g, "gradients_1/Reshape_1_grad/") == ["Shape", "Reshape"]
        assert _run(grad, {two: np.zeros((2, 5)), dy: np.zeros(10)}).shape == (2, 5)


# -- selection, broadcasting, casts ---------------------------------------------------------
def test_select_v2_reduces_broadcast_gradients():
    with tf.Graph().as_default():
        x, y = tf.placeholder(tf.float64, [2, 3]), tf.placeholder(tf.float64, [])
        c = tf.constant([True, False, True])
        gx, gy = tf.gradients(tf.where_v2(c, x, y), [x, y], grad_ys=np.arange(6.).reshape(2, 3))
        assert gy.shape.as_list() == []
        values = _run([gx, gy], {x: np.zeros((2, 3)), y: 0.})
    np.testing.assert_array_equal(values[0], [[0., 0., 2.], [3., 0., 5.]])
    assert values[1] == 1. + 4.


def test_broadcast_to_gradient_with_a_fed_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 1])
        shape = tf.placeholder(tf.int32, [3])
        (grad,) = tf.gradients(tf.broadcast_to(x, shape), x)
        value = _run(grad, {x: np.zeros((3, 1)), shape: [2, 3, 4]})
    np.testing.assert_array_equal(value, np.full((3, 1), 8.))


def test_cast_gradients():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        to_f16, to_i32 = tf.cast(x, tf.float16), tf.cast(x, tf.int32)
        (g16,) = tf.gradients(to_f16, x, grad_ys=np.array([1.5, 2.], np.float16))
        assert g16.dtype == tf.float32
        assert tf.gradients(to_i32, x) == [None]
        np.testing.assert_array_equal(_run(g16, {x: np.zeros(2, np.float32)}), [1.5, 2.])


def test_fill_gradient_sums():
    with tf.Graph().as_default():
        v = tf.placeholder(tf.float64, [])
        (grad,) = tf.gradients(tf.fill([2, 3], v), v, grad_ys=np.arange(6.).reshape(2, 3))
        assert _run(grad, {v: 1.}) == 15.


def test_sparse_to_dense_and_reorder_gradients():
    with tf.Graph().as_default():
        values = tf.placeholder(tf.float64, [2])
        default = tf.placeholder(tf.float64, [])
        dense = tf.sparse_to_dense([[0, 1], [1, 2]], [2, 3], values, default)
        gv, gd = tf.gradients(dense, [values, default], grad_ys=np.arange(6.).reshape(2, 3))
        sp = tf.SparseTensor([[1, 0], [0, 1], [0, 0]], values=tf.concat([values, [7.]], 0),
                             dense_shape=[2, 2])
        (gr,) = tf.gradients(tf.sparse.reorder(sp).values, values,
                             grad_ys=np.array([10., 20., 30.]))
        out = _run([gv, gd, gr], {values: [1., 2.], default: 0.})
    np.testing.assert_array_equal(out[0], [1., 5.])
    assert out[1] == 15. - 6.
    np.testing.assert_array_equal(out[2], [30., 20.])


def test_matrix_set_diag_gradient_with_unknown_shapes():
    with tf.Graph().as_default():
        x, d = tf.placeholder(tf.float64), tf.placeholder(tf.float64)
        gx, gd = tf.gradients(tf.matrix_set_diag(x, d), [x, d],
                              grad_ys=tf.reshape(tf.range(12., dtype=tf.float64), [2, 2, 3]))
        values = _run([gx, gd], {x: np.zeros((2, 2, 3)), d: np.zeros((2, 2))})
    want = np.arange(12.).reshape(2, 2, 3)
    np.testing.assert_array_equal(values[1], [[0., 4.], [6., 10.]])
    want[:, [0, 1], [0, 1]] = 0
    np.testing.assert_array_equal(values[0], want)


# -- pass-through and non-differentiable ops ---------------------------------------------------
def test_stop_gradient_blocks_and_identities_pass():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])
        y = (tf.stop_gradient(x) * 5. + tf.identity(x) +
             tf.placeholder_with_default(x, [2]) + tf.identity_n([x, x])[1] +
             apply_op("Snapshot", input=x).outputs[0])
        (grad,) = tf.gradients(y, x)
        assert tf.gradients(tf.stop_gradient(x), x) == [None]
        np.testing.assert_array_equal(_run(grad, {x: [1., 2.]}), [4., 4.])


def test_prevent_gradient_raises_with_its_message():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        y = apply_op("PreventGradient", input=x, message="no second order here").outputs[0]
        with pytest.raises(LookupError, match="Gradient explicitly disabled. Reason: no second "
                                              "order here"):
            tf.gradients(y, x)


def test_variable_updates_are_not_differentiable():
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros(3), name="v")
        x = tf.placeholder(tf.float64, [3])
        for update in (tf.assign(v, x), tf.assign_add(v, x),
                       tf.scatter_add(v, [0, 1, 2], x), tf.scatter_nd_sub(v, [[0], [1], [2]], x)):
            assert tf.gradients(update, x) == [None]
        with pytest.raises(LookupError, match="ScatterUpdate"):
            tf.gradients(tf.scatter_update(v, [0, 1, 2], x), x)
