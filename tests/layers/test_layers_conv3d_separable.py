"""tf.layers' 3-D and separable layers (conv3d, conv3d_transpose, max/average_pooling3d,
separable_conv1d/2d) against TensorFlow's recorded values and gradients
(data/gen_tf_layers3d_reference.py), channels-first forms against channels-last ones,
and the shape/argument cases of TF's legacy_tf_layers tests."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

_REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "tf_layers3d_reference.json")


@pytest.fixture(scope="module")
def ref():
    with open(_REF) as f:
        return json.load(f)


def _build(arr):
    """The generator's graph; returns (placeholders, outputs)."""
    ci = tf.constant_initializer
    L = tf.layers
    x = tf.placeholder(tf.float32, [None, 4, 5, 6, 2], name="x")
    x2 = tf.placeholder(tf.float32, [None, 7, 6, 3], name="x2")
    x1 = tf.placeholder(tf.float32, [None, 9, 2], name="x1")
    outs = {
        "c1": L.conv3d(x, 3, 3, kernel_initializer=ci(arr([3, 3, 3, 2, 3])),
                       bias_initializer=ci(arr([3], shift=1.0)), activation=tf.nn.relu),
        "c2": L.conv3d(x, 2, (2, 3, 2), strides=(1, 2, 2), padding="same",
                       kernel_initializer=ci(arr([2, 3, 2, 2, 2], shift=0.3))),
        "c3": L.conv3d(x, 2, 2, dilation_rate=(1, 2, 2), padding="same", use_bias=False,
                       kernel_initializer=ci(arr([2, 2, 2, 2, 2], shift=0.7))),
        "t1": L.conv3d_transpose(x, 3, 3, strides=2, padding="same",
                                 kernel_initializer=ci(arr([3, 3, 3, 3, 2], shift=1.1)),
                                 bias_initializer=ci(arr([3], shift=3.0))),
        "t2": L.conv3d_transpose(x, 2, (2, 3, 2), strides=(1, 2, 3), padding="valid",
                                 activation=tf.nn.tanh,
                                 kernel_initializer=ci(arr([2, 3, 2, 2, 2], shift=1.3))),
        "p1": L.max_pooling3d(x, 2, 2),
        "p2": L.max_pooling3d(x, (2, 3, 3), (1, 2, 2), padding="same"),
        "p3": L.average_pooling3d(x, 2, 1, padding="same"),
        "s1": L.separable_conv2d(x2, 4, 3, depth_multiplier=2, activation=tf.nn.relu,
                                 depthwise_initializer=ci(arr([3, 3, 3, 2], shift=0.2)),
                                 pointwise_initializer=ci(arr([1, 1, 6, 4], shift=0.4)),
                                 bias_initializer=ci(arr([4], shift=0.6))),
        "s2": L.separable_conv2d(x2, 3, (2, 3), strides=2, padding="same",
                                 depthwise_initializer=ci(arr([2, 3, 3, 1], shift=0.8)),
                                 pointwise_initializer=ci(arr([1, 1, 3, 3], shift=1.0))),
        "s3": L.separable_conv2d(x2, 2, 3, dilation_rate=2, use_bias=False,
                                 depthwise_initializer=ci(arr([3, 3, 3, 1], shift=1.2)),
                                 pointwise_initializer=ci(arr([1, 1, 3, 2], shift=1.4))),
        "d1": L.separable_conv1d(x1, 3, 3, depth_multiplier=2,
                                 depthwise_initializer=ci(arr([3, 2, 2], shift=2.2)),
                                 pointwise_initializer=ci(arr([1, 4, 3], shift=2.4)),
                                 bias_initializer=ci(arr([3], shift=2.6))),
        "d2": L.separable_conv1d(x1, 2, 2, strides=2, padding="same", activation=tf.nn.tanh,
                                 depthwise_initializer=ci(arr([2, 2, 1], shift=2.8)),
                                 pointwise_initializer=ci(arr([1, 2, 2], shift=3.0))),
        "d3": L.separable_conv1d(x1, 2, 3, dilation_rate=2,
                                 depthwise_initializer=ci(arr([3, 2, 1], shift=3.2)),
                                 pointwise_initializer=ci(arr([1, 2, 2], shift=3.4))),
    }
    return (x, x2, x1), outs


# Nodes whose name and type TF's graph has too (the variables' own nodes differ: TF's
# legacy layers make resource variables, trainflow TF1 ref variables).
_NODES = ["conv3d/Conv3D", "conv3d/BiasAdd", "conv3d/Relu", "conv3d_2/Conv3D",
          "conv3d_transpose/conv3d_transpose", "conv3d_transpose/BiasAdd",
          "conv3d_transpose_1/Tanh", "max_pooling3d/MaxPool3D",
          "average_pooling3d/AvgPool3D", "separable_conv2d/separable_conv2d",
          "separable_conv2d/separable_conv2d/depthwise", "separable_conv2d/BiasAdd",
          "separable_conv2d/Relu", "separable_conv1d/ExpandDims",
          "separable_conv1d/ExpandDims_1", "separable_conv1d/ExpandDims_2",
          "separable_conv1d/separable_conv2d", "separable_conv1d/separable_conv2d/depthwise",
          "separable_conv1d/BiasAdd", "separable_conv1d/Squeeze", "separable_conv1d_1/Tanh"]


def test_values_gradients_names_and_shapes_match_tf(ref, arr):
    with tf.Graph().as_default() as g:
        places, outs = _build(arr)
        assert {k: v.shape.as_list() for k, v in outs.items()} == ref["shapes"]
        variables = tf.global_variables()
        assert [[v.op.name, v.shape.as_list()] for v in variables] == ref["variables"]
        assert tf.trainable_variables() == variables
        types = {op.name: op.type for op in g.get_operations()}
        want_types = dict(ref["nodes"])
        for name in _NODES:
            assert types[name] == want_types[name], name
        total = tf.add_n([tf.reduce_sum(v * arr(v.shape.as_list()[1:], shift=0.1))
                          for _, v in sorted(outs.items())])
        by_name = {t.op.name: t for t in variables + list(places)}
        wrt = [by_name[n] for n in ref["grads"]]
        grads = tf.gradients(total, wrt)
        feed = {p: np.array(ref["inputs"][p.op.name], np.float32) for p in places}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, got_grads = sess.run([outs, grads], feed)
    for key, want in ref["values"].items():
        np.testing.assert_allclose(got[key], want, rtol=1e-5, atol=2e-5, err_msg=key)
    for name, value in zip(ref["grads"], got_grads):
        np.testing.assert_allclose(value, ref["grads"][name], rtol=1e-4, atol=1e-4,
                                   err_msg=name)


def _first(x):
    """channels_last -> channels_first for a rank-4 or rank-5 array."""
    return np.moveaxis(x, -1, 1)


@pytest.mark.parametrize("make", [
    lambda x, fmt: tf.layers.conv3d(x, 3, (2, 3, 2), strides=(1, 2, 1), padding="same",
                                    data_format=fmt, activation=tf.nn.relu,
                                    kernel_initializer=tf.constant_initializer(
                                        np.sin(np.arange(72)).reshape([2, 3, 2, 2, 3])),
                                    bias_initializer=tf.constant_initializer([0.1, -0.2, 0.3])),
    lambda x, fmt: tf.layers.conv3d_transpose(
        x, 2, 2, strides=(2, 1, 2), data_format=fmt,
        kernel_initializer=tf.constant_initializer(np.cos(np.arange(32)).reshape([2, 2, 2, 2, 2])),
        bias_initializer=tf.constant_initializer([0.5, -0.5])),
    lambda x, fmt: tf.layers.max_pooling3d(x, (2, 2, 3), (1, 2, 2), padding="same",
                                           data_format=fmt),
    lambda x, fmt: tf.layers.average_pooling3d(x, 2, 2, data_format=fmt),
], ids=["conv3d", "conv3d_transpose", "max_pooling3d", "average_pooling3d"])
def test_channels_first_3d_builds_and_fails_on_cpu_as_tf(make, arr):
    """The shapes are channels-first; running raises what TF's CPU kernels raise (they
    have no NCDHW 3-D convolution or pooling)."""
    value = arr([2, 4, 5, 6, 2], shift=0.3)
    with tf.Graph().as_default():
        last = make(tf.constant(value), "channels_last")
        first = make(tf.constant(_first(value)), "channels_first")
        assert first.shape.as_list() == [last.shape[0]] + [last.shape[-1]] + \
            last.shape.as_list()[1:-1]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(last)
            with pytest.raises(tf.errors.UnimplementedError, match="NDHWC"):
                sess.run(first)


@pytest.mark.parametrize("layer,shape", [
    (lambda x, fmt: tf.layers.separable_conv2d(
        x, 3, 2, strides=2, padding="same", depth_multiplier=2, data_format=fmt,
        depthwise_initializer=tf.constant_initializer(np.sin(np.arange(16)).reshape([2, 2, 2, 2])),
        pointwise_initializer=tf.constant_initializer(np.cos(np.arange(12)).reshape([1, 1, 4, 3])),
        bias_initializer=tf.constant_initializer([1.0, 2.0, 3.0])), [2, 5, 6, 2]),
    (lambda x, fmt: tf.layers.separable_conv1d(
        x, 2, 3, data_format=fmt,
        depthwise_initializer=tf.constant_initializer(np.sin(np.arange(6)).reshape([3, 2, 1])),
        pointwise_initializer=tf.constant_initializer(np.cos(np.arange(4)).reshape([1, 2, 2])),
        bias_initializer=tf.constant_initializer([0.5, -1.0])), [2, 7, 2]),
], ids=["separable_conv2d", "separable_conv1d"])
def test_channels_first_separable_matches_channels_last(layer, shape, arr):
    value = arr(shape, shift=1.3)
    with tf.Graph().as_default():
        last = layer(tf.constant(value), "channels_last")
        first = layer(tf.constant(_first(value)), "channels_first")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b = sess.run([last, first])
    np.testing.assert_allclose(b, _first(a), rtol=1e-5, atol=1e-6)


# TF's legacy_tf_layers convolutional_test / pooling_test shape cases:
# (layer factory, input shape, output shape, variable shapes).
_SHAPE_CASES = [
    (lambda: tf.layers.Conv3D(32, [3, 3, 3], activation=tf.nn.relu), [5, 6, 7, 9, 4],
     [5, 4, 5, 7, 32], {"kernel": [3, 3, 3, 4, 32], "bias": [32]}),
    (lambda: tf.layers.Conv3D(32, [3, 3, 3], strides=2, padding="same"), [5, 6, 7, 9, 4],
     [5, 3, 4, 5, 32], {"kernel": [3, 3, 3, 4, 32], "bias": [32]}),
    (lambda: tf.layers.Conv3D(32, [3, 3, 3], dilation_rate=2), [5, 6, 7, 9, 4],
     [5, 2, 3, 5, 32], {"kernel": [3, 3, 3, 4, 32], "bias": [32]}),
    (lambda: tf.layers.Conv3DTranspose(4, [3, 3, 3], activation=tf.nn.relu),
     [5, 6, 7, 9, 32], [5, 8, 9, 11, 4], {"kernel": [3, 3, 3, 4, 32], "bias": [4]}),
    (lambda: tf.layers.Conv3DTranspose(4, [3, 3, 3], strides=2, padding="same"),
     [5, 6, 7, 9, 32], [5, 12, 14, 18, 4], {"kernel": [3, 3, 3, 4, 32], "bias": [4]}),
    (lambda: tf.layers.Conv3DTranspose(4, 3, strides=(2, 1, 1), padding="valid"),
     [5, 6, 7, 9, 32], [5, 13, 9, 11, 4], {"kernel": [3, 3, 3, 4, 32], "bias": [4]}),
    (lambda: tf.layers.SeparableConv2D(32, [3, 3], activation=tf.nn.relu), [5, 7, 9, 4],
     [5, 5, 7, 32], {"depthwise_kernel": [3, 3, 4, 1], "pointwise_kernel": [1, 1, 4, 32],
                     "bias": [32]}),
    (lambda: tf.layers.SeparableConv2D(32, [3, 3], depth_multiplier=2), [5, 7, 9, 4],
     [5, 5, 7, 32], {"depthwise_kernel": [3, 3, 4, 2], "pointwise_kernel": [1, 1, 8, 32],
                     "bias": [32]}),
    (lambda: tf.layers.SeparableConv2D(32, [3, 3], strides=(2, 2), padding="same"),
     [5, 7, 9, 4], [5, 4, 5, 32], {"depthwise_kernel": [3, 3, 4, 1],
                                    "pointwise_kernel": [1, 1, 4, 32], "bias": [32]}),
    (lambda: tf.layers.SeparableConv2D(32, [3, 3], data_format="channels_first"),
     [5, 4, 7, 9], [5, 32, 5, 7], {"depthwise_kernel": [3, 3, 4, 1],
                                    "pointwise_kernel": [1, 1, 4, 32], "bias": [32]}),
    (lambda: tf.layers.SeparableConv1D(32, 3, activation=tf.nn.relu), [5, 7, 4],
     [5, 5, 32], {"depthwise_kernel": [3, 4, 1], "pointwise_kernel": [1, 4, 32],
                  "bias": [32]}),
    (lambda: tf.layers.SeparableConv1D(32, 3, depth_multiplier=2, use_bias=False),
     [5, 7, 4], [5, 5, 32], {"depthwise_kernel": [3, 4, 2], "pointwise_kernel": [1, 8, 32]}),
    (lambda: tf.layers.SeparableConv1D(32, 3, strides=2, padding="same"), [5, 7, 4],
     [5, 4, 32], {"depthwise_kernel": [3, 4, 1], "pointwise_kernel": [1, 4, 32],
                  "bias": [32]}),
    (lambda: tf.layers.SeparableConv1D(32, 3, data_format="channels_first"), [5, 4, 7],
     [5, 32, 5], {"depthwise_kernel": [3, 4, 1], "pointwise_kernel": [1, 4, 32],
                  "bias": [32]}),
    (lambda: tf.layers.MaxPooling3D([2, 2, 2], strides=2), [5, 3, 5, 6, 4], [5, 1, 2, 3, 4],
     {}),
    (lambda: tf.layers.AveragePooling3D([2, 2, 2], strides=2), [5, 3, 5, 6, 4],
     [5, 1, 2, 3, 4], {}),
    (lambda: tf.layers.MaxPooling3D([2, 2, 2], strides=2, data_format="channels_first"),
     [5, 4, 3, 5, 6], [5, 4, 1, 2, 3], {}),
]


@pytest.mark.parametrize("case", range(len(_SHAPE_CASES)))
def test_tf_shape_cases(case):
    factory, in_shape, out_shape, weights = _SHAPE_CASES[case]
    with tf.Graph().as_default():
        layer = factory()
        out = layer.apply(tf.random_uniform(in_shape))
        assert out.shape.as_list() == out_shape
        assert layer.compute_output_shape(in_shape).as_list() == out_shape
        got = {v.op.name.split("/")[-1]: v.shape.as_list() for v in layer.trainable_variables}
        assert got == weights
        if len(in_shape) == 5 and layer.data_format == "channels_first":
            return  # no NCDHW CPU kernels, as in TF
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert list(sess.run(out).shape) == out_shape


@pytest.mark.parametrize("make,message", [
    (lambda: tf.layers.Conv3D(32, [3, 3, 3], data_format="invalid"), "data_format"),
    (lambda: tf.layers.Conv3D(32, (1, 2), strides=1), "kernel_size"),
    (lambda: tf.layers.Conv3D(32, 3, strides=(1, 2)), "strides"),
    (lambda: tf.layers.SeparableConv2D(32, 3, padding="full"), "padding"),
    (lambda: tf.layers.SeparableConv1D(32, (3, 3)), "kernel_size"),
    (lambda: tf.layers.MaxPooling3D((2, 2), 2), "pool_size"),
], ids=["format", "kernel", "strides", "padding", "kernel1d", "pool"])
def test_invalid_arguments_raise_value_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_conv3d_rejects_wrong_rank_and_unknown_channels():
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.layers.conv3d(tf.zeros([5, 6, 7, 4]), 32, 3)
        with pytest.raises(ValueError, match="channel dimension"):
            tf.layers.separable_conv2d(tf.placeholder(tf.float32, [5, 6, 7, None]), 4, 3)


def test_reuse_and_regularizers():
    with tf.Graph().as_default():
        x = tf.random_uniform([2, 6, 6, 3])
        reg = lambda w: tf.reduce_sum(tf.abs(w))  # noqa: E731
        tf.layers.separable_conv2d(x, 4, 3, name="sep", depthwise_regularizer=reg,
                                   pointwise_regularizer=reg, bias_regularizer=reg)
        tf.layers.separable_conv2d(x, 4, 3, name="sep", reuse=True)
        assert [v.op.name for v in tf.global_variables()] == [
            "sep/depthwise_kernel", "sep/pointwise_kernel", "sep/bias"]
        assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 3
        x3 = tf.random_uniform([2, 4, 4, 4, 3])
        tf.layers.conv3d(x3, 2, 2, name="c3")
        tf.layers.conv3d(x3, 2, 2, name="c3", reuse=True)
        tf.layers.conv3d_transpose(x3, 2, 2, name="t3", trainable=False)
        assert [v.op.name for v in tf.trainable_variables()][3:] == ["c3/kernel", "c3/bias"]
        assert [v.op.name for v in tf.global_variables()][-2:] == ["t3/kernel", "t3/bias"]
