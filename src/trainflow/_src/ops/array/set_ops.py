"""`tf.setdiff1d`: the values of a 1-D tensor that are not in another (`ListDiff`, whose
registration and kernel live with the Prod gradient that uses it)."""
import collections

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op

__all__ = ["setdiff1d"]

_ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """(out, idx): the values of `x` not in `y`, in x's order, and their positions in x.

    Raises:
      ValueError: for inputs of known rank other than 1.
    """
    op = apply_op("ListDiff", x=x, y=y, out_idx=dtypes.as_dtype(index_dtype), name=name)
    return _ListDiff(*op.outputs)
