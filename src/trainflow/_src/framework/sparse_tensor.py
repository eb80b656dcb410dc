"""`SparseTensor` (indices, values, dense_shape) and `SparseTensorValue`, what fetching one
returns and what feeding one takes."""
import collections

from trainflow._src.framework import dtypes, session_stack, tensor_util
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.scopes import name_scope

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = "The value of a SparseTensor as NumPy arrays."


class SparseTensor:
    """A sparse tensor: `values[i]` sits at `indices[i]` of a tensor of shape `dense_shape`.

    Args:
      indices: int64 [N, rank] coordinates (converted to int64).
      values: [N] values of any dtype.
      dense_shape: int64 [rank] shape of the dense tensor.

    Raises:
      ValueError: if the component shapes are inconsistent.
    """

    _is_tensor_like = True

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor built from a SparseTensorValue (or returned as is).

        Raises:
          TypeError: for anything else.
        """
        if not is_sparse(sparse_tensor_value):
            raise TypeError(f"Argument sparse_tensor_value={sparse_tensor_value} is neither a "
                            "SparseTensor nor SparseTensorValue.")
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return SparseTensor(indices=sparse_tensor_value.indices,
                            values=sparse_tensor_value.values,
                            dense_shape=sparse_tensor_value.dense_shape)

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape", dtype=dtypes.int64)
            self._dense_shape_default = _static_shape(dense_shape)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        indices_shape.dims[0].assert_is_compatible_with(values_shape.dims[0])
        indices_shape.dims[1].assert_is_compatible_with(dense_shape_shape.dims[0])

    @property
    def indices(self):
        """The int64 [N, rank] coordinates of the values."""
        return self._indices

    @property
    def values(self):
        """The [N] non-default values."""
        return self._values

    @property
    def dense_shape(self):
        """The int64 [rank] shape of the dense tensor."""
        return self._dense_shape

    @property
    def shape(self):
        """The static TensorShape of the dense tensor."""
        return self._dense_shape_default

    def get_shape(self):
        """Alias of `shape`."""
        return self._dense_shape_default

    def set_shape(self, shape):
        """Refines the static dense shape.

        Raises:
          ValueError: if `shape` is incompatible with what is known.
        """
        self._dense_shape_default = self._dense_shape_default.merge_with(as_shape(shape))

    @property
    def dtype(self):
        """The DType of the values."""
        return self._values.dtype

    @property
    def op(self):
        """The Operation producing the values."""
        return self._values.op

    @property
    def graph(self):
        """The Graph holding the components."""
        return self._indices.graph

    def with_values(self, new_values):
        """A SparseTensor with the same indices and dense_shape and `new_values`."""
        out = SparseTensor(self._indices, new_values, self._dense_shape)
        out._dense_shape_default = self._dense_shape_default
        return out

    def consumers(self):
        """The Operations that consume any component tensor."""
        out = []
        for t in (self._indices, self._values, self._dense_shape):
            for op in t.consumers():
                if op not in out:
                    out.append(op)
        return out

    def eval(self, feed_dict=None, session=None):
        """Evaluates the components in `session` (default session); returns a
        SparseTensorValue."""
        parts = session_stack.run_using_default_session(
            [self._indices, self._values, self._dense_shape], feed_dict, self.graph, session)
        return SparseTensorValue(*parts)

    def _fetch_components(self):
        """Session.run support: the component tensors and how to rebuild the value."""
        return [self._indices, self._values, self._dense_shape], \
            lambda parts: SparseTensorValue(*parts)

    def _feed_components(self, value):
        """Session.run support: (component tensor, component value) pairs for a fed
        SparseTensorValue or (indices, values, dense_shape) tuple, zipped as TF does (a
        wrong value then fails the components' feed checks)."""
        return list(zip([self._indices, self._values, self._dense_shape], value))

    @staticmethod
    def _override_operator(operator, func):
        setattr(SparseTensor, operator, func)

    def __str__(self):
        return (f"SparseTensor(indices={self._indices}, values={self._values}, "
                f"dense_shape={self._dense_shape})")

    __repr__ = __str__


def _static_shape(dense_shape):
    part = tensor_util.partial_shape_value(dense_shape)
    if part is not None:
        return TensorShape(part)
    return tensor_util.constant_value_as_shape(dense_shape)


def is_sparse(x):
    """True for a SparseTensor or SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor (from a SparseTensorValue) or `convert_to_tensor(value)`.

    Raises:
      RuntimeError: if `dtype` disagrees with a sparse value's dtype.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype mismatch. Requested: {dtype.name},  Actual: "
                               f"{value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
