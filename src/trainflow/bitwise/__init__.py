"""`tf.bitwise`: bitwise AND, OR, XOR, NOT and shifts of integer tensors."""
from trainflow._src.ops.math.bitwise import (  # noqa: F401
    bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift)
