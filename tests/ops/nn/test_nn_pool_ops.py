"""Graph-level tests of the pooling and LRN ops: TF's numbers, static shapes, errors,
gradients (finite differences), the `tf.nn.pool` wrapper, and a small CIFAR-style
convnet that trains."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

from op_checks import gradient_error


def pattern(shape, k=1.0, ties=False):
    """The deterministic inputs the TF reference numbers below were computed from."""
    n = int(np.prod(shape))
    v = np.sin(np.arange(n) * 0.7 * k + k)
    if ties:
        v = np.floor(v * 3) / 3
    return v.reshape(shape).astype(np.float32)


# Recorded once with TensorFlow 2.21 (tf.compat.v1, CPU) from the `pattern` inputs below.
TF_EXPECTED = {
    'maxpool_same':
        [0.6666667, 0.33333334, 0.6666667, 0.6666667, 0.33333334, 0.6666667, 0.33333334, 0.6666667,
         0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667,
         0.6666667, 0.6666667],
    'maxpool_same_grad':
        [0.8084964, 0.0, 0.0, 0.0, -0.84318775, 0.5114013, 0.0, 0.0, 0.0, -0.4575359, -0.9028577,
         0.0, 0.0, -0.5633273, 0.9276101, 0.0, 0.0, 0.0, 0.87468135, 0.28637773, 0.0, 0.0, 0.0,
         0.057124943, 0.0, 0.0, 0.0, 0.0, -0.9488445, 0.0, 0.0, 0.0, 0.0, -0.060379043, 0.0, 0.0,
         0.0, -0.10546959, 0.99070346, 0.0, 0.0, 0.0, -0.0139706135, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
         0.0],
    'avgpool_same':
        [-0.25, -0.41666666, -0.38888887, -0.22222221, -0.41666666, -0.08333333, -0.33333337,
         -0.22222221, -0.25925925, 6.6227384e-09, -0.16666666, 0.055555552, -0.24999999,
         -0.08333332, -0.111111104, 0.05555557, 0.0, -0.08333333],
    'avgpool_same_grad':
        [0.2021241, -0.14083183, 0.061592802, -0.055598274, -0.1405313, 0.085233554, 0.07813904,
         -0.029150419, 0.21867034, -0.11438397, 0.051647812, -0.073842615, 0.014184304,
         -0.02692132, -0.03746351, 0.046921294, 0.023066074, -0.01973306, 0.06052959, -0.066654354,
         -0.15047629, 0.06698921, -0.0474085, 0.028676953, 0.10306779, -0.03831226, -0.055072956,
         0.0094173625, -0.15814075, 0.047729623, 0.09114383, 0.010274451, 0.030803114,
         -0.00029114075, -0.060340725, -0.010565592, 0.029194385, 0.0107966345, 0.08953512,
         0.021362225, 0.24162012, -0.056714762, 0.078211606, -0.028968094, -0.16340852,
         0.027746668, 0.08426735, 0.0013792701, 0.24767587, -0.026367398],
    'maxpool_argmax':
        ([0.6666667, 0.33333334, 0.6666667, 0.6666667, 0.33333334, 0.6666667, 0.33333334,
         0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667,
         0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667,
         0.6666667, 0.33333334, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667, 0.6666667,
         0.33333334, 0.6666667, 0.6666667, 0.33333334, 0.6666667], [0, 13, 4, 5, 18, 9, 10, 23, 14,
         23, 28, 19, 42, 33, 42, 33, 38, 37, 52, 63, 52, 57, 68, 57, 62, 63, 74, 63, 68, 67, 90,
         83, 84, 95, 88, 89]),
    'lrn':
        [0.24396755, 0.3561599, 0.42051125, 0.45254424, 0.46361464, 0.47827217, 0.4656143,
         0.46642536, 0.31823573, 0.14341876, -0.038887348, -0.21073805, -0.37020433, -0.49978825,
         -0.48775488, -0.4870258, -0.4610699, -0.4422596, -0.3983257, -0.31508452, -0.18160437,
         -0.0022325497, 0.17797332, 0.3126109, 0.39693028, 0.44158307, 0.49607205, 0.52728355],
    'lrn_grad':
        [0.5811697, 0.37704593, -0.07880138, -0.35473123, -0.30929995, 0.061883964, 0.43390658,
         0.53760815, 0.06854305, -0.49446765, -0.6542108, -0.29617393, 0.2728355, 0.51719254,
         0.34291664, -0.07902636, -0.36549434, -0.27483174, 0.10895287, 0.50980014, 0.5108607,
         0.0074882787, -0.5043585, -0.5153653, -0.12995586, 0.25006875, 0.3321748, 0.031946898],
    'lrn_default':
        [0.17314476, 0.2606258, 0.33954334, 0.3920141, 0.41395125, 0.40364608, 0.36670968,
         0.47219476, 0.2854435, 0.130476, -0.034654196, -0.19708519, -0.3441654, -0.5112911,
         -0.39511913, -0.42192006, -0.41864857, -0.38276893, -0.31707573, -0.22668579, -0.1289805,
         -0.0016597696, 0.1264401, 0.24450558, 0.34352675, 0.4157909, 0.45566946, 0.46005678],
}
XP = pattern([1, 5, 5, 2], 1.9, ties=True)  # many equal values: gradients go to the first max
DYP = pattern([1, 3, 3, 2], 2.2)
XL, DYL = pattern([1, 2, 2, 7], 0.4), pattern([1, 2, 2, 7], 1.4)


def _run(build):
    with tf.Graph().as_default():
        out = build()
        with tf.Session() as sess:
            return sess.run(out)


def _grad(fn, x_value, dy_value):
    x = tf.constant(x_value)
    return tf.gradients(fn(x), x, grad_ys=dy_value)[0]


TF_CASES = [
    ("maxpool_same", lambda: tf.nn.max_pool(XP, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")),
    ("maxpool_same_grad", lambda: _grad(lambda x: tf.nn.max_pool(x, 3, 2, "SAME"), XP, DYP)),
    ("avgpool_same", lambda: tf.nn.avg_pool(XP, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")),
    ("avgpool_same_grad", lambda: _grad(lambda x: tf.nn.avg_pool(x, 3, 2, "SAME"), XP, DYP)),
    ("lrn", lambda: tf.nn.lrn(XL, 2, 1.5, 0.3, 0.75)),
    ("lrn_grad", lambda: _grad(lambda x: tf.nn.lrn(x, 2, 1.5, 0.3, 0.75), XL, DYL)),
    ("lrn_default", lambda: tf.nn.local_response_normalization(XL)),
]


@pytest.mark.parametrize("name,build", TF_CASES, ids=[c[0] for c in TF_CASES])
def test_matches_tensorflow_numbers(name, build):
    out = _run(build)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.ravel(), np.array(TF_EXPECTED[name], np.float32), rtol=2e-6,
                               atol=1e-7)


def test_max_pool_with_argmax_matches_tensorflow():
    x = np.concatenate([XP, XP[:, ::-1]])
    out, argmax = _run(lambda: tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME",
                                                          include_batch_in_index=True))
    values, indices = TF_EXPECTED["maxpool_argmax"]
    np.testing.assert_array_equal(out.ravel(), np.array(values, np.float32))
    assert argmax.dtype == np.int64
    np.testing.assert_array_equal(argmax.ravel(), indices)
    _, argmax32 = _run(lambda: tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME",
                                                          Targmax=tf.int32))
    assert argmax32.dtype == np.int32
    np.testing.assert_array_equal(argmax32.ravel(), np.array(indices) % 50)


def test_pool_dtypes_and_nchw():
    x = pattern([2, 6, 5, 3], 0.3)
    for dtype in (tf.float16, tf.bfloat16, tf.float64):
        out = _run(lambda: tf.nn.avg_pool(tf.constant(x, dtype), 2, 2, "SAME"))
        assert out.dtype == np.dtype(dtype.as_numpy_dtype)
    for dtype in (tf.int32, tf.uint8, tf.int64, tf.half):
        out = _run(lambda: tf.nn.max_pool(tf.constant(x * 10 + 10, dtype), 3, 2, "SAME"))
        assert out.dtype == np.dtype(dtype.as_numpy_dtype)
    with tf.Graph().as_default():
        nhwc = [tf.nn.max_pool(x, 3, [1, 2], "SAME"), tf.nn.avg_pool(x, [2, 3], 1, "VALID")]
        xt = x.transpose(0, 3, 1, 2)
        nchw = [tf.nn.max_pool(xt, 3, [1, 2], "SAME", data_format="NCHW"),
                tf.nn.avg_pool(xt, [2, 3], 1, "VALID", data_format="NCHW")]
        with tf.Session() as sess:
            for a, b in zip(*sess.run([nhwc, nchw])):
                np.testing.assert_allclose(b, a.transpose(0, 3, 1, 2), rtol=1e-6)


# -- static shapes ---------------------------------------------------------------------------------
def _ph(shape, dtype=tf.float32):
    return tf.placeholder(dtype, shape)


SHAPE_CASES = [
    ("max_unknown_batch", lambda: tf.nn.max_pool(_ph([None, 8, 7, 3]), 3, 2, "SAME"),
     [None, 4, 4, 3]),
    ("max_valid", lambda: tf.nn.max_pool(_ph([None, 8, 7, 3]), [2, 3], [2, 1], "VALID"),
     [None, 4, 5, 3]),
    ("max_nchw", lambda: tf.nn.max_pool(_ph([None, 3, None, 8]), 2, 2, "SAME",
                                        data_format="NCHW"), [None, 3, None, 4]),
    ("max_depth", lambda: tf.nn.max_pool(_ph([1, 8, 8, 4]), [1, 1, 1, 2], [1, 1, 1, 2], "VALID"),
     [1, 8, 8, 2]),
    ("max_explicit", lambda: tf.nn.max_pool(_ph([1, 8, 8, 3]), 2, 2,
                                            [[0, 0], [1, 1], [1, 1], [0, 0]]), [1, 5, 5, 3]),
    ("max_unknown_rank", lambda: tf.nn.max_pool(_ph(None), 2, 2, "SAME"),
     [None, None, None, None]),
    ("avg_unknown_height", lambda: tf.nn.avg_pool(_ph([None, None, 8, 3]), 2, 2, "SAME"),
     [None, None, 4, 3]),
    ("argmax", lambda: tf.nn.max_pool_with_argmax(_ph([None, 8, 8, 6]), [1, 2, 2, 1],
                                                  [1, 2, 2, 1], "SAME")[1], [None, 4, 4, 6]),
    ("lrn", lambda: tf.nn.lrn(_ph([None, 4, 4, 6])), [None, 4, 4, 6]),
    ("pool_2d", lambda: tf.nn.pool(_ph([None, 9, 9, 3]), [3, 3], "MAX", "VALID",
                                   strides=[2, 2]), [None, 4, 4, 3]),
    ("pool_1d", lambda: tf.nn.pool(_ph([None, 9, 3]), [2], "AVG", "SAME", strides=[2]),
     [None, 5, 3]),
    ("pool_unknown_rank", lambda: tf.nn.pool(_ph(None), [2, 2], "MAX", "SAME"),
     [None, None, None, None]),
    ("pool_nchw", lambda: tf.nn.pool(_ph([None, 3, 9, 9]), [2, 2], "AVG", "SAME", strides=[2, 2],
                                     data_format="NCHW"), [None, 3, 5, 5]),
]


@pytest.mark.parametrize("name,build,expected", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_static_shapes(name, build, expected):
    with tf.Graph().as_default():
        assert build().shape.as_list() == expected


def test_gradient_op_shapes():
    from trainflow._src.framework.op_builder import apply_op
    with tf.Graph().as_default():
        window = dict(ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        apg = apply_op("AvgPoolGrad", orig_input_shape=[1, 8, 8, 3], grad=_ph([1, 4, 4, 3]),
                       **window).outputs[0]
        apg_unknown = apply_op("AvgPoolGrad", orig_input_shape=_ph([4], tf.int32),
                               grad=_ph([1, 4, 4, 3]), **window).outputs[0]
        mpgg = apply_op("MaxPoolGradGrad", orig_input=_ph([1, 8, 8, 3]),
                        orig_output=_ph([1, 4, 4, 3]), grad=_ph([1, 8, 8, 3]),
                        **window).outputs[0]
        assert apg.shape.as_list() == [1, 8, 8, 3]
        assert apg_unknown.shape.as_list() == [None, None, None, None]
        assert mpgg.shape.as_list() == [1, 4, 4, 3]
        with pytest.raises(ValueError, match="Dimension 3 in both shapes must be equal, but are "
                                             "6 and 5"):
            apply_op("LRNGrad", input_grads=_ph([None, 4, 4, 6]), input_image=_ph([None, 4, 4, 5]),
                     output_image=_ph([None, 4, 4, 6]))


# -- errors ----------------------------------------------------------------------------------------
def _z(*shape, dtype=tf.float32):
    return tf.zeros(shape, dtype)


ERROR_CASES = [
    (lambda: tf.nn.max_pool(_z(1, 8, 8, 3), [1, 2, 2], [1, 2, 2, 1], "SAME"), ValueError,
     r"ksize should be of length 1, 2 or 4. Received: ksize=\[1, 2, 2\] of length 3"),
    (lambda: tf.nn.avg_pool(_z(1, 8, 8, 3), [1, 2, 2, 1], [1, 2, 2], "SAME"), ValueError,
     "strides should be of length 1, 2 or 4"),
    (lambda: tf.nn.max_pool(_z(1, 8, 8, 3), [1, 0, 2, 1], [1, 2, 2, 1], "SAME"), ValueError,
     r"`ksize` cannot be zero. Received: ksize=\[1, 0, 2, 1\]"),
    (lambda: tf.nn.max_pool(_z(1, 8, 8, 3), 2, [1, 0, 2, 1], "SAME"), ValueError,
     r"Stride must be > 0, but got 0 for '\{\{node MaxPool\}\} = MaxPool"),
    (lambda: tf.nn.max_pool(_z(1, 8, 8, 3), 2, 2, "FOO"), ValueError,
     "Attr 'padding' of 'MaxPool' Op passed string 'FOO' not in"),
    (lambda: tf.nn.avg_pool(_z(1, 8, 8, 3), 2, 2, "EXPLICIT"), ValueError,
     "Attr 'padding' of 'AvgPool' Op passed string 'EXPLICIT' not in"),
    (lambda: tf.nn.max_pool(_z(8, 8, 3), 2, 2, "SAME"), ValueError,
     "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.max_pool(_z(1, 2, 2, 3), 3, 1, "VALID"), ValueError,
     "Negative dimension size caused by subtracting 3 from 2"),
    (lambda: tf.nn.avg_pool(_z(1, 8, 8, 3, dtype=tf.int32), 2, 2, "SAME"), TypeError,
     "Value passed to parameter 'value' has DataType int32 not in list of allowed values"),
    (lambda: tf.nn.max_pool(_z(1, 8, 8, 3), input=_z(1, 8, 8, 3), ksize=2, strides=2,
                            padding="SAME"), ValueError,
     "Cannot specify both 'value' and 'input'."),
    (lambda: tf.nn.max_pool_with_argmax(_z(1, 3, 8, 8), 2, 2, "SAME", data_format="NCHW"),
     ValueError, "`data_format` values other  than 'NHWC' are not supported."),
    (lambda: tf.nn.lrn(_z(8, 8, 3)), ValueError, "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.lrn(_z(1, 2, 2, 3, dtype=tf.float64)), TypeError,
     "Value passed to parameter 'input' has DataType float64 not in list of allowed values"),
    (lambda: tf.nn.pool(_z(1, 8, 8, 3), [2, 2], "MAX", "SAME", dilation_rate=[2, 2]), ValueError,
     "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1"),
    (lambda: tf.nn.pool(_z(1, 8, 8, 3), [2, 2], "MAX", "VALID", strides=[3, 3]), ValueError,
     "`strides` > `window_shape` not supported"),
    (lambda: tf.nn.pool(_z(1, 8, 8, 3), [2, 2], "MIN", "VALID"), ValueError,
     "2-D MIN pooling is not supported."),
]


@pytest.mark.parametrize("build,error,message", ERROR_CASES)
def test_graph_construction_errors(build, error, message):
    with tf.Graph().as_default():
        with pytest.raises(error, match=message):
            build()


def test_runtime_errors_name_the_node():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 4, 4, 4])
        batch = tf.nn.max_pool(x, [2, 2, 2, 1], [1, 2, 2, 1], "SAME", name="batch_pool")
        depth = tf.nn.avg_pool(x, [1, 1, 1, 2], [1, 1, 1, 2], "VALID")
        explicit = tf.nn.max_pool(x, 2, 1, [[0, 0], [2, 0], [0, 0], [0, 0]])
        feed = {x: np.zeros((2, 4, 4, 4), np.float32)}
        with tf.Session() as sess:
            with pytest.raises(errors.UnimplementedError,
                               match="Pooling is not yet supported on the batch dimension."
                                     "(.|\n)*batch_pool"):
                sess.run(batch, feed)
            with pytest.raises(errors.UnimplementedError, match="Non-spatial pooling"):
                sess.run(depth, feed)
            with pytest.raises(errors.InvalidArgumentError,
                               match="Top padding 2 needs to be smaller than the window size 2"):
                sess.run(explicit, feed)


# -- gradients -------------------------------------------------------------------------------------
def _distinct(shape, seed):
    """Values 0.1 apart in random order: no ties within finite-difference steps."""
    n = int(np.prod(shape))
    return np.random.RandomState(seed).permutation(n).reshape(shape) * 0.1


def _window(op_type, ksize, strides, padding, **extra):
    from trainflow._src.framework.op_builder import apply_op
    return lambda **inputs: apply_op(op_type, ksize=ksize, strides=strides, padding=padding,
                                     **inputs, **extra).outputs[0]


GRAD_CASES = [  # name, builder, input shapes
    ("max_pool_same", lambda x: tf.nn.max_pool(x, 3, 2, "SAME"), [(1, 5, 5, 2)]),
    ("max_pool_valid", lambda x: tf.nn.max_pool(x, [2, 3], [1, 2], "VALID"), [(2, 4, 5, 1)]),
    ("max_pool_nchw", lambda x: tf.nn.max_pool(x, 2, 2, "SAME", data_format="NCHW"),
     [(1, 2, 3, 5)]),
    ("max_pool_explicit", lambda x: tf.nn.max_pool(x, 2, 1, [[0, 0], [1, 0], [0, 1], [0, 0]]),
     [(1, 3, 3, 2)]),
    ("max_pool_depth", lambda x: tf.nn.max_pool(x, [1, 1, 1, 2], [1, 1, 1, 2], "VALID"),
     [(1, 2, 2, 4)]),
    ("avg_pool_same", lambda x: tf.nn.avg_pool(x, 3, 2, "SAME"), [(1, 5, 5, 2)]),
    ("avg_pool_nchw_valid", lambda x: tf.nn.avg_pool(x, [2, 3], [1, 2], "VALID",
                                                     data_format="NCHW"), [(2, 1, 4, 5)]),
    ("max_pool_grad", lambda x, dy: _window("MaxPoolGrad", [1, 3, 3, 1], [1, 2, 2, 1], "SAME")(
        orig_input=x, orig_output=tf.nn.max_pool(x, 3, 2, "SAME"), grad=dy),
     [(1, 5, 5, 2), (1, 3, 3, 2)]),
    ("max_pool_grad_grad", lambda x, g: _window("MaxPoolGradGrad", [1, 2, 2, 1], [1, 1, 1, 1],
                                                "VALID")(
        orig_input=x, orig_output=tf.nn.max_pool(x, 2, 1, "VALID"), grad=g),
     [(1, 3, 4, 2), (1, 3, 4, 2)]),
    ("avg_pool_grad", lambda dy: _window("AvgPoolGrad", [1, 3, 3, 1], [1, 2, 2, 1], "SAME")(
        orig_input_shape=[1, 5, 5, 2], grad=dy), [(1, 3, 3, 2)]),
    ("max_pool_with_argmax", lambda x: tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1],
                                                                  "SAME")[0], [(2, 5, 5, 2)]),
    ("max_pool_grad_with_argmax", lambda x, dy: _window(
        "MaxPoolGradWithArgmax", [1, 2, 2, 1], [1, 2, 2, 1], "VALID")(
        input=x, grad=dy,
        argmax=tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")[1]),
     [(2, 4, 4, 2), (2, 2, 2, 2)]),
    ("max_pool_grad_grad_with_argmax", lambda x, g: _window(
        "MaxPoolGradGradWithArgmax", [1, 3, 3, 1], [1, 2, 2, 1], "SAME",
        include_batch_in_index=True)(
        input=x, grad=g, argmax=tf.nn.max_pool_with_argmax(
            x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", include_batch_in_index=True)[1]),
     [(2, 5, 5, 1), (2, 5, 5, 1)]),
]


@pytest.mark.parametrize("name,build,shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, build, shapes):
    err = gradient_error(build, shapes, [_distinct(s, i + len(name)) for i, s in enumerate(shapes)])
    assert err < 1e-8


def test_lrn_gradient_matches_finite_differences():
    rng = np.random.RandomState(11)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 2, 2, 7])
        y = tf.nn.lrn(x, 2, 1.5, 0.3, 0.75)
        with tf.Session():
            err = tf.test.compute_gradient_error(x, [1, 2, 2, 7], y, [1, 2, 2, 7],
                                                 x_init_value=rng.uniform(-1, 1, (1, 2, 2, 7)))
    assert err < 2e-3  # float32 (LRN has no float64 kernel in TF either)


def test_max_pool_second_order_graph():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6, 6, 2])
        y = tf.nn.max_pool(x, 2, 2, "VALID")
        dy = tf.placeholder(tf.float32, [None, 3, 3, 2])
        dx = tf.gradients(y, x, grad_ys=dy)[0]
        ddy = tf.gradients(dx, dy, grad_ys=tf.ones_like(dx))[0]
        assert dx.op.type == "MaxPoolGrad" and ddy.op.type == "MaxPoolGradGrad"
        xv = _distinct((2, 6, 6, 2), 0).astype(np.float32)
        with tf.Session() as sess:
            got = sess.run(ddy, {x: xv, dy: np.zeros((2, 3, 3, 2), np.float32)})
        # d(sum dx)/d(dy) is 1 wherever a window has a maximum: everywhere for these windows.
        np.testing.assert_array_equal(got, np.ones((2, 3, 3, 2)))


# -- training --------------------------------------------------------------------------------------
def test_cifar_style_convnet_trains():
    """conv 5x5x3x64, max pool, lrn, conv 5x5x64x64, lrn, max pool, dense: the loss of a
    small fixed batch falls under plain gradient descent."""
    rng = np.random.RandomState(0)
    labels = np.arange(8) % 4
    # Each class is one colour channel (or none) lit over half the image, plus noise.
    images = rng.rand(8, 24, 24, 3).astype(np.float32) * 0.2
    for i, label in enumerate(labels):
        if label < 3:
            images[i, :12, :, label] += 1.0
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 24, 24, 3])
        y = tf.placeholder(tf.int64, [None])

        def weights(name, shape, stddev):
            return tf.Variable(rng.normal(0, stddev, shape).astype(np.float32), name=name)

        w1 = weights("conv1/weights", [5, 5, 3, 64], 5e-2)
        b1 = tf.Variable(np.zeros(64, np.float32), name="conv1/biases")
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME"), b1))
        h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", name="pool1")
        h = tf.nn.lrn(h, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
        w2 = weights("conv2/weights", [5, 5, 64, 64], 5e-2)
        b2 = tf.Variable(np.full(64, 0.1, np.float32), name="conv2/biases")
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME"), b2))
        h = tf.nn.lrn(h, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm2")
        h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", name="pool2")
        assert h.shape.as_list() == [None, 6, 6, 64]
        flat = tf.reshape(h, [-1, 6 * 6 * 64])
        w3 = weights("logits/weights", [6 * 6 * 64, 4], 1e-2)
        logits = tf.matmul(flat, w3)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                            logits=logits))
        train = tf.train.GradientDescentOptimizer(0.03).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: images, y: labels}
            losses = [sess.run([loss, train], feed)[0] for _ in range(8)]
    assert np.isfinite(losses).all()
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < 0.5 * losses[0], losses
