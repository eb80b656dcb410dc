"""Shape-function helpers of the `tf.nn` ops, worded as TensorFlow's C++ shape
functions word their errors ("Shape must be rank 2 but is rank 1",
"Dimensions must be equal, but are 3 and 4"). Dims are tuples of ints/None;
None for a whole shape means unknown rank.

The rank checks and `merge_dim` are the array ops' (`ops.array.shape_util`, imported from
there); `merge_dims` here merges dim by dim with `merge_dim`'s wording, as the nn shape
functions do.
"""
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.shape_util import fmt_dims, merge_dim
from trainflow._src.ops.array.shape_util import merge_dims as _array_merge_dims


def merge_dims(a, b):
    """Merges two dims tuples (either may be None for unknown rank).

    Raises:
      ValueError: "Shapes must be equal rank, ..." or "Dimensions must be equal, ...".
    """
    if a is None or b is None or len(a) != len(b):
        return _array_merge_dims(a, b)  # the other one, or the rank error
    return tuple(merge_dim(x, y) for x, y in zip(a, b))


def merged_shape_fn(op):
    """Shape function: one output whose shape merges every input's shape."""
    dims = None
    for t in op._inputs:
        dims = merge_dims(dims, t._shape._dims)
    return [TensorShape._from_values(dims)]


def decoded(value):
    """A bytes attr as str."""
    return value.decode() if isinstance(value, bytes) else value


# "[2,3]" for a dims tuple of ints (TF's runtime error style).
shape_str = fmt_dims
