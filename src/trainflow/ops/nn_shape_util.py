"""Shape-function helpers of the `tf.nn` ops, worded as TensorFlow's C++ shape
functions word their errors ("Shape must be rank 2 but is rank 1",
"Dimensions must be equal, but are 3 and 4"). Dims are tuples of ints/None;
None for a whole shape means unknown rank.
"""
from trainflow.framework.tensor_shape import TensorShape


def dims_of(tensor):
    """The dims tuple of `tensor`'s static shape (None for unknown rank)."""
    return tensor._shape._dims


def with_rank(dims, rank):
    """`dims` checked to have `rank` (unknown rank becomes `rank` unknown dims).

    Raises:
      ValueError: "Shape must be rank R but is rank S".
    """
    if dims is None:
        return (None,) * rank
    if len(dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)}")
    return tuple(dims)


def with_rank_at_least(dims, rank):
    """`dims` checked to have at least `rank` dims (None stays None).

    Raises:
      ValueError: "Shape must be at least rank R but is rank S".
    """
    if dims is not None and len(dims) < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {len(dims)}")
    return dims


def merge_dim(a, b):
    """Merges two dims (int or None).

    Raises:
      ValueError: "Dimensions must be equal, but are A and B".
    """
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError(f"Dimensions must be equal, but are {a} and {b}")


def merge_dims(a, b):
    """Merges two dims tuples (either may be None for unknown rank).

    Raises:
      ValueError: "Shapes must be equal rank, ..." or "Dimensions must be equal, ...".
    """
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise ValueError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
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


def shape_str(dims):
    """"[2,3]" for a dims tuple of ints (TF's runtime error style)."""
    return "[" + ",".join(str(d) for d in dims) + "]"
