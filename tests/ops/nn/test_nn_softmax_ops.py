"""Softmax/LogSoftmax axes and errors, BiasAdd formats, shapes and errors, as
TensorFlow 2.21 reports them."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op


def test_softmax_axis_and_dim_spellings():
    x3 = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(x3)
        outs = [tf.nn.softmax(x, axis=1), tf.nn.softmax(x, dim=1), tf.nn.softmax(x, axis=-2),
                tf.nn.log_softmax(x, axis=0), tf.nn.softmax(x, 2)]
        for t in outs:
            assert t.shape.as_list() == [2, 3, 4]
        with tf.Session() as sess:
            a, b, c, d, e = sess.run(outs)
    ref = np.exp(x3) / np.exp(x3).sum(1, keepdims=True)
    for got in (a, b, c):
        np.testing.assert_allclose(got, ref, rtol=1e-6)
    np.testing.assert_allclose(d, np.log(np.exp(x3) / np.exp(x3).sum(0, keepdims=True)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(e, np.exp(x3) / np.exp(x3).sum(2, keepdims=True), rtol=1e-6)


def test_softmax_last_axis_builds_a_single_op():
    with tf.Graph().as_default() as g:
        tf.nn.softmax(tf.placeholder(tf.float32, [2, 3]), axis=1)
        assert [op.type for op in g.get_operations()] == ["Placeholder", "Softmax"]


def test_softmax_errors():
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"`dim` must be in the range \[-2, 2\) where 2 is the number "
                                 r"of dimensions in the input. Received: dim=2"):
            tf.nn.softmax(tf.ones([2, 3]), axis=2)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Received: dim=-3"):
            tf.nn.log_softmax(tf.ones([2, 3]), axis=-3)
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            tf.nn.softmax(tf.constant(1.0))
        with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dim'"):
            tf.nn.softmax(tf.ones([2, 3]), axis=0, dim=0)


def test_bias_add_formats():
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    with tf.Graph().as_default():
        b = tf.constant([1.0, 2.0, 3.0])
        nchw = tf.nn.bias_add(tf.constant(x), b, data_format="NCHW")
        nc_long = tf.nn.bias_add(tf.ones([2, 3, 2, 2, 2]), b, data_format="NCDHW")
        nhwc = tf.nn.bias_add(tf.constant(x.transpose(0, 2, 1)), b, data_format="NDHWC")
        grad = apply_op("BiasAddGrad", out_backprop=tf.constant(x), data_format="NCHW")
        assert nchw.op.get_attr("data_format") == b"NCHW"
        assert nhwc.op.get_attr("data_format") == b"NHWC"
        assert nc_long.shape.as_list() == [2, 3, 2, 2, 2]
        assert grad.outputs[0].shape.as_list() == [3]
        with tf.Session() as sess:
            a, c, d = sess.run([nchw, nhwc, grad.outputs[0]])
    np.testing.assert_array_equal(a, x + np.array([1, 2, 3]).reshape(1, 3, 1))
    np.testing.assert_array_equal(c, x.transpose(0, 2, 1) + np.array([1, 2, 3]))
    np.testing.assert_array_equal(d, [14.0, 22.0, 30.0])  # TensorFlow's value


def test_bias_add_integer_types_and_names():
    with tf.Graph().as_default():
        y = tf.nn.bias_add(tf.constant([[1, 2], [3, 4]], tf.int64), [10, 20])
        assert y.name == "BiasAdd:0"
        assert y.op.inputs[1].name == "BiasAdd/bias:0"
        with tf.Session() as sess:
            out = sess.run(y)
    assert out.dtype == np.int64 and out.tolist() == [[11, 22], [13, 24]]


@pytest.mark.parametrize("value_shape, bias_shape, fmt, message", [
    ([3], [3], None, "Shape must be at least rank 2 but is rank 1"),
    ([2, 3], [4], None, "Dimensions must be equal, but are 3 and 4"),
    ([2, 3], [1, 3], None, "Shape must be rank 1 but is rank 2"),
    ([2, 3], [3], "NCHW", "Shape must be at least rank 3 but is rank 2"),
])
def test_bias_add_static_shape_errors(value_shape, bias_shape, fmt, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message + " for '{{node BiasAdd}}"):
            tf.nn.bias_add(tf.ones(value_shape), tf.ones(bias_shape), data_format=fmt)


def test_bias_add_bad_data_format():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="`data_format` must be of the form `N...C` or "
                                             "`NC...`. Received: data_format=HWCN"):
            tf.nn.bias_add(tf.ones([2, 3]), tf.ones([3]), data_format="HWCN")


def test_bias_add_runtime_error_names_the_shapes():
    with tf.Graph().as_default():
        value = tf.placeholder(tf.float32)
        bias = tf.placeholder(tf.float32)
        y = tf.nn.bias_add(value, bias)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Must provide as many biases as the last dimension of "
                                     r"the input tensor: \[4\] vs. \[2,3\]"):
                sess.run(y, {value: np.ones([2, 3]), bias: np.ones([4])})


def test_xw_plus_b_and_relu_layer_names():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w, b = tf.ones([3, 4]), tf.ones([4])
        y = tf.nn.xw_plus_b(x, w, b)
        r = tf.nn.relu_layer(x, w, b)
        assert y.name == "xw_plus_b:0" and y.op.type == "BiasAdd"
        assert g.get_operation_by_name("xw_plus_b/MatMul").type == "MatMul"
        assert r.name == "relu_layer:0" and r.op.type == "Relu"
        assert g.get_operation_by_name("relu_layer/BiasAdd").type == "BiasAdd"
        assert y.shape.as_list() == [2, 4]
