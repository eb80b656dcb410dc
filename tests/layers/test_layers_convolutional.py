"""tf.layers.conv1d / conv2d / conv2d_transpose against TensorFlow's recorded values,
plus channels-first forms checked against the channels-last results."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def _build(arr):
    """The generator's conv graph; returns (placeholders, outputs)."""
    ci = tf.constant_initializer
    L = tf.layers
    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="x")
    xt = tf.placeholder(tf.float32, [None, 2, 5, 5], name="xt")
    x1 = tf.placeholder(tf.float32, [None, 7, 2], name="x1")
    outs = {
        "c1": L.conv2d(x, 3, 3, kernel_initializer=ci(arr([3, 3, 2, 3])),
                       bias_initializer=ci(arr([3], shift=1.)), activation=tf.nn.relu),
        "c2": L.conv2d(x, 2, (2, 3), strides=(2, 1), padding="same",
                       kernel_initializer=ci(arr([2, 3, 2, 2], shift=.3))),
        "c3": L.conv2d(x, 2, 3, dilation_rate=2, padding="same",
                       kernel_initializer=ci(arr([3, 3, 2, 2], shift=.7)), use_bias=False),
        "c4": L.conv2d(xt, 3, 2, data_format="channels_first",
                       kernel_initializer=ci(arr([2, 2, 2, 3], shift=.9)),
                       bias_initializer=ci(arr([3], shift=2.))),
        "t1": L.conv2d_transpose(x, 3, 3, strides=2, padding="same",
                                 kernel_initializer=ci(arr([3, 3, 3, 2], shift=1.1)),
                                 bias_initializer=ci(arr([3], shift=3.))),
        "t2": L.conv2d_transpose(x, 2, (2, 3), strides=(1, 2), padding="valid",
                                 kernel_initializer=ci(arr([2, 3, 2, 2], shift=1.3))),
        "t3": L.conv2d_transpose(xt, 2, 2, strides=2, data_format="channels_first",
                                 kernel_initializer=ci(arr([2, 2, 2, 2], shift=1.7)),
                                 bias_initializer=ci(arr([2], shift=2.5))),
        "d1": L.conv1d(x1, 3, 3, strides=2, padding="same",
                       kernel_initializer=ci(arr([3, 2, 3], shift=1.5)),
                       bias_initializer=ci(arr([3], shift=.2))),
        "d2": L.conv1d(x1, 2, 2, dilation_rate=2,
                       kernel_initializer=ci(arr([2, 2, 2], shift=1.9))),
    }
    return (x, xt, x1), outs


def test_conv_values_shapes_and_variables_match_tf(layers_ref, arr):
    ref = layers_ref["conv"]
    with tf.Graph().as_default():
        (x, xt, x1), outs = _build(arr)
        assert {k: v.shape.as_list() for k, v in outs.items()} == ref["shapes"]
        assert [v.op.name for v in tf.global_variables()] == ref["global"]
        ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
        for name in ("conv2d/Conv2D", "conv2d/BiasAdd", "conv2d/Relu", "conv2d_1/Conv2D",
                     "conv2d_transpose/conv2d_transpose", "conv2d_transpose/BiasAdd",
                     "conv1d/Conv1D", "conv1d/Conv1D/ExpandDims", "conv1d/Conv1D/Squeeze",
                     "conv1d/BiasAdd"):
            assert ops[name] == dict(ref["nodes"])[name], name
        inputs = ref["inputs"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(outs, {x: inputs["x"], xt: inputs["xt"], x1: inputs["x1"]})
    for key, want in ref["values"].items():
        np.testing.assert_allclose(got[key], want, rtol=1e-5, atol=2e-6, err_msg=key)


def test_channels_first_equals_channels_last(arr):
    """TF's CPU kernels refuse NCHW, so the reference has no values for c4/t3: compare
    with the same layers run channels-last on transposed data."""
    data = arr([2, 2, 5, 5], shift=5.0)
    with tf.Graph().as_default():
        xt = tf.placeholder(tf.float32, [None, 2, 5, 5])
        xl = tf.placeholder(tf.float32, [None, 5, 5, 2])
        kern = tf.constant_initializer(arr([2, 2, 2, 3], shift=.9))
        bias = tf.constant_initializer(arr([3], shift=2.))
        pairs = []
        for fn, kw in ((tf.layers.conv2d, dict(strides=1)),
                       (tf.layers.conv2d_transpose, dict(strides=2, padding="same"))):
            first = fn(xt, 3, 2, data_format="channels_first", kernel_initializer=kern,
                       bias_initializer=bias, **kw)
            last = fn(xl, 3, 2, kernel_initializer=kern, bias_initializer=bias, **kw)
            pairs.append((first, last))
        x1 = tf.placeholder(tf.float32, [None, 2, 7])
        x1l = tf.placeholder(tf.float32, [None, 7, 2])
        k1 = tf.constant_initializer(arr([3, 2, 3], shift=1.5))
        b1 = tf.constant_initializer(arr([3], shift=.2))
        pairs.append((tf.layers.conv1d(x1, 3, 3, data_format="channels_first",
                                       kernel_initializer=k1, bias_initializer=b1),
                      tf.layers.conv1d(x1l, 3, 3, kernel_initializer=k1, bias_initializer=b1)))
        d1 = arr([2, 2, 7], shift=6.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {xt: data, xl: data.transpose(0, 2, 3, 1), x1: d1,
                    x1l: d1.transpose(0, 2, 1)}
            got = sess.run(pairs, feed)
    for (first, last), (f_t, _l_t) in zip(got, pairs):
        perm = (0, 2, 1) if first.ndim == 3 else (0, 2, 3, 1)
        np.testing.assert_allclose(first.transpose(perm), last, rtol=1e-5, atol=1e-6)
        assert f_t.shape.as_list()[1] == 3


def test_conv_class_api_and_kernel_shapes():
    with tf.Graph().as_default():
        layer = tf.layers.Conv2D(4, (3, 2), padding="same", name="c")
        out = layer(tf.zeros([2, 5, 5, 3]))
        assert layer.kernel.shape.as_list() == [3, 2, 3, 4]
        assert layer.bias.shape.as_list() == [4]
        assert out.shape.as_list() == [2, 5, 5, 4]
        assert layer.compute_output_shape([None, 5, 5, 3]).as_list() == [None, 5, 5, 4]
        t = tf.layers.Conv2DTranspose(6, 3, strides=2)
        assert t(tf.zeros([1, 4, 4, 3])).shape.as_list() == [1, 9, 9, 6]
        assert t.kernel.shape.as_list() == [3, 3, 6, 3]
        assert tf.layers.Conv1D(2, 3)(tf.zeros([1, 8, 5])).shape.as_list() == [1, 6, 2]
        dyn = tf.layers.conv2d_transpose(tf.placeholder(tf.float32, [None, None, 4, 3]), 2, 2,
                                         strides=2)
        assert dyn.shape.as_list() == [None, None, 8, 2]


def test_conv_regularizer_and_reuse():
    with tf.Graph().as_default():
        x = tf.ones([1, 4, 4, 1])
        a = tf.layers.conv2d(x, 2, 2, name="conv", kernel_initializer=tf.ones_initializer(),
                             kernel_regularizer=lambda w: tf.reduce_sum(w))
        b = tf.layers.conv2d(x, 2, 2, name="conv", reuse=True)
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.name for t in losses] == ["conv/kernel/Regularizer/Sum:0"]
        assert len(tf.global_variables()) == 2
        assert b.name == "conv_1/BiasAdd:0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            va, vb, loss = sess.run([a, b, losses[0]])
    np.testing.assert_array_equal(va, vb)
    assert loss == 8.0


@pytest.mark.parametrize("build, message", [
    (lambda: tf.layers.conv2d(tf.placeholder(tf.float32, [2, 3, 3]), 2, 2),
     'Input 0 of layer "conv2d" is incompatible with the layer: expected ndim=4, found ndim=3'),
    (lambda: tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 2, 2, strides=2, dilation_rate=2),
     "`strides > 1` not supported in conjunction with `dilation_rate > 1`"),
    (lambda: tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 2, (1, 2, 3)),
     "The `kernel_size` argument must be a tuple of 2 integers"),
    (lambda: tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 2, 2, padding="full"),
     'The `padding` argument must be one of "valid", "same"'),
    (lambda: tf.layers.conv2d(tf.placeholder(tf.float32, [1, 4, 4, None]), 2, 2),
     "The channel dimension of the inputs should be defined"),
])
def test_conv_argument_errors(build, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            build()
