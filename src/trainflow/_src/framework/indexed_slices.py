"""`IndexedSlices`: a sparse set of slices of a dense tensor (sparse gradients), and
`IndexedSlicesValue`, what fetching one returns."""
import collections
import warnings

import numpy as np

from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor_conversion import register_tensor_conversion_function
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor import Tensor

# Densifying a larger IndexedSlices warns about memory, as TensorFlow does.
_LARGE_SPARSE_NUM_ELEMENTS = 100000000

IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "The fetched value of an IndexedSlices: NumPy arrays."


class IndexedSlices:
    """Slices `values[i]` of a dense tensor at rows `indices[i]`, of shape `dense_shape`.

    Args:
      values: a Tensor of shape [N, ...].
      indices: a 1-D int Tensor of N row indices (may repeat; repeats add up).
      dense_shape: an optional 1-D int Tensor, the shape of the dense tensor.
    """

    _is_tensor_like = True

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        """The slices, a Tensor of shape [N, ...]."""
        return self._values

    @property
    def indices(self):
        """The row index of each slice, a 1-D Tensor."""
        return self._indices

    @property
    def dense_shape(self):
        """The dense tensor's shape as a 1-D Tensor, or None."""
        return self._dense_shape

    @property
    def shape(self):
        """The static TensorShape of the dense tensor (unknown without dense_shape)."""
        if self._dense_shape is None:
            return TensorShape(None)
        return tensor_util.constant_value_as_shape(self._dense_shape)

    def get_shape(self):
        """Alias of `shape`."""
        return self.shape

    @property
    def name(self):
        """The name of the values tensor."""
        return self._values.name

    @property
    def device(self):
        """The device of the values tensor."""
        return self._values.device

    @property
    def op(self):
        """The Operation producing the values."""
        return self._values.op

    @property
    def dtype(self):
        """The element DType."""
        return self._values.dtype

    @property
    def graph(self):
        """The Graph holding the values."""
        return self._values.graph

    def consumers(self):
        """The Operations that consume any component tensor."""
        out = []
        for t in self._components():
            for op in t.consumers():
                if op not in out:
                    out.append(op)
        return out

    def _components(self):
        parts = [self._values, self._indices]
        if self._dense_shape is not None:
            parts.append(self._dense_shape)
        return parts

    def _fetch_components(self):
        """Session.run support: the component tensors and how to rebuild the value."""
        def rebuild(values):
            if len(values) == 3:
                return IndexedSlicesValue(*values)
            return IndexedSlicesValue(values[0], values[1], None)
        return self._components(), rebuild

    def _feed_components(self, value):
        """Session.run support: pairs each component tensor with its part of `value`, an
        IndexedSlicesValue or (values, indices[, dense_shape]) tuple (zipped as TF does)."""
        return list(zip(self._components(), value))

    def __neg__(self):
        neg = getattr(Tensor, "__neg__", None)
        if neg is None:
            raise TypeError("Negating IndexedSlices needs the math ops (Neg).")
        return IndexedSlices(neg(self._values), self._indices, self._dense_shape)

    def __str__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"

    __repr__ = __str__


def _indexed_slices_to_tensor(value, dtype=None, name=None, as_ref=False):
    """Densifies an IndexedSlices with UnsortedSegmentSum (summing repeated rows).

    Raises:
      ValueError: for a dtype mismatch or a missing dense_shape.
    """
    del as_ref
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(f"Incompatible tensor conversion requested to `dtype` {dtype.name} for "
                         f"IndexedSlices ({value}) with dtype {value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices for argument `value` "
                         f"without dense_shape: {value!s}")
    static = tensor_util.constant_value(value.dense_shape)
    if static is not None:
        n = int(np.prod(static, dtype=np.int64))
        if n >= _LARGE_SPARSE_NUM_ELEMENTS:
            warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with {n} "
                          "elements. This may consume a large amount of memory.", stacklevel=3)
    # The op is built by type name, so densifying needs no import of the math ops.
    return apply_op("UnsortedSegmentSum", data=value.values, segment_ids=value.indices,
                    num_segments=value.dense_shape[0], name=name).outputs[0]


register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor)
