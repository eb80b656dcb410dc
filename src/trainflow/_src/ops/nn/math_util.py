"""Small graph-building helpers shared by the `tf.nn` gradient functions and composites."""
from trainflow._src.ops.array import create, shape
from trainflow._src.ops.math import arith


def broadcast_mul(vec, mat):
    """vec[..., None] * mat: scales each row of `mat` by the matching entry of `vec`."""
    return shape.expand_dims(vec, -1) * mat  # the operator names it "mul", as TF


def sum_rows(x):
    """The sum of each row of the 2-D `x`, as a vector (a matmul with a ones column, whose
    gradient is cheaper than a reduction's, as TensorFlow does it)."""
    cols = shape.shape(x)[1:]
    ones = create.ones(cols, dtype=x.dtype.base_dtype)
    return shape.reshape(arith.matmul(x, shape.expand_dims(ones, 1)), [-1])
