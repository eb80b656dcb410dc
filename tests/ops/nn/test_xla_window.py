"""The window-op lowerings (ops/nn/xla_window.py) against the NumPy kernels: MaxPool and
MaxPoolGrad with ties, NaN, -inf, padding, depth windows and both layouts; the im2col
filter gradient and the vjp one; the static-argument checks. Skipped without jax."""
import warnings

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

pytest.importorskip("jax")
import xla_compare  # noqa: E402

R = np.random.RandomState(0)
TIES = R.randint(0, 3, (2, 7, 6, 3)).astype(np.float32)
ODD = R.randn(2, 6, 7, 4).astype(np.float32)
ODD[0, :3, :3, 0] = np.nan         # whole windows of NaN ...
ODD[1, :3, :3, 1] = -np.inf        # ... and of -inf give the lowest finite value
ODD[0, 4, 4, 2] = np.nan           # a NaN among numbers never wins
ODD[1, 0, 0, 3] = np.nan           # nor one in a window's first cell (it keeps the pick)

POOL_CASES = [  # name, input, ksize, strides, padding, data_format
    ("same_3x3_s2_ties", TIES, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC"),
    ("valid_2x3_ties", TIES, [1, 2, 3, 1], [1, 1, 2, 1], "VALID", "NHWC"),
    ("nchw_2x2_s2", TIES.transpose(0, 3, 1, 2), [1, 1, 2, 2], [1, 1, 2, 2], "SAME", "NCHW"),
    ("explicit", TIES, [1, 2, 2, 1], [1, 1, 1, 1], [[0, 0], [1, 0], [0, 1], [0, 0]], "NHWC"),
    ("depth", ODD, [1, 1, 1, 2], [1, 1, 1, 2], "VALID", "NHWC"),
    ("window_under_stride", TIES, [1, 1, 2, 1], [1, 3, 3, 1], "SAME", "NHWC"),
    ("nan_and_inf", ODD, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC"),
    ("nan_and_inf_valid", ODD, [1, 3, 2, 1], [1, 3, 2, 1], "VALID", "NHWC"),
]


def _pool_fetches(x, value, ksize, strides, padding, fmt):
    y = tf.nn.max_pool(x, ksize, strides, padding, data_format=fmt)
    dy = np.random.RandomState(1).rand(*_out_shape(value, ksize, strides, padding, fmt))
    grad = apply_op("MaxPoolGrad", orig_input=x, orig_output=y,
                    grad=tf.constant(dy.astype(np.float32)), ksize=ksize, strides=strides,
                    padding="EXPLICIT" if isinstance(padding, list) else padding,
                    data_format=fmt,
                    explicit_paddings=sum(padding, []) if isinstance(padding, list) else [])
    return [y, grad.outputs[0]]


def _out_shape(value, ksize, strides, padding, fmt):
    with tf.Graph().as_default():
        return tf.nn.max_pool(tf.zeros(value.shape), ksize, strides, padding,
                              data_format=fmt).shape.as_list()


def test_max_pool_and_its_gradient_pick_the_numpy_kernels_cells():
    values = [case[1] for case in POOL_CASES]

    def build():
        phs = [tf.placeholder(tf.float32, v.shape) for v in values]
        return [_pool_fetches(x, *case[1:]) for x, case in zip(phs, POOL_CASES)], None, phs

    def check(sess):
        assert {"MaxPool", "MaxPoolGrad"} <= xla_compare.lowered_types(sess)
    (np_vals,), (xla_vals,) = xla_compare.run_both(build, lambda i: values, check=check)
    for case, want, got in zip(POOL_CASES, np_vals, xla_vals):
        for a, b in zip(want, got):
            assert a.shape == b.shape and a.dtype == b.dtype, case[0]
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=0, err_msg=case[0])


X3 = R.randn(2, 9, 8, 3).astype(np.float32)
X20 = R.randn(2, 7, 7, 20).astype(np.float32)
FILTER_CASES = [  # name, input, filter shape, strides, padding, data_format, dilations
    ("same_depth3", X3, [5, 5, 3, 4], [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
    ("valid_strided_dilated", X3, [3, 2, 3, 5], [1, 2, 3, 1], "VALID", "NHWC", [1, 2, 1, 1]),
    ("nchw_same_s2", X3.transpose(0, 3, 1, 2), [3, 3, 3, 2], [1, 1, 2, 2], "SAME", "NCHW",
     [1, 1, 1, 1]),
    ("explicit", X3, [2, 3, 3, 4], [1, 1, 2, 1], [[0, 0], [2, 1], [0, 3], [0, 0]], "NHWC",
     [1, 1, 1, 1]),
    ("deep_input_vjp", X20, [3, 3, 20, 4], [1, 2, 2, 1], "SAME", "NHWC", [1, 1, 1, 1]),
    ("grouped_vjp", X20, [2, 2, 5, 8], [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]),
]


def test_filter_gradients_match_numpy():
    values = [case[1] for case in FILTER_CASES]

    def build():
        phs = [tf.placeholder(tf.float32, v.shape) for v in values]
        fetches = []
        for x, (_, _value, f_shape, strides, padding, fmt, dil) in zip(phs, FILTER_CASES):
            w = tf.constant(np.random.RandomState(2).randn(*f_shape).astype(np.float32))
            y = tf.nn.conv2d(x, w, strides, padding, data_format=fmt, dilations=dil)
            dy = np.random.RandomState(3).randn(*y.shape.as_list()).astype(np.float32)
            fetches.append(tf.gradients(y, [w, x], grad_ys=tf.constant(dy)))
        return fetches, None, phs

    def check(sess):
        assert {"Conv2DBackpropFilter", "Conv2DBackpropInput"} <= \
            xla_compare.lowered_types(sess)
    (np_vals,), (xla_vals,) = xla_compare.run_both(build, lambda i: values, check=check)
    for case, want, got in zip(FILTER_CASES, np_vals, xla_vals):
        for a, b in zip(want, got):
            assert a.shape == b.shape, case[0]
            np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-5, err_msg=case[0])


def test_static_shape_arguments_emit_no_deprecation_warning():
    """The shape arguments of the backprop ops and UnsortedSegmentSum are read without
    jax's deprecated concrete_or_error."""
    value = R.rand(1, 4, 4, 2).astype(np.float32)

    def build():
        x = tf.placeholder(tf.float32, [1, 4, 4, 2])
        w = tf.constant(np.ones((2, 2, 2, 3), np.float32))
        y = tf.nn.conv2d(x, w, 1, "SAME")
        total = tf.unsorted_segment_sum(tf.reshape(y, [-1]), tf.range(48) % 2, 2)
        return tf.gradients(tf.reduce_sum(total * [1.0, 2.0]), [x, w]) + [total], None, [x]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        (want,), (got,) = xla_compare.run_both(build, lambda i: [value])
    for a, b in zip(want, got):
        np.testing.assert_allclose(b, a, rtol=1e-5)


def test_backprop_input_with_two_spatial_sizes_matches_numpy():
    w = R.randn(3, 3, 2, 4).astype(np.float32)
    dy = R.randn(2, 3, 3, 4).astype(np.float32)

    def build():
        ph = tf.placeholder(tf.float32, dy.shape)
        dx = apply_op("Conv2DBackpropInput", input_sizes=tf.constant([5, 6]),
                      filter=tf.constant(w), out_backprop=ph, strides=[1, 2, 2, 1],
                      padding="SAME").outputs[0]
        return [dx], None, [ph]
    (want,), (got,) = xla_compare.run_both(build, lambda i: [dy])
    assert want[0].shape == got[0].shape == (2, 5, 6, 2)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_half_precision_pool_and_filter_gradient_match_numpy():
    x = R.randn(2, 6, 6, 3).astype(np.float16)
    x[0, :2, :2, 0] = np.nan
    w_value = R.randn(3, 3, 3, 2).astype(np.float16)
    dy_value = R.randn(2, 6, 6, 2).astype(np.float16)

    def build():
        ph = tf.placeholder(tf.float16, x.shape)
        w = tf.constant(w_value)
        y = tf.nn.conv2d(ph, w, 1, "SAME")
        dy = tf.constant(dy_value)
        clean = tf.where(tf.is_nan(ph), tf.zeros_like(ph), ph)
        dw = tf.gradients(tf.nn.conv2d(clean, w, 1, "SAME"), w, grad_ys=dy)
        return [tf.nn.max_pool(ph, 2, 2, "SAME"), y] + dw, None, [ph]
    (want,), (got,) = xla_compare.run_both(build, lambda i: [x])
    for a, b in zip(want, got):
        assert a.dtype == b.dtype == np.float16
        np.testing.assert_allclose(b.astype(np.float32), a.astype(np.float32), rtol=2e-2,
                                   atol=2e-2)
