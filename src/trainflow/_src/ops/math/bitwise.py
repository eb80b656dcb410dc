"""`tf.bitwise`: LeftShift and RightShift (registered here) and the bitwise AND, OR,
XOR and NOT functions of `math_ops`. None of them is differentiable.

Shift counts are clamped to [0, bits - 1] as TensorFlow's kernels do; a left shift
works on the unsigned bit pattern, a right shift of a signed type is arithmetic.
"""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable
from trainflow._src.ops.math.cwise import _BITWISE, binary
from trainflow._src.ops.math.arith import bitwise_and, bitwise_or, bitwise_xor, invert  # noqa: F401

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _clamped(x, y):
    bits = x.dtype.itemsize * 8
    return np.clip(y, 0, bits - 1).astype(x.dtype)


def _left_shift(x, y):
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    y = _clamped(x, y)
    out = np.left_shift(x.astype(unsigned), y.astype(unsigned))
    return np.asarray(out, dtype=unsigned).view(x.dtype)


def _right_shift(x, y):
    return np.right_shift(x, _clamped(x, y))


binary("LeftShift", _BITWISE, _left_shift)
binary("RightShift", _BITWISE, _right_shift)
NotDifferentiable("LeftShift")
NotDifferentiable("RightShift")


def left_shift(x, y, name=None):
    """x << y element-wise with broadcasting (`LeftShift`); counts outside
    [0, bits) are clamped."""
    return apply_op("LeftShift", x=x, y=y, name=name).outputs[0]


def right_shift(x, y, name=None):
    """x >> y element-wise with broadcasting (`RightShift`; arithmetic for signed
    types); counts outside [0, bits) are clamped."""
    return apply_op("RightShift", x=x, y=y, name=name).outputs[0]
