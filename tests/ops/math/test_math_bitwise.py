"""tf.bitwise (shifts clamp the count as TensorFlow's kernels do) and tf.setdiff1d."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8,
                                   np.uint16, np.uint32, np.uint64])
def test_shifts_and_logic(dtype):
    info = np.iinfo(dtype)
    bits = info.bits
    x = np.array([1, 3, info.max, info.min + 1 if info.min else 7, 5], dtype)
    y = np.array([1, 2, 1, bits + 5, 0], dtype)
    mask = 2 ** bits - 1

    def shl(a, n):
        v = ((int(a) & mask) << min(int(n), bits - 1)) & mask
        return v - 2 ** bits if info.min and v > info.max else v

    want_left = np.array([shl(a, n) for a, n in zip(x, y)], dtype)
    with tf.Graph().as_default(), tf.Session() as sess:
        left, right, band, bor, bxor, inv = sess.run([
            tf.bitwise.left_shift(x, y), tf.bitwise.right_shift(x, y),
            tf.bitwise.bitwise_and(x, y), tf.bitwise.bitwise_or(x, y),
            tf.bitwise.bitwise_xor(x, y), tf.bitwise.invert(x)])
    np.testing.assert_array_equal(left, want_left)
    np.testing.assert_array_equal(right, x >> np.minimum(y, bits - 1).astype(dtype))
    np.testing.assert_array_equal(band, x & y)
    np.testing.assert_array_equal(bor, x | y)
    np.testing.assert_array_equal(bxor, x ^ y)
    np.testing.assert_array_equal(inv, ~x)


def test_shifts_are_not_differentiable():
    for op_type in ("LeftShift", "RightShift"):
        assert registry.get_gradient(op_type) == (True, None)


def test_setdiff1d():
    with tf.Graph().as_default(), tf.Session() as sess:
        out, idx = tf.setdiff1d([1, 2, 3, 4, 5, 6], [1, 3, 5])
        assert out.op.type == "ListDiff" and idx.dtype == tf.int32
        got = sess.run(tf.setdiff1d([1, 2, 3, 4], [2], index_dtype=tf.int64))
        assert got.out.tolist() == [1, 3, 4] and got.idx.dtype == np.int64
        assert sess.run(out).tolist() == [2, 4, 6]
        assert sess.run(idx).tolist() == [1, 3, 5]
        with pytest.raises(ValueError, match="rank 1"):
            tf.setdiff1d([[1]], [1])
