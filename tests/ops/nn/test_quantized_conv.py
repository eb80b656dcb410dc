"""tf.nn.quantized_conv2d's errors that cannot be compared with TF in one graph: unequal
row and column strides (raised while building, as TF does) and the dtypes TF 2.21 has no
QuantizedConv2D kernel for (raised at run time)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_unequal_strides_raise_at_construction():
    x = tf.constant(np.zeros([1, 4, 4, 1], np.uint8), tf.quint8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="equal length strides"):
        tf.nn.quantized_conv2d(x, tf.constant(np.zeros([1, 1, 1, 1], np.uint8), tf.quint8),
                               0., 1., 0., 1., [1, 2, 3, 1], "SAME")


def test_missing_kernel_types_fail_at_run():
    x = tf.constant(np.zeros([1, 4, 4, 1], np.int8), tf.qint8)
    out = tf.nn.quantized_conv2d(x, x[:, :1, :1], 0., 1., 0., 1., [1, 1, 1, 1], "SAME")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="No OpKernel"):
        sess.run(out)
