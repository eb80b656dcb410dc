"""Helpers shared by the array ops' shape functions, static-value rules and kernels.

Shape functions work on dims tuples (ints and Nones, or None for an unknown
rank) and raise ValueError with the wording of TensorFlow's C++ shape
inference; `shape_inference.run_shape_fn` adds the node and input shapes.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value, partial_shape_value  # noqa: F401

UNKNOWN = TensorShape._from_values(None)


def dims_of(tensor):
    """The static dims of `tensor`: a tuple of ints/Nones, or None for unknown rank."""
    return tensor._shape._dims


def shape_of(dims):
    """A TensorShape from a dims tuple (or None)."""
    return TensorShape._from_values(None if dims is None else tuple(dims))


def fmt_dims(dims):
    """"[2,?]" for known rank, "?" for unknown rank (TF's shape-error style)."""
    if dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def with_rank(dims, rank):
    """Returns `dims` with rank `rank` (unknown rank becomes `rank` unknown dims).

    Raises:
      ValueError: "Shape must be rank R but is rank Q".
    """
    if dims is None:
        return (None,) * rank
    if len(dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)}")
    return dims


def with_rank_at_least(dims, rank):
    """Raises ValueError "Shape must be at least rank R but is rank Q" when too small."""
    if dims is not None and len(dims) < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {len(dims)}")
    return dims


def with_rank_at_most(dims, rank):
    """Raises ValueError "Shape must be at most rank R but is rank Q" when too big."""
    if dims is not None and len(dims) > rank:
        raise ValueError(f"Shape must be at most rank {rank} but is rank {len(dims)}")
    return dims


def merge_dim(a, b):
    """Merges two dims (None = unknown).

    Raises:
      ValueError: "Dimensions must be equal, but are A and B".
    """
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError(f"Dimensions must be equal, but are {a} and {b}")


def merge_dims(a, b):
    """Merges two dims tuples as TF's InferenceContext::Merge does.

    Raises:
      ValueError: with TF's "Dimension i in both shapes must be equal" wording.
    """
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise ValueError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {fmt_dims(a)} and {fmt_dims(b)}.")
        out.append(x if x is not None else y)
    return tuple(out)


def static_value(tensor):
    """The static value of `tensor` as an ndarray, or None."""
    value = constant_value(tensor)
    return None if value is None else np.asarray(value)


def static_int(tensor):
    """The static value of a scalar int tensor as a Python int, or None."""
    value = constant_value(tensor)
    if value is None:
        return None
    value = np.asarray(value)
    if value.ndim != 0:
        return None
    return int(value)


def shape_from_shape_tensor(tensor):
    """The static dims given by a 1-D shape tensor (TF's MakeShapeFromShapeTensor).

    Raises:
      ValueError: if the shape tensor is not a vector or holds a size below -1.
    """
    dims = dims_of(tensor)
    if dims is not None and len(dims) == 0:
        value = static_value(tensor)
        if value is not None and int(value) != -1:
            raise ValueError(f"Input tensor must be rank 1, or if its rank 0 it must have value "
                             f"-1 (representing an unknown shape).  Saw value: {int(value)}")
        return None
    with_rank(dims, 1)
    value = static_value(tensor)
    if value is not None:
        for d in value.reshape(-1).tolist():
            if d < -1:
                raise ValueError(f"Invalid value in tensor used for shape: {d}")
    return partial_shape_value(tensor)


def invalid_argument(message):
    """An InvalidArgumentError for a kernel to raise (the executor names the node)."""
    return errors.InvalidArgumentError(None, None, message)


def as_index_list(value):
    """A Python list of ints from a 1-D (or scalar) index array."""
    return [int(v) for v in np.asarray(value).reshape(-1).tolist()]


def broadcast_batch_dims(a, b, error):
    """Broadcasts two batch dims tuples (of ints/None; the shorter one padded with 1s in
    front): an unknown dim takes the other's size unless that is 1.

    Raises:
      ValueError: `error` formatted with the two dims that do not broadcast.
    """
    if len(a) < len(b):
        a, b = b, a
    b = (1,) * (len(a) - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y or y is None:
            out.append(x)
        elif x is None:
            out.append(y)
        else:
            raise ValueError(error.format(x, y))
    return tuple(out)
