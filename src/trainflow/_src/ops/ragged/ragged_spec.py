"""`tf.RaggedTensorSpec`: the type of a RaggedTensor (shape, dtype, ragged rank, row
splits dtype)."""
__all__ = ["RaggedTensorSpec"]

from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.framework.type_spec import TensorSpec, TypeSpec
from trainflow._src.ops.ragged.ragged_tensor import RaggedTensor
from trainflow._src.ops.ragged.ragged_value import RaggedTensorValue


class RaggedTensorSpec(TypeSpec):
    """The type of a RaggedTensor.

    Raises:
      ValueError: if neither `ragged_rank` nor the rank of `shape` is known, or
        `ragged_rank` is not below the rank.
      TypeError: for a `ragged_rank` that is not an int.
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=dtypes.int64, flat_values_spec=None):
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if flat_values_spec is not None:
            if dtype is None:
                dtype = flat_values_spec.dtype
            elif dtypes.as_dtype(dtype) != flat_values_spec.dtype:
                raise ValueError("dtype must be the same as flat_values_spec.dtype")
        elif dtype is None:
            raise ValueError("At least one of dtype or flat_values_spec must be provided")
        self._dtype = dtypes.as_dtype(dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        self._ragged_rank = ragged_rank

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor or RaggedTensorValue."""
        if isinstance(value, RaggedTensorValue):
            flat = value.flat_values
            shape = TensorShape([len(value.row_splits) - 1] + [None] * value.ragged_rank +
                                list(flat.shape[1:]))
            return cls(shape, dtypes.as_dtype(flat.dtype), value.ragged_rank,
                       dtypes.as_dtype(value.row_splits.dtype))
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits.dtype)

    shape = property(lambda self: self._shape, doc="The TensorShape (None for ragged dims).")
    dtype = property(lambda self: self._dtype, doc="The DType of the values.")
    ragged_rank = property(lambda self: self._ragged_rank, doc="The number of ragged dims.")
    row_splits_dtype = property(lambda self: self._row_splits_dtype,
                                doc="The DType of the row splits.")
    flat_values_spec = property(lambda self: self._flat_values_spec,
                                doc="The TypeSpec of the flat values, or None.")
    value_type = property(lambda self: RaggedTensor if self._ragged_rank > 0 else None,
                          doc="RaggedTensor.")

    def _serialize(self):
        fields = (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return fields if self._flat_values_spec is None else \
            fields + (self._flat_values_spec,)

    @property
    def _component_specs(self):
        inner = self._shape[self._ragged_rank + 1:] if self._shape.rank is not None \
            else TensorShape(None)
        flat = self._flat_values_spec or TensorSpec(TensorShape([None]).concatenate(inner),
                                                    self._dtype)
        return [flat] + [TensorSpec([None], self._row_splits_dtype)] * self._ragged_rank

    def _to_components(self, value):
        return [value.flat_values] + list(value.nested_row_splits)

    def _from_components(self, components):
        return RaggedTensor.from_nested_row_splits(components[0], components[1:],
                                                   validate=False)


RaggedTensor._type_spec = property(RaggedTensorSpec.from_value)
