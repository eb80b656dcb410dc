"""`tf.sparse`: the SparseTensor type and the sparse ops trainflow has."""
from trainflow._src.framework.sparse_tensor import SparseTensor  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import sparse_placeholder as placeholder  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import sparse_reorder as reorder  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import sparse_tensor_to_dense as to_dense  # noqa: F401
from trainflow._src.ops.math.sparse_segment import (  # noqa: F401
    sparse_segment_mean as segment_mean, sparse_segment_sqrt_n as segment_sqrt_n,
    sparse_segment_sum as segment_sum)

__all__ = ["SparseTensor", "placeholder", "reorder", "to_dense", "segment_mean",
           "segment_sqrt_n", "segment_sum"]
