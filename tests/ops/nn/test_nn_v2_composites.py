"""Argument errors and names of the TF2-era tf.nn composites (their values are checked
against TensorFlow in test_nn_v2_composites_tf_interop.py)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

X4 = np.zeros([1, 4, 4, 2], np.float32)
F4 = np.zeros([2, 2, 3, 2], np.float32)


@pytest.mark.parametrize("build,error,match", [
    (lambda: tf.nn.conv_transpose(X4, F4, [1, 8, 8, 8, 8, 3], 2), ValueError,
     "must be of length 3, 4 or 5"),
    (lambda: tf.nn.conv_transpose(X4, F4, 7, 2), ValueError, "sized collection"),
    (lambda: tf.nn.conv1d_transpose(X4[:, 0], F4[0], [1, 8, 3], 2, data_format="NHWC"),
     ValueError, "'NWC' or 'NCW'"),
    (lambda: tf.nn.atrous_conv2d_transpose(X4, F4, [1, 4, 4, 3], 0, "SAME"), ValueError,
     "cannot be less than one"),
    (lambda: tf.nn.atrous_conv2d_transpose(X4, F4, [1, 4, 4, 3], 2, "FULL"), ValueError,
     "'VALID' or 'SAME'"),
    (lambda: tf.nn.atrous_conv2d_transpose(X4, np.zeros([2, 2, 3, 5], np.float32),
                                           [1, 4, 4, 3], 2, "SAME"), ValueError,
     "channel count"),
    (lambda: tf.nn.with_space_to_batch(X4, [2, 2], "SAME", lambda i, n, p: i), ValueError,
     "filter_shape"),
    (lambda: tf.nn.with_space_to_batch(X4, [2, 0], "VALID", lambda i, n, p: i), ValueError,
     "must be positive"),
    (lambda: tf.nn.with_space_to_batch(X4, [[2, 2]], "VALID", lambda i, n, p: i),
     ValueError, "rank"),
    (lambda: tf.nn.with_space_to_batch(X4, [2, 2], "VALID", lambda i, n, p: i,
                                       spatial_dims=[2, 1]), ValueError, "monotonically"),
    (lambda: tf.nn.with_space_to_batch(X4, [2, 2, 2, 2], "VALID", lambda i, n, p: i),
     ValueError, "at least 5"),
    (lambda: tf.nn.avg_pool_v2(np.zeros([1] * 6, np.float32), 1, 1, "SAME"), ValueError,
     "must be 3, 4 or 5"),
    (lambda: tf.nn.max_pool_v2(np.zeros([1, 2], np.float32), 1, 1, "SAME"), ValueError,
     "must be 3, 4 or 5"),
    (lambda: tf.nn.max_pool_v2(np.zeros([1, 4, 4, 4, 1], np.float32), 2, 1,
                               [[0, 0]] * 5), ValueError, "Explicit padding"),
    (lambda: tf.nn.compute_average_loss(3.0), ValueError, "at least rank 1"),
    (lambda: tf.nn.compute_average_loss([1.0, 2.0], global_batch_size=2.0), TypeError,
     "integer"),
    (lambda: tf.nn.compute_average_loss([1.0, 2.0], global_batch_size=[2]), ValueError,
     "scalar"),
    (lambda: tf.required_space_to_batch_paddings([4, 4], [[2, 2]]), ValueError, "rank"),
    (lambda: tf.required_space_to_batch_paddings([4, 4, 4], [2, 2]), ValueError,
     "compatible"),
])
def test_argument_errors(build, error, match):
    with tf.Graph().as_default():
        with pytest.raises(error, match=match):
            build()


def test_op_names_follow_tf():
    with tf.Graph().as_default():
        x = tf.constant(X4)
        assert tf.nn.conv_transpose(x, F4, [1, 8, 8, 3], 2).op.name == "conv_transpose"
        assert tf.nn.conv1d_transpose(x[:, 0], F4[0], [1, 8, 3], 2).op.name == \
            "conv1d_transpose/Squeeze"
        assert tf.nn.conv1d_transpose(x[:, 0], F4[0], [1, 8, 3], 2).op.inputs[0].op.type == \
            "Conv2DBackpropInput"
        assert tf.nn.avg_pool_v2(x, 2, 2, "SAME").op.type == "AvgPool"
        assert tf.nn.max_pool_v2(tf.zeros([1, 4, 4, 4, 1]), 2, 2, "SAME").op.type == \
            "MaxPool3D"
        paddings, crops = tf.required_space_to_batch_paddings([5, 6], [2, 4])
        assert paddings.op.name == "required_space_to_batch_paddings/paddings"
        assert crops.op.name == "required_space_to_batch_paddings/crops"
        empty = tf.required_space_to_batch_paddings(tf.zeros([0], tf.int32),
                                                    tf.zeros([0], tf.int32))
        assert [t.shape.as_list() for t in empty] == [[0, 2], [0, 2]]
        assert tf.nn.silu is tf.nn.swish
        assert tf.nn.depthwise_conv2d_backprop_filter is \
            tf.nn.depthwise_conv2d_native_backprop_filter
        with tf.Session() as sess:
            p, c = sess.run([paddings, crops])
        np.testing.assert_array_equal(p, [[0, 1], [0, 2]])
        np.testing.assert_array_equal(c, [[0, 1], [0, 2]])


def test_conv2d_backprop_v2_shapes_and_no_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 5, 2])
        w = tf.zeros([3, 3, 2, 4])
        dy = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        dx = tf.conv2d_backprop_input_v2(x, w, dy, [1, 1, 1, 1], "SAME")
        dw = tf.conv2d_backprop_filter_v2(x, w, dy, [1, 1, 1, 1], "SAME")
        assert dx.shape.as_list() == [None, 5, 5, 2] and dw.shape.as_list() == [3, 3, 2, 4]
        assert (dx.op.type, dw.op.type) == ("Conv2DBackpropInputV2", "Conv2DBackpropFilterV2")
        with pytest.raises(LookupError):
            tf.gradients(dx, w)


def test_generic_conv_shapes_errors_and_no_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 6, 7, 4])
        w = tf.zeros([3, 2, 4, 5])
        y = tf.conv(x, w, [1, 2, 1, 1], "VALID", batch_dims=2)
        assert y.shape.as_list() == [None, 2, 2, 6, 5] and y.op.type == "Conv"
        with pytest.raises(ValueError, match="Stride attribute should contain 4"):
            tf.conv(x, w, [1, 1, 1, 1, 1], "SAME", batch_dims=2)
        with pytest.raises(ValueError, match="rank 4 or 5"):
            tf.conv(tf.zeros([2, 5, 4]), w[0], [1, 1, 1], "SAME")
        with pytest.raises(LookupError):
            tf.gradients(y, x)
        grouped = tf.conv(tf.zeros([1, 4, 4, 4]), tf.zeros([2, 2, 2, 4]), [1, 1, 1, 1],
                          "SAME", groups=2)
        first = tf.conv(tf.zeros([1, 4, 4, 4]), tf.zeros([2, 2, 4, 4]), [1, 1, 1, 1], "SAME",
                        data_format="CHANNELS_FIRST")
        with tf.Session() as sess:
            for t, match in ((grouped, "Grouped"), (first, "CHANNELS_LAST")):
                with pytest.raises(tf.errors.UnimplementedError, match=match):
                    sess.run(t)
