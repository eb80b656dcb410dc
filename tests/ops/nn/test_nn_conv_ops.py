"""Graph-level tests of the convolution ops: TF's numbers, static shapes, errors,
gradients (finite differences in float64), op naming and GraphDef interop."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

from op_checks import gradient_error
from tf_interop import needs_tf, run_json


def pattern(shape, k=1.0):
    """The deterministic inputs the TF reference numbers below were computed from."""
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * 0.7 * k + k).reshape(shape).astype(np.float32)


# Recorded once with TensorFlow 2.21 (tf.compat.v1, CPU) from the `pattern` inputs below.
TF_EXPECTED = {
    'conv_same_s2':
        [0.010121882, 0.13349715, 0.03525845, 0.01198332, -0.12901731, -0.055840656, -0.028293788,
         -0.007379547, 0.025785167, -0.061682153, -0.05293283, 0.043688368, 0.051213816,
         0.091056086, -0.020260755, 0.061272487, -0.02097483, -0.06840246, -1.028122, -0.24937856,
         0.9433497, 0.8640006, 0.26019943, -0.77554995, -0.04332176, 0.08473843, 0.07212719],
    'conv_same_s2_dx':
        [-0.42572007, -0.5807546, 0.99516255, -0.39502382, -1.0604424, 0.42209482, 1.0104502,
         -0.42184573, -1.0761919, 0.45011228, 1.0254521, -0.44854835, -0.36388078, -0.63422436,
         0.9857515, -0.33232632, -1.0505035, 0.35532582, 1.0024949, -0.35892275, -1.0677823,
         0.3831246, 1.0189549, -0.38541767, -0.8063923, -1.2296054, 2.0120473, -0.74325025,
         -2.1425877, 0.7927075, 2.0445886, -0.7959424, -2.1761413, 0.8477741, 2.076552, -0.8484095,
         -0.4437148, -0.60316056, 1.0351268, -0.41180363, -1.1014297, 0.43838954, 1.0510061,
         -0.4380732, -1.1177886, 0.46583998, 1.0665882, -0.46421885, -0.964412, -1.1662323,
         2.1079283, -0.9006367, -2.241394, 0.95717275, 2.1387084, -0.9526093, -2.2730742,
         1.0114737, 2.168884, -1.0043125, -0.52241987, -0.5705623, 1.0818685, -0.49023327,
         -1.1495537, 0.520338, 1.0968432, -0.51610905, -1.1649511, 0.5473702, 1.1115078, -0.541839],
    'conv_same_s2_dw':
        [0.009031889, 0.0569823, -0.066566646, 0.05811268, 0.013891514, -0.072138846, 0.07986217,
         -0.035732698, -0.043783333, 0.06405124, -0.06855128, 0.0051644286, -0.029020965,
         0.012770176, 0.01612699, -0.023396567, 0.024598122, -0.001439929, 0.063236415, -0.0689774,
         0.006409487, 0.016803367, -0.06871012, 0.052572872, -0.037532542, -0.036127567,
         0.07401015, -0.07421631, 0.013446504, 0.060639523, 0.013478231, 0.013042867, -0.026647389,
         0.026909359, -0.0047564507, -0.022106767, -0.09765749, 0.5696564, -0.4775201, -0.09749718,
         0.8292249, -0.73976463, -0.051482417, 0.6987959, -0.6540864, 0.018745363, 0.23971224,
         -0.26078093, 0.03359413, -0.2737465, 0.24280548, 0.014202416, -0.10085589, 0.08763087],
    'conv_valid_dil2':
        [1.0466287, 1.3604026, 0.8777331, -1.8621507, -1.932869, 0.51979643, 1.0738695, 1.3373163,
         0.8485912, -1.8700744, 0.8192093, -1.8774692, -1.9279562, 0.58181417, 1.1274331,
         1.2900159, 0.78959584, -1.8843331, -1.9246819, 0.61258066, -1.9208632, 0.64317393,
         1.1797216, 1.241257, 0.72970754, -1.8964612, -1.9165016, 0.6735853, 1.2053692, 1.2163475,
         1.230676, 1.191094, 0.6689942, -1.9064448, -1.9061542, 0.7338282, 1.2556348, 1.165504,
         0.6383495, -1.9106287, 0.6075243, -1.9142723, -1.8936512, 0.7932414, 1.3044808, 1.1133426,
         0.57652736, -1.9173748, -1.8865957, 0.8226158],
    'conv_explicit':
        [-0.066016406, 0.48507902, -0.3755547, 0.16695276, -0.5084638, -0.22969396, -0.28029856,
         0.4048702, 0.7241596, -0.40880916, 1.1116676, 0.30437708, 0.976341, 0.8744103, 0.9401759,
         -0.28043246, -0.98187196, 0.046841085, -1.1096864, -0.6343992, -0.715598, -1.0172716,
         -0.8052168, 0.27288604, 1.1148014, 0.32107997, 0.96667874, 0.88379765, 0.3639119,
         1.0308514, 0.5679252, -0.2306594, -0.59718215, -0.4007493, -0.3092933, -0.494156,
         0.12406103, -0.35515347, -0.30191067, 0.016892135, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    'conv_grouped':
        [0.8047979, 0.7479757, 0.10114565, -0.047129333, -0.81371033, -0.64139676, 0.19245842,
         0.8242616, 0.20479135, 0.04782003, -0.3399334, -0.97555137, -0.89912605, -0.770002,
         0.055429637, 0.49647403, 0.55594563, 0.37329406, -0.2980777, -1.0021143, 0.20935133,
         0.30684748, 0.31440222, 0.7468724, 0.80269754, 0.6286663, -0.20024517, -0.84048784,
         -0.18023278, -0.025994003, 0.34045723, 0.9673605, -0.57907856, -0.5964148, -0.22216795,
         -0.3597389],
    'conv_transpose':
        [1.6528832, 0.11166582, -1.6460065, -0.21303168, 1.6328874, 0.31358966, -0.543548,
         -0.104542196, 0.53711, -0.3731419, 1.0280553, 0.43645257, -1.9995954, -0.42113605,
         1.9736606, -0.015194538, -1.004094, -0.046640497, 0.51076096, -1.5566902, -0.60662645,
         1.5193324, 0.7001914, -1.4762126, -0.23322648, 0.4913475, 0.26348513, 0.898241,
         0.67084134, -0.85692865, -0.8931596, 1.7964776, 1.0037918, -0.96993786, -0.28988212,
         0.9520861, -3.0540562, -1.2249234, 2.9786217, 1.4083555, -2.8918912, -1.5864465,
         1.9999188, 0.7009711, -1.9567508, 1.1024531, -0.66125524, -1.1431751, 3.159106, 1.7576517,
         -3.0508647, -0.7340579, 2.487445, 0.8872421, -0.6615745, 1.5380625, 0.7562929, -1.4914877,
         -0.84814304, 1.4392567, 0.7016814, -1.4249473, -0.78943384, 0.057693474, -0.22887084,
         -0.07178803, 0.7422322, -1.478985, -0.8333124, 1.526775, 0.70815784, -1.4831647,
         2.3651037, 1.4111295, -2.278202, -1.5514278, 2.1826608, 1.6858423, -3.2005153, -1.5288589,
         3.1063635, -0.21484777, -1.152456, 0.14387615, -1.8898408, -1.3091698, 1.8092183,
         1.4200196, -2.8875418, -1.5978429, 0.5517884, -0.9135792, -0.6080493, 0.8761338,
         0.6620041, -0.83536565, -0.89373827, 1.7972487, 1.0044181, -0.990902, -0.30325377,
         0.97222674, -0.29893345, 0.57890797, 0.3345843, -1.482203, -0.84748435, 1.4300123],
    'depthwise_same':
        [0.67006093, 0.45995453, 0.90880847, 0.5609468, 0.8863036, 1.4987352, 1.2320917, 1.4897039,
         -0.69435066, -0.5654555, -1.6473172, -1.5538877, -0.5438049, -1.2198161, -0.41952837,
         -0.72322595, 0.70106953, 0.59684503, 0.73412335, 0.8088147, 0.35784382, 0.2854582,
         0.08589418, 0.034883574, 0.27505738, 0.26630753, -0.41292146, -0.36534315, -0.63957274,
         -0.7434641, -0.46857113, -0.33182326, 0.04042113, 0.10041696, 0.644051, 0.5290197,
         0.084149316, 0.21193507, 0.30250725, 0.3558871, -0.37259078, -0.2920468, -0.12616083,
         -0.029675953, -0.4489326, -0.47555923, 0.20351553, 0.20731497, 0.56750745, 0.6772857,
         0.6180896, 0.4617194, 0.1690014, 0.14147806, -0.50839716, -0.43506503, -0.077821285,
         -0.17398953, -0.3340698, -0.38689718, 0.34838098, 0.26810002, 0.15323639, 0.021365598,
         0.57586926, 0.63508815, 0.027169526, -0.027611047, -0.43610564, -0.5402924, -0.70298254,
         -0.54333967, -0.3607539, -0.36858088, 0.31958696, 0.29562134, 0.06335649, 0.117852345,
         0.3307032, 0.37745455, 0.7699766, 0.6621022, 0.6573884, 0.7361587, -0.71720576,
         -0.36493728, -0.98772824, -0.2467748, -1.5605488, -1.546258, -0.56283087, -0.68680346,
         1.4869691, 1.1276518, 1.2653527, 0.58555055, 0.6965685, 0.9893464, 0.50256884, 0.67829025],
    'depthwise_rate2':
        [-0.54521286, -0.64340466, -0.59072286, -0.44867966],
}

def _run(build, feed=None):
    with tf.Graph().as_default():
        out = build()
        with tf.Session() as sess:
            return sess.run(out, feed)


X1, W1, DY1 = pattern([1, 6, 6, 2]), pattern([3, 3, 2, 3], 2.0), pattern([1, 3, 3, 3], 3.0)
X2, W2 = pattern([1, 7, 7, 2], 1.5), pattern([2, 2, 2, 2], 2.5)
X3, W3 = pattern([1, 4, 5, 2], 0.5), pattern([2, 3, 2, 2], 1.2)
X4, W4 = pattern([1, 4, 4, 4], 0.8), pattern([2, 2, 2, 4], 1.7)
V5, W5 = pattern([1, 3, 3, 2], 0.9), pattern([3, 3, 3, 2], 1.1)
X6, W6 = pattern([1, 5, 5, 2], 1.3), pattern([3, 3, 2, 2], 0.6)

TF_CASES = [
    ("conv_same_s2", lambda: tf.nn.conv2d(X1, W1, [1, 2, 2, 1], "SAME"), (1, 3, 3, 3)),
    ("conv_same_s2_dx", lambda: tf.nn.conv2d_backprop_input([1, 6, 6, 2], W1, DY1, [1, 2, 2, 1],
                                                            "SAME"), (1, 6, 6, 2)),
    ("conv_same_s2_dw", lambda: tf.nn.conv2d_backprop_filter(X1, [3, 3, 2, 3], DY1, [1, 2, 2, 1],
                                                             "SAME"), (3, 3, 2, 3)),
    ("conv_valid_dil2", lambda: tf.nn.conv2d(X2, W2, [1, 1, 1, 1], "VALID",
                                             dilations=[1, 2, 2, 1]), (1, 5, 5, 2)),
    ("conv_explicit", lambda: tf.nn.conv2d(X3, W3, [1, 1, 1, 1],
                                           [[0, 0], [1, 2], [0, 1], [0, 0]]), (1, 6, 4, 2)),
    ("conv_grouped", lambda: tf.nn.conv2d(X4, W4, [1, 1, 1, 1], "VALID"), (1, 3, 3, 4)),
    ("conv_transpose", lambda: tf.nn.conv2d_transpose(V5, W5, [1, 6, 6, 3], [1, 2, 2, 1],
                                                      "SAME"), (1, 6, 6, 3)),
    ("depthwise_same", lambda: tf.nn.depthwise_conv2d(X6, W6, [1, 1, 1, 1], "SAME"),
     (1, 5, 5, 4)),
    ("depthwise_rate2", lambda: tf.nn.depthwise_conv2d(X6, W6, [1, 1, 1, 1], "VALID",
                                                       rate=[2, 2]), (1, 1, 1, 4)),
]


@pytest.mark.parametrize("name,build,shape", TF_CASES, ids=[c[0] for c in TF_CASES])
def test_matches_tensorflow_numbers(name, build, shape):
    out = _run(build)
    assert out.dtype == np.float32 and out.shape == shape
    np.testing.assert_allclose(out.ravel(), np.array(TF_EXPECTED[name], np.float32),
                               rtol=2e-6, atol=1e-6)


def test_nchw_equals_transposed_nhwc_and_unknown_batch_runs():
    x = pattern([3, 7, 6, 2])
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 7, 6, 2])
        nhwc = tf.nn.conv2d(ph, W1, [1, 2, 1, 1], "SAME", dilations=[1, 1, 2, 1])
        nchw = tf.nn.conv2d(tf.constant(x.transpose(0, 3, 1, 2)), W1, [1, 1, 2, 1], "SAME",
                            data_format="NCHW", dilations=[1, 1, 1, 2])
        assert nhwc.shape.as_list() == [None, 4, 6, 3]
        assert nchw.shape.as_list() == [3, 3, 4, 6]
        with tf.Session() as sess:
            a, b = sess.run([nhwc, nchw], {ph: x})
    np.testing.assert_allclose(b, a.transpose(0, 3, 1, 2), rtol=1e-6, atol=1e-6)


def test_dtypes_are_kept():
    for dtype in (tf.float16, tf.bfloat16, tf.float64, tf.int32):
        np_dtype = dtype.as_numpy_dtype
        out = _run(lambda: tf.nn.conv2d(tf.constant(np.ones((1, 3, 3, 2)), dtype),
                                        tf.constant(np.ones((2, 2, 2, 1)), dtype), 1, "SAME"))
        assert out.dtype == np.dtype(np_dtype)
        np.testing.assert_array_equal(out.astype(np.float64)[0, :, :, 0],
                                      [[8, 8, 4], [8, 8, 4], [4, 4, 2]])


# -- static shapes ---------------------------------------------------------------------------------
def _ph(shape, dtype=tf.float32):
    return tf.placeholder(dtype, shape)


SHAPE_CASES = [
    ("unknown_batch", lambda: tf.nn.conv2d(_ph([None, 8, 8, 3]), _ph([3, 3, 3, 6]), 2, "SAME"),
     [None, 4, 4, 6]),
    ("unknown_rank_input", lambda: tf.nn.conv2d(_ph(None), _ph([3, 3, 3, 6]), 2, "SAME"),
     [None, None, None, 6]),
    ("unknown_filter_same", lambda: tf.nn.conv2d(_ph([None, 8, 8, 3]), _ph(None), 2, "SAME"),
     [None, 4, 4, None]),
    ("unknown_filter_valid", lambda: tf.nn.conv2d(_ph([None, 8, 8, 3]), _ph(None), 2, "VALID"),
     [None, None, None, None]),
    ("unknown_height", lambda: tf.nn.conv2d(_ph([None, None, 8, 3]), _ph([3, 3, 3, 6]), 2,
                                            "VALID"), [None, None, 3, 6]),
    ("nchw", lambda: tf.nn.conv2d(_ph([None, 3, 8, None]), _ph([3, 3, 3, 6]), [1, 1, 2, 2],
                                  "VALID", data_format="NCHW"), [None, 6, 3, None]),
    ("dilated_valid", lambda: tf.nn.conv2d(_ph([None, 3, 8, 8]), _ph([3, 3, 3, 6]), 1, "VALID",
                                           data_format="NCHW", dilations=3), [None, 6, 2, 2]),
    ("explicit", lambda: tf.nn.conv2d(_ph([1, 8, 8, 3]), _ph([3, 3, 3, 6]), 1,
                                      [[0, 0], [1, 2], [3, 4], [0, 0]]), [1, 9, 13, 6]),
    ("grouped", lambda: tf.nn.conv2d(_ph([1, 8, 8, 4]), _ph([3, 3, 2, 6]), 1, "SAME"),
     [1, 8, 8, 6]),
    ("backprop_input", lambda: tf.nn.conv2d_backprop_input(
        [2, 8, 8, 3], _ph([3, 3, 3, 6]), _ph([None, 4, 4, 6]), [1, 2, 2, 1], "SAME"),
     [None, 8, 8, 3]),
    ("backprop_input_2_sizes", lambda: tf.nn.conv2d_backprop_input(
        [8, 8], _ph([3, 3, 3, 6]), _ph([None, 6, 4, 4]), [1, 1, 2, 2], "SAME",
        data_format="NCHW"), [None, 3, 8, 8]),
    ("backprop_input_unknown_sizes", lambda: tf.nn.conv2d_backprop_input(
        _ph([4], tf.int32), _ph([3, 3, 3, 6]), _ph([None, 4, 4, 6]), [1, 2, 2, 1], "SAME"),
     [None, None, None, None]),
    ("backprop_filter", lambda: tf.nn.conv2d_backprop_filter(
        _ph([None, 8, 8, 3]), [3, 3, 3, 6], _ph([None, 4, 4, 6]), [1, 2, 2, 1], "SAME"),
     [3, 3, 3, 6]),
    # TF takes the batch size from out_backprop, the rest from the (partly static) sizes.
    ("transpose_packed_sizes", lambda: tf.nn.conv2d_transpose(
        _ph([None, 4, 4, 6]), _ph([3, 3, 3, 6]), tf.stack([tf.constant(5), 8, 8, 3]),
        [1, 2, 2, 1], "SAME"), [None, 8, 8, 3]),
    ("depthwise", lambda: tf.nn.depthwise_conv2d_native(_ph([None, 8, 8, None]),
                                                        _ph([3, 3, 3, 2]), [1, 2, 2, 1], "SAME"),
     [None, 4, 4, 6]),
    ("depthwise_nchw", lambda: tf.nn.depthwise_conv2d_native(
        _ph([None, 3, 8, 8]), _ph([3, 3, 3, 2]), [1, 1, 2, 2], "SAME", data_format="NCHW"),
     [None, 6, 4, 4]),
    ("depthwise_backprop_input", lambda: tf.nn.depthwise_conv2d_native_backprop_input(
        [2, 8, 8, 3], _ph([3, 3, 3, 2]), _ph([None, 4, 4, 6]), [1, 2, 2, 1], "SAME"),
     [2, 8, 8, 3]),
    ("conv1d", lambda: tf.nn.conv1d(_ph([None, 9, 3]), _ph([3, 3, 5]), 2, "SAME"),
     [None, 5, 5]),
    ("conv1d_ncw", lambda: tf.nn.conv1d(_ph([None, 3, 9]), _ph([3, 3, 5]), 1, "VALID",
                                        data_format="NCW"), [None, 5, 7]),
    ("separable", lambda: tf.nn.separable_conv2d(_ph([None, 8, 8, 3]), _ph([3, 3, 3, 2]),
                                                 _ph([1, 1, 6, 5]), [1, 2, 2, 1], "SAME"),
     [None, 4, 4, 5]),
    ("atrous", lambda: tf.nn.atrous_conv2d(_ph([None, 9, 9, 3]), _ph([3, 3, 3, 4]), 2, "VALID"),
     [None, 5, 5, 4]),
    ("convolution", lambda: tf.nn.convolution(_ph([None, 9, 9, 3]), _ph([3, 3, 3, 4]), "SAME",
                                              strides=[2, 2]), [None, 5, 5, 4]),
]


@pytest.mark.parametrize("name,build,expected", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_static_shapes(name, build, expected):
    with tf.Graph().as_default():
        assert build().shape.as_list() == expected


# -- errors ----------------------------------------------------------------------------------------
def _z(*shape, dtype=tf.float32):
    return tf.zeros(shape, dtype)


ERROR_CASES = [
    (lambda: tf.nn.conv2d(_z(8, 8, 3), _z(3, 3, 3, 6), 1, "SAME"), ValueError,
     r"Shape must be rank 4 but is rank 3 for '\{\{node Conv2D\}\} = Conv2D"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 6), 1, "SAME"), ValueError,
     "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 2, 6), 1, "SAME"), ValueError,
     r"Depth of input \(3\) is not a multiple of input depth of filter \(2\)"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 4), _z(3, 3, 2, 5), 1, "SAME"), ValueError,
     r"Depth of output \(5\) is not a multiple of the number of groups \(2\)"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), [1, 0, 1, 1], "SAME"), ValueError,
     "Stride must be > 0, but got 0"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), 1, "SAME", dilations=[1, 0, 1, 1]),
     ValueError, "Dilation rate must be >= 1, but got 0"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), [1, 1, 1], "SAME"), ValueError,
     r"strides should be of length 1, 2 or 4. Received: strides=\[1, 1, 1\] of length 3"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), 1, "FOO"), ValueError,
     "Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: \"SAME\", \"VALID\", "
     "\"EXPLICIT\"."),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), 1, "EXPLICIT"), ValueError,
     "'EXPLICIT' is not a valid value for `padding`"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), 1, [[1, 0], [1, 2], [3, 4], [0, 0]]),
     ValueError, "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), 1, [[0, 0], [-1, 2], [3, 4], [0, 0]]),
     ValueError, "All elements of explicit_paddings must be nonnegative"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), 1, [[0, 0], [1, 2], [3, 4]]),
     ValueError, "When padding is a list, it must be of size 4. Received: padding="),
    (lambda: tf.nn.conv2d(_z(1, 2, 2, 3), _z(3, 3, 3, 6), 2, "VALID"), ValueError,
     "Negative dimension size caused by subtracting 3 from 2"),
    (lambda: tf.nn.conv2d(_z(1, 6, 8, 3), _z(3, 3, 3, 6), 1, "VALID", dilations=3), ValueError,
     "Negative dimension size caused by subtracting 7 from 6"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3, dtype=tf.float64), _z(3, 3, 3, 6), 1, "SAME"),
     TypeError, "Input 'filter' of 'Conv2D' Op has type float32 that does not match type "
                "float64 of argument 'input'."),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3, dtype=tf.int64), _z(3, 3, 3, 6, dtype=tf.int64), 1,
                          "SAME"), TypeError, "DataType int64 not in list of allowed values"),
    (lambda: tf.nn.conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 6), filters=_z(3, 3, 3, 6), strides=1,
                          padding="SAME"), ValueError,
     "Cannot specify both 'filter' and 'filters'."),
    (lambda: tf.nn.conv2d_backprop_input([2, 8, 8, 3], _z(3, 3, 3, 6), _z(2, 4, 4, 7),
                                         [1, 2, 2, 1], "SAME"), ValueError,
     "Dimensions must be equal, but are 7 and 6"),
    (lambda: tf.nn.conv2d_backprop_input([1, 8, 8], _z(3, 3, 3, 6), _z(1, 4, 4, 6),
                                         [1, 2, 2, 1], "SAME"), ValueError,
     "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: 3"),
    (lambda: tf.nn.depthwise_conv2d(_z(1, 8, 8, 3), _z(3, 3, 4, 2), [1, 1, 1, 1], "SAME"),
     ValueError, r"Dimensions must be equal, but are 3 and 4 for '\{\{node depthwise\}\}"),
    (lambda: tf.nn.conv1d(_z(1, 8, 3), _z(3, 3, 4), 1, "SAME", data_format="NHCW"), ValueError,
     "`data_format` must be 'NWC' or 'NCW'"),
    (lambda: tf.nn.separable_conv2d(_z(1, 8, 8, 3), _z(3, 3, 3, 2), _z(2, 1, 6, 4), 1, "SAME"),
     ValueError, "are not compatible"),
]


@pytest.mark.parametrize("build,error,message", ERROR_CASES)
def test_graph_construction_errors(build, error, message):
    with tf.Graph().as_default():
        with pytest.raises(error, match=message):
            build()


def test_runtime_errors_name_the_node():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        w = tf.placeholder(tf.float32)
        y = tf.nn.conv2d(x, w, 1, "SAME", name="my_conv")
        z = tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError,
                               match="input depth must be evenly divisible by filter depth: "
                                     "3 vs 2(.|\n)*my_conv"):
                sess.run(y, {x: np.zeros((1, 4, 4, 3)), w: np.zeros((3, 3, 2, 6))})
            with pytest.raises(errors.UnimplementedError, match="strides in the batch"):
                sess.run(z, {x: np.zeros((1, 4, 4, 3)), w: np.zeros((3, 3, 3, 6))})
            out = sess.run(tf.nn.conv2d(x, w, 2, "VALID"),
                           {x: np.zeros((1, 2, 2, 3)), w: np.zeros((3, 3, 3, 6))})
            assert out.shape == (1, 0, 0, 6)  # TF's kernels truncate (2 - 3 + 2) / 2 to 0


# -- gradients -------------------------------------------------------------------------------------
GRAD_CASES = [  # name, builder over float64 inputs, input shapes
    ("conv2d_same_s2", lambda x, w: tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"),
     [(1, 5, 5, 2), (3, 3, 2, 3)]),
    ("conv2d_valid_dilated", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=[1, 2, 1, 1]),
     [(2, 6, 5, 2), (2, 2, 2, 2)]),
    ("conv2d_explicit", lambda x, w: tf.nn.conv2d(x, w, [1, 1, 2, 1],
                                                  [[0, 0], [1, 0], [2, 1], [0, 0]]),
     [(1, 3, 4, 2), (2, 3, 2, 2)]),
    ("conv2d_nchw", lambda x, w: tf.nn.conv2d(x, w, [1, 1, 2, 1], "SAME", data_format="NCHW"),
     [(1, 2, 5, 4), (3, 2, 2, 3)]),
    ("conv2d_grouped", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"), [(1, 3, 3, 4), (2, 2, 2, 4)]),
    ("conv2d_backprop_input", lambda w, dy: tf.nn.conv2d_backprop_input(
        [1, 5, 5, 2], w, dy, [1, 2, 2, 1], "SAME"), [(3, 3, 2, 3), (1, 3, 3, 3)]),
    ("conv2d_backprop_filter", lambda x, dy: tf.nn.conv2d_backprop_filter(
        x, [3, 3, 2, 3], dy, [1, 2, 2, 1], "SAME"), [(1, 5, 5, 2), (1, 3, 3, 3)]),
    ("conv2d_transpose_nchw", lambda v, w: tf.nn.conv2d_transpose(
        v, w, [1, 2, 4, 5], [1, 1, 2, 2], "VALID", data_format="NCHW"),
     [(1, 3, 2, 3), (2, 1, 2, 3)]),
    ("depthwise", lambda x, w: tf.nn.depthwise_conv2d_native(x, w, [1, 2, 1, 1], "SAME"),
     [(1, 5, 4, 2), (3, 2, 2, 2)]),
    ("depthwise_dilated_nchw", lambda x, w: tf.nn.depthwise_conv2d(
        x, w, [1, 1, 1, 1], "VALID", rate=2, data_format="NCHW"), [(1, 2, 5, 5), (2, 2, 2, 1)]),
    ("depthwise_backprop_input", lambda w, dy: tf.nn.depthwise_conv2d_native_backprop_input(
        [1, 5, 4, 2], w, dy, [1, 2, 1, 1], "SAME"), [(3, 2, 2, 2), (1, 3, 4, 4)]),
    ("depthwise_backprop_filter", lambda x, dy: tf.nn.depthwise_conv2d_native_backprop_filter(
        x, [3, 2, 2, 2], dy, [1, 2, 1, 1], "SAME"), [(1, 5, 4, 2), (1, 3, 4, 4)]),
    ("separable", lambda x, dw, pw: tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME"),
     [(1, 4, 4, 2), (2, 2, 2, 2), (1, 1, 4, 3)]),
]


@pytest.mark.parametrize("name,build,shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, build, shapes):
    rng = np.random.RandomState(len(name))
    err = gradient_error(build, shapes, [rng.uniform(-1, 1, s) for s in shapes])
    assert err < 1e-8


def test_second_order_gradient_through_conv2d():
    """d/dw of <dL/dx, v> where dL/dx comes from Conv2D's gradient: gradients of gradients."""
    rng = np.random.RandomState(3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [1, 4, 4, 2])
        w = tf.placeholder(tf.float64, [2, 2, 2, 2])
        y = tf.nn.conv2d(x, w, 1, "SAME")
        dy = tf.constant(rng.uniform(-1, 1, (1, 4, 4, 2)))
        dx = tf.gradients(y, x, grad_ys=dy)[0]
        assert dx.op.type == "Conv2DBackpropInput"
        with tf.Session():
            err = tf.test.compute_gradient_error(w, [2, 2, 2, 2], dx, [1, 4, 4, 2],
                                                 x_init_value=rng.uniform(-1, 1, (2, 2, 2, 2)),
                                                 extra_feed_dict={x: np.zeros((1, 4, 4, 2))})
    assert err < 1e-8


def test_gradient_graph_names_follow_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 3])
        w = tf.constant(W1[:, :, :1, :].repeat(3, axis=2))
        y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
        dx, dw = tf.gradients(y, [x, w], grad_ys=tf.ones_like(y))
        assert dx.op.name == "gradients/Conv2D_grad/Conv2DBackpropInput"
        assert dw.op.name == "gradients/Conv2D_grad/Conv2DBackpropFilter"
        assert dx.shape.as_list() == [None, 8, 8, 3] and dw.shape.as_list() == [3, 3, 3, 3]
        assert dx.op.get_attr("strides") == [1, 2, 2, 1]
        assert dx.op.get_attr("padding") == b"SAME"


# -- the composite builders ------------------------------------------------------------------------
def _op_summary(graph):
    return [(op.name, op.type) for op in graph.get_operations() if op.type != "Const"]


NAME_CASES = [
    (lambda x, x1: tf.nn.conv1d(x1, tf.ones([3, 3, 4]), 1, "SAME"),
     [("conv1d/ExpandDims", "ExpandDims"), ("conv1d/ExpandDims_1", "ExpandDims"),
      ("conv1d", "Conv2D"), ("conv1d/Squeeze", "Squeeze")]),
    (lambda x, x1: tf.nn.conv2d_transpose(x, tf.ones([3, 3, 5, 3]), [2, 16, 16, 5], 2),
     [("conv2d_transpose", "Conv2DBackpropInput")]),
    (lambda x, x1: tf.nn.depthwise_conv2d(x, tf.ones([3, 3, 3, 2]), [1, 1, 1, 1], "SAME"),
     [("depthwise", "DepthwiseConv2dNative")]),
    (lambda x, x1: tf.nn.separable_conv2d(x, tf.ones([3, 3, 3, 2]), tf.ones([1, 1, 6, 5]),
                                          [1, 1, 1, 1], "SAME"),
     [("separable_conv2d/depthwise", "DepthwiseConv2dNative"), ("separable_conv2d", "Conv2D")]),
    (lambda x, x1: tf.nn.atrous_conv2d(x, tf.ones([3, 3, 3, 4]), 2, "SAME"),
     [("convolution", "Conv2D")]),
    (lambda x, x1: tf.nn.convolution(x, tf.ones([3, 3, 3, 4]), "SAME"),
     [("convolution", "Conv2D")]),
    (lambda x, x1: tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), 1, "SAME", name="c1"),
     [("c1", "Conv2D")]),
]


@pytest.mark.parametrize("build,expected", NAME_CASES)
def test_op_names_follow_tf(build, expected):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        x1 = tf.placeholder(tf.float32, [None, 8, 3], name="x1")
        build(x, x1)
        assert _op_summary(g)[2:] == expected


def test_composites_equal_their_definitions():
    rng = np.random.RandomState(7)
    x1 = rng.randn(2, 9, 3).astype(np.float32)
    f1 = rng.randn(3, 3, 4).astype(np.float32)
    x = rng.randn(2, 7, 7, 3).astype(np.float32)
    dwf = rng.randn(3, 3, 3, 2).astype(np.float32)
    pwf = rng.randn(1, 1, 6, 5).astype(np.float32)
    w = rng.randn(3, 3, 3, 4).astype(np.float32)
    with tf.Graph().as_default():
        pairs = [
            (tf.nn.conv1d(x1, f1, 2, "SAME"),
             tf.nn.conv2d(x1[:, None], f1[None], [1, 1, 2, 1], "SAME")[:, 0]),
            (tf.nn.conv1d(x1.transpose(0, 2, 1), f1, 1, "VALID", data_format="NCW"),
             tf.transpose(tf.nn.conv1d(x1, f1, 1, "VALID"), [0, 2, 1])),
            (tf.nn.separable_conv2d(x, dwf, pwf, [1, 1, 1, 1], "SAME", rate=[2, 2]),
             tf.nn.conv2d(tf.nn.depthwise_conv2d_native(x, dwf, [1, 1, 1, 1], "SAME",
                                                        dilations=[1, 2, 2, 1]), pwf, 1, "VALID")),
            (tf.nn.atrous_conv2d(x, w, 2, "SAME"), tf.nn.conv2d(x, w, 1, "SAME", dilations=2)),
            (tf.nn.convolution(x, w, "VALID", dilation_rate=[1, 2]),
             tf.nn.conv2d(x, w, 1, "VALID", dilations=[1, 2])),
            (tf.nn.convolution(x1, f1, "SAME", strides=[2]), tf.nn.conv1d(x1, f1, 2, "SAME")),
            (tf.nn.conv2d_transpose(x, w.transpose(0, 1, 3, 2), [2, 14, 14, 4], 2, "SAME"),
             tf.nn.conv2d_backprop_input([2, 14, 14, 4], w.transpose(0, 1, 3, 2), x,
                                         [1, 2, 2, 1], "SAME")),
        ]
        with tf.Session() as sess:
            for got, want in sess.run(pairs):
                assert got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv1d_gradient_matches_finite_differences():
    rng = np.random.RandomState(5)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2, 7, 2])
        f = tf.placeholder(tf.float64, [3, 2, 3])
        y = tf.nn.conv1d(x, f, 2, "SAME")
        with tf.Session():
            err = tf.test.compute_gradient_error(
                [x, f], [[2, 7, 2], [3, 2, 3]], y, [2, 4, 3],
                x_init_value=[rng.uniform(-1, 1, (2, 7, 2)), rng.uniform(-1, 1, (3, 2, 3))])
    assert err < 1e-8


# -- GraphDef interop ------------------------------------------------------------------------------
_TF_GRAPH = r'''
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from google.protobuf import text_format
mode, path = sys.argv[1], sys.argv[2]
x_val = np.sin(np.arange(2 * 8 * 8 * 3) * 0.3).reshape(2, 8, 8, 3).astype(np.float32)
fetches = ["conv:0", "dil:0", "pool:0", "avg:0", "lrn:0", "dw:0", "tr:0", "c1:0", "gx:0", "gw:0"]
g = tf.Graph()
if mode == "build":
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        w = tf.constant(np.cos(np.arange(3 * 3 * 3 * 4)).reshape(3, 3, 3, 4).astype(np.float32),
                        name="w")
        y = tf.nn.conv2d(x, w, [1, 1, 2, 1], "SAME", name="conv")
        tf.nn.conv2d(x, w, 1, "VALID", dilations=[1, 2, 1, 1], name="dil")
        p = tf.nn.max_pool(y, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", name="pool")
        tf.nn.avg_pool(y, [1, 2, 3, 1], [1, 2, 1, 1], "SAME", name="avg")
        tf.nn.lrn(y, 2, 1.0, 0.2, 0.75, name="lrn")
        tf.nn.depthwise_conv2d(x, tf.ones([2, 2, 3, 2]), [1, 1, 1, 1], "VALID", name="dw")
        tf.nn.conv2d_transpose(p, tf.ones([3, 3, 2, 4]), tf.stack([tf.shape(x)[0], 8, 4, 2]),
                               [1, 2, 2, 1], "SAME", name="tr")
        tf.nn.conv1d(x[:, 0], tf.ones([2, 3, 2]), 1, "VALID", name="c1")
        gx, gw = tf.gradients(p, [x, w], grad_ys=tf.ones_like(p) * 0.5)
        tf.identity(gx, name="gx"); tf.identity(gw, name="gw")
    open(path, "wb").write(g.as_graph_def().SerializeToString())
else:
    gd = tf.GraphDef(); gd.ParseFromString(open(path, "rb").read())
    with g.as_default():
        tf.import_graph_def(gd, name="")
with tf.Session(graph=g) as sess:
    out = sess.run(fetches, {"x:0": x_val})
print(json.dumps({k: v.ravel().tolist() for k, v in zip(fetches, out)}))
'''


def _run_tf(*args):
    return run_json(_TF_GRAPH, *args, timeout=600)


@needs_tf
def test_graph_def_round_trip_with_tensorflow(tmp_path):
    """A TF-built graph with these ops imports and runs here with TF's numbers, and the
    graph exported from here imports and runs in TF with the same numbers."""
    from trainflow._src.framework.graph_def import import_graph_def
    from trainflow._src.ops.nn import conv, pool  # noqa: F401 - register the op types
    from trainflow._src.protos import graph_pb2
    path = str(tmp_path / "tf_graph.pb")
    expected = _run_tf("build", path)
    gd = graph_pb2.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    x_val = np.sin(np.arange(2 * 8 * 8 * 3) * 0.3).reshape(2, 8, 8, 3).astype(np.float32)
    with tf.Graph().as_default() as g:
        import_graph_def(gd, name="")
        with tf.Session() as sess:
            ours = sess.run(list(expected), {"x:0": x_val})
    for name, value in zip(expected, ours):
        np.testing.assert_allclose(value.ravel(), expected[name], rtol=1e-4, atol=1e-4,
                                   err_msg=name)
    ours_path = str(tmp_path / "ours.pb")
    with open(ours_path, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    theirs = _run_tf("import", ours_path)
    for name in expected:
        np.testing.assert_allclose(theirs[name], expected[name], rtol=1e-5, atol=1e-5,
                                   err_msg=name)
