"""`tf.data.DatasetSpec`, the TypeSpec of a dataset value, and TF 1.15's older
`tf.data.experimental.*Structure` names for the type specs."""
from trainflow._src.data import structure as st
from trainflow._src.data.experimental_utils import from_variant, to_variant
from trainflow._src.framework import dtypes
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_shape import as_shape
from trainflow._src.framework.type_spec import (SparseTensorSpec, TensorSpec,
                                                TypeSpec)


class DatasetSpec(TypeSpec):
    """The type of a dataset: the spec of its elements and the shape of the dataset value
    (a scalar, or a batch of datasets)."""

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def value_type(self):
        from trainflow._src.data.dataset_ops import DatasetV1  # lazy: dataset_ops is above
        return DatasetV1

    def _serialize(self):
        return (self._element_spec, self._dataset_shape)

    @property
    def _component_specs(self):
        return TensorSpec(self._dataset_shape, dtypes.variant)

    def _to_components(self, value):
        return to_variant(value)

    def _from_components(self, components):
        return from_variant(components, self._element_spec)

    @staticmethod
    def from_value(value):
        """The spec of dataset `value`."""
        return DatasetSpec(st.map_leaves(_type_spec, value.element_spec))


def _type_spec(component):
    if isinstance(component, TypeSpec):
        return component
    if isinstance(component.cls, st.DatasetSpec):
        return DatasetSpec(st.map_leaves(_type_spec, component.cls.structure.template))
    if component.cls is SparseTensor:
        return SparseTensorSpec(component.shape, component.dtype)
    return TensorSpec(component.shape, component.dtype)


# TF 1.15's names, kept in tf.data.experimental for old programs.
Structure = TypeSpec
DatasetStructure = DatasetSpec


def TensorStructure(dtype, shape):  # noqa: N802 - TF's name
    """`TensorSpec(shape, dtype)` under TF 1.15's name."""
    return TensorSpec(shape, dtype)


def SparseTensorStructure(dtype, shape):  # noqa: N802 - TF's name
    """`SparseTensorSpec(shape, dtype)` under TF 1.15's name."""
    return SparseTensorSpec(shape, dtype)


def RaggedTensorStructure(dtype, shape, ragged_rank):  # noqa: N802 - TF's name
    """`RaggedTensorSpec(shape, dtype, ragged_rank)` under TF 1.15's name."""
    from trainflow._src.ops.ragged.ragged_ops import RaggedTensorSpec  # lazy: ragged family
    return RaggedTensorSpec(shape, dtype, ragged_rank)


def TensorArrayStructure(dtype, element_shape, dynamic_size, infer_shape):  # noqa: N802
    """`TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)` under TF 1.15's
    name."""
    from trainflow._src.ops.data_flow.tensor_array import TensorArraySpec  # lazy: TensorArray
    return TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)
