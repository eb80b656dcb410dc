"""`tf.sparse`: the SparseTensor type and the sparse ops trainflow has."""
from trainflow._src.framework.sparse_tensor import SparseTensor  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import sparse_placeholder as placeholder  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import sparse_reorder as reorder  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import sparse_tensor_to_dense as to_dense  # noqa: F401
from trainflow._src.ops.math.sparse_segment import (  # noqa: F401
    sparse_segment_mean as segment_mean, sparse_segment_sqrt_n as segment_sqrt_n,
    sparse_segment_sum as segment_sum)
from trainflow._src.ops.sparse.sparse_reduce import (  # noqa: F401
    sparse_reduce_max as reduce_max, sparse_reduce_max_sparse as reduce_max_sparse,
    sparse_reduce_sum as reduce_sum, sparse_reduce_sum_sparse as reduce_sum_sparse)
from trainflow._src.ops.sparse.sparse_matmul import (  # noqa: F401
    sparse_tensor_dense_matmul as matmul, sparse_tensor_dense_matmul as sparse_dense_matmul)
from trainflow._src.ops.sparse.sparse_compose import (  # noqa: F401
    sparse_mask as mask, sparse_retain as retain, sparse_transpose as transpose)
from trainflow._src.ops.sparse.sparse_add import sparse_add as add  # noqa: F401
from trainflow._src.ops.sparse.sparse_reshape import sparse_reshape as reshape  # noqa: F401
from trainflow._src.ops.sparse.sparse_concat import sparse_concat as concat  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import (  # noqa: F401
    sparse_cross as cross, sparse_cross_hashed as cross_hashed,
    sparse_fill_empty_rows as fill_empty_rows)
from trainflow._src.ops.sparse.sparse_slice import (  # noqa: F401
    sparse_slice as slice, sparse_split as split)
from trainflow._src.ops.sparse.sparse_elementwise import (  # noqa: F401
    sparse_maximum as maximum, sparse_minimum as minimum, sparse_softmax as softmax)
from trainflow._src.ops.sparse.sparse_build import (  # noqa: F401
    from_dense, sparse_expand_dims as expand_dims, sparse_eye as eye, sparse_merge as merge,
    sparse_reset_shape as reset_shape, sparse_to_indicator as to_indicator)
from trainflow._src.ops.data_flow.accumulators import SparseConditionalAccumulator  # noqa: F401
from trainflow._src.ops.sparse.sparse_count import sparse_bincount as bincount  # noqa: F401

__all__ = ["add", "concat", "cross", "cross_hashed", "fill_empty_rows", "reshape",
           "SparseTensor", "placeholder", "reorder", "to_dense",
           "segment_mean", "segment_sqrt_n", "segment_sum", "reduce_max", "reduce_max_sparse",
           "reduce_sum", "reduce_sum_sparse", "matmul", "sparse_dense_matmul", "mask", "retain",
           "transpose", "slice", "split", "maximum", "minimum", "softmax", "from_dense",
           "expand_dims", "eye", "merge", "reset_shape", "to_indicator",
           "SparseConditionalAccumulator", "bincount"]
