"""Array ops: the public `tf.*` array functions.

The ops live in modules by concern and are re-exported here:
shape (Shape, Reshape, Squeeze, ExpandDims, broadcasting), create
(Fill, zeros/ones, Range, LinSpace, OneHot), diag (Diag, MatrixDiag...),
join (ConcatV2, Pack, Unpack, Split), layout (Tile, Pad, Transpose,
ReverseV2), slicing (Slice, StridedSlice, `Tensor.__getitem__`), gather
(GatherV2, GatherNd, ScatterNd, Where, Select, Unique), space_batch (SpaceToBatchND,
BatchToSpaceND, Roll, UnravelIndex), tensor_scatter (TensorScatterUpdate/Add/Sub/Min/
Max), cast (Cast, StopGradient, IdentityN) and ops/sparse/sparse_ops (SparseToDense,
sparse_placeholder). Identity and list autopacking are `identity`'s. Importing this module
registers the gradients of gather, join and slicing (their `_grad` modules).
"""
from trainflow._src.framework.indexed_slices import IndexedSlices, IndexedSlicesValue  # noqa: F401
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401
# The concern modules under private names: their public functions (shape, gather ...)
# are star-imported below under the same names.
from trainflow._src.ops.array import (
    cast as _cast, create as _create, diag as _diag, gather as _gather, join as _join,
    layout as _layout, saturate as _saturate, shape as _shape, slicing as _slicing,
    repeat as _repeat, space_batch as _space_batch, tensor_scatter as _tensor_scatter)
from trainflow._src.ops.sparse import sparse_ops as _sparse_ops
from trainflow._src.ops.array.cast import *  # noqa: F401,F403
from trainflow._src.ops.array.cast import prevent_gradient  # noqa: F401
from trainflow._src.ops.array.create import *  # noqa: F401,F403
from trainflow._src.ops.array.diag import *  # noqa: F401,F403
from trainflow._src.ops.array.gather import *  # noqa: F401,F403
from trainflow._src.ops.array.join import *  # noqa: F401,F403
from trainflow._src.ops.array.layout import *  # noqa: F401,F403
from trainflow._src.ops.array.saturate import *  # noqa: F401,F403
from trainflow._src.ops.array.shape import *  # noqa: F401,F403
from trainflow._src.ops.array.shape import shape_internal  # noqa: F401
from trainflow._src.ops.array.slicing import *  # noqa: F401,F403
from trainflow._src.ops.array.repeat import repeat  # noqa: F401
from trainflow._src.ops.array.ensure_shape import ensure_shape, guarantee_const  # noqa: F401
from trainflow._src.ops.array.bitcast import bitcast  # noqa: F401
from trainflow._src.ops.array.space_batch import *  # noqa: F401,F403
from trainflow._src.ops.array.tensor_scatter import *  # noqa: F401,F403
from trainflow._src.ops.array.slicing import _slice_helper, newaxis  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import *  # noqa: F401,F403
from trainflow._src.ops.array.identity import identity, stack_nested  # noqa: F401
# The gradients of gather, join, slicing, shape and create (they call those modules'
# functions).
from trainflow._src.ops.array import gather_grad, join_grad, shape_grad, slicing_grad  # noqa: F401

__all__ = (["identity", "IndexedSlices", "IndexedSlicesValue", "SparseTensor",
            "SparseTensorValue", "newaxis"] +
           _cast.__all__ + _create.__all__ + _diag.__all__ + _gather.__all__ + _join.__all__ +
           _layout.__all__ + _saturate.__all__ + _shape.__all__ + _space_batch.__all__ +
           _repeat.__all__ + _tensor_scatter.__all__ + ["bitcast", "ensure_shape",
                                                         "guarantee_const"] +
           [n for n in _slicing.__all__ if n != "newaxis"] + _sparse_ops.__all__)
