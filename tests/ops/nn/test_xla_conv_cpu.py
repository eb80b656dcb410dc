"""The XLA:CPU formulations (ops/nn/xla_conv_cpu.py) against the NumPy kernels: the
filter gradient as per-tap products and as one im2col product in both layouts, with
strides, dilations, explicit padding, half and double precision; MaxPool as a per-tap
maximum with NaN, -inf and integers; and which formulation each shape takes. Skipped
without jax."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

jax = pytest.importorskip("jax")
import xla_compare  # noqa: E402
from trainflow._src.ops.nn import xla_conv_cpu  # noqa: E402

R = np.random.RandomState(0)
X20 = R.randn(2, 12, 12, 20).astype(np.float32)
X24 = R.randn(2, 13, 11, 24).astype(np.float32)
X3 = R.randn(2, 9, 8, 3).astype(np.float32)
FILTER_CASES = [  # name, input, filter shape, strides, padding, data_format, dilations
    ("taps_same_3x3", X20, [3, 3, 20, 8], [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
    ("taps_1x1", X20, [1, 1, 20, 6], [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]),
    ("taps_nchw_strided", X24.transpose(0, 3, 1, 2), [2, 2, 24, 5], [1, 1, 2, 1], "SAME",
     "NCHW", [1, 1, 1, 1]),
    ("taps_dilated", X24, [2, 2, 24, 4], [1, 1, 1, 1], "VALID", "NHWC", [1, 2, 3, 1]),
    ("taps_explicit", X24, [2, 1, 24, 3], [1, 1, 1, 1], [[0, 0], [2, 1], [0, 3], [0, 0]],
     "NHWC", [1, 1, 1, 1]),
    ("im2col_nchw", X3.transpose(0, 3, 1, 2), [3, 3, 3, 2], [1, 1, 2, 2], "SAME", "NCHW",
     [1, 1, 1, 1]),
    ("lax_few_cells", X24, [3, 3, 24, 4], [1, 2, 2, 1], "VALID", "NHWC", [1, 1, 1, 1]),
]


def _filter_fetches(x, f_shape, strides, padding, fmt, dil, dtype=np.float32):
    w = tf.constant(np.random.RandomState(2).randn(*f_shape).astype(dtype))
    y = tf.nn.conv2d(x, w, strides, padding, data_format=fmt, dilations=dil)
    dy = np.random.RandomState(3).randn(*y.shape.as_list()).astype(dtype)
    return tf.gradients(y, w, grad_ys=tf.constant(dy))


def test_filter_gradients_match_numpy():
    values = [case[1] for case in FILTER_CASES]

    def build():
        phs = [tf.placeholder(tf.float32, v.shape) for v in values]
        return [_filter_fetches(x, *case[2:]) for x, case in zip(phs, FILTER_CASES)], \
            None, phs

    def check(sess):
        assert "Conv2DBackpropFilter" in xla_compare.lowered_types(sess)
    (np_vals,), (xla_vals,) = xla_compare.run_both(build, lambda i: values, check=check)
    for case, want, got in zip(FILTER_CASES, np_vals, xla_vals):
        assert want[0].shape == got[0].shape == tuple(case[2]), case[0]
        np.testing.assert_allclose(got[0], want[0], rtol=2e-5, atol=2e-5, err_msg=case[0])


@pytest.mark.parametrize("dtype, tol", [(np.float16, 5e-2), (np.float64, 1e-10)])
def test_tap_products_in_other_dtypes_match_numpy(dtype, tol):
    x = R.randn(2, 8, 8, 20).astype(dtype)

    def build():
        ph = tf.placeholder(tf.as_dtype(dtype), x.shape)
        return _filter_fetches(ph, [2, 2, 20, 3], [1, 1, 1, 1], "SAME", "NHWC",
                               [1, 1, 1, 1], dtype), None, [ph]
    (want,), (got,) = xla_compare.run_both(build, lambda i: [x])
    assert want[0].dtype == got[0].dtype == dtype
    np.testing.assert_allclose(got[0].astype(np.float64), want[0].astype(np.float64),
                               rtol=tol, atol=tol)


def _primitives(fn, *args):
    return {eqn.primitive.name for eqn in jax.make_jaxpr(fn)(*args).jaxpr.eqns}


@pytest.mark.parametrize("name, x_shape, f_shape, strides, want", [
    ("shallow input: one im2col product", (2, 9, 8, 3), (5, 5, 3, 4), [1, 1, 1, 1], "dot"),
    ("output 8x8 per 3x3 taps: XLA's own", (2, 8, 8, 32), (3, 3, 32, 4), [1, 1, 1, 1],
     "conv"),
    ("output 12x12 per 3x3 taps: per-tap products", (2, 12, 12, 32), (3, 3, 32, 4),
     [1, 1, 1, 1], "dot"),
    ("1x1 filter: one product", (2, 4, 4, 32), (1, 1, 32, 4), [1, 1, 1, 1], "dot"),
    ("grouped: XLA's own", (2, 12, 12, 32), (1, 1, 16, 4), [1, 1, 1, 1], "conv"),
    ("tap slices over TAPS_MAX_BYTES: XLA's own", (64, 112, 112, 64), (3, 3, 64, 64),
     [1, 1, 1, 1], "conv"),
])
def test_the_filter_gradient_formulation_follows_the_shape(name, x_shape, f_shape, strides,
                                                          want):
    x = jax.ShapeDtypeStruct(x_shape, np.float32)  # traced only: nothing allocated
    dy = jax.ShapeDtypeStruct(x_shape[:3] + (f_shape[3],), np.float32)
    prims = _primitives(lambda x, dy: xla_conv_cpu.conv_backprop_filter(
        x, np.array(f_shape), dy, strides=strides, padding="SAME"), x, dy)
    got = "conv" if "conv_general_dilated" in prims else "dot"
    assert got == want and ("dot_general" in prims or got == "conv"), name


POOL_CASES = [  # name, input, ksize, strides, padding, data_format
    ("nan_and_inf", R.randn(2, 6, 7, 4).astype(np.float32), [1, 3, 3, 1], [1, 2, 2, 1],
     "SAME", "NHWC"),
    ("nchw_2x2", R.randn(2, 3, 6, 5).astype(np.float32), [1, 1, 2, 2], [1, 1, 2, 2], "VALID",
     "NCHW"),
    ("wide_window_reduce", R.randn(1, 9, 9, 2).astype(np.float32), [1, 5, 5, 1],
     [1, 1, 1, 1], "SAME", "NHWC"),
    ("int32", R.randint(-50, 50, (2, 5, 5, 3)).astype(np.int32), [1, 2, 3, 1], [1, 1, 2, 1],
     "SAME", "NHWC"),
]
POOL_CASES[0][1][0, :3, :3, 0] = np.nan
POOL_CASES[0][1][1, :3, :3, 1] = -np.inf
POOL_CASES[0][1][0, 4, 4, 2] = np.nan


def test_max_pool_taps_match_numpy():
    values = [case[1] for case in POOL_CASES]

    def build():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), v.shape) for v in values]
        return [tf.nn.max_pool(x, *case[2:5], data_format=case[5])
                for x, case in zip(phs, POOL_CASES)], None, phs

    def check(sess):
        assert "MaxPool" in xla_compare.lowered_types(sess)
    (want,), (got,) = xla_compare.run_both(build, lambda i: values, check=check)
    for case, a, b in zip(POOL_CASES, want, got):
        assert a.dtype == b.dtype and a.shape == b.shape, case[0]
        np.testing.assert_array_equal(b, a, err_msg=case[0])


def test_max_pool_takes_taps_only_for_small_windows():
    x = np.zeros((1, 9, 9, 2), np.float32)
    small = _primitives(lambda x: xla_conv_cpu.max_pool(
        x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), x)
    wide = _primitives(lambda x: xla_conv_cpu.max_pool(
        x, ksize=[1, 5, 5, 1], strides=[1, 1, 1, 1], padding="SAME"), x)
    assert "reduce_window_max" not in small and "max" in small
    assert "reduce_window_max" in wide


def test_max_pool_grad_of_the_tap_maximum_matches_numpy():
    value = POOL_CASES[0][1]

    def build():
        x = tf.placeholder(tf.float32, value.shape)
        y = tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
        grad = apply_op("MaxPoolGrad", orig_input=x, orig_output=y,
                        grad=tf.ones_like(y), ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                        padding="SAME").outputs[0]
        return [y, grad], None, [x]
    (want,), (got,) = xla_compare.run_both(build, lambda i: [value])
    for a, b in zip(want, got):
        np.testing.assert_array_equal(b, a)
