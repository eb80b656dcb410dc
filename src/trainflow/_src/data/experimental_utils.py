"""tf.data.experimental's small utilities: assert_cardinality, pad_to_cardinality,
from_list (ListDataset), from_variant / to_variant, get_structure, SHARD_HINT and
enable_debug_mode."""
from collections.abc import Mapping

from trainflow._src.data import element_codec
from trainflow._src.data import structure as st
from trainflow._src.data.reordering_experimental import cardinality as _cardinality
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.create import zeros
from trainflow._src.ops.dataset import experimental_ops, source_ops  # noqa: F401

# `shard(SHARD_HINT, SHARD_HINT)` marks where auto-sharding (AutoShardPolicy.HINT) shards.
SHARD_HINT = -1


def assert_cardinality(expected_cardinality):
    """A transformation: the same elements, with FailedPreconditionError when the input
    has more or fewer than `expected_cardinality` (its cardinality from then on)."""

    def _apply_fn(dataset):
        expected = convert_to_tensor(expected_cardinality, dtype=dtypes.int64,
                                     name="expected_cardinality")
        return dataset._apply("AssertCardinalityDataset", dataset._structure,
                              {"input_dataset": dataset._variant_tensor,
                               "cardinality": expected})

    return _apply_fn


def pad_to_cardinality(cardinality, mask_key="valid"):
    """A transformation of a dataset of dicts: its elements with `mask_key` True, then
    elements of zeros with `mask_key` False up to `cardinality` elements in all."""

    def _apply_fn(dataset):
        if not isinstance(dataset.element_spec, Mapping):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a "
                             "dictionary.")
        padding = cardinality - _cardinality(dataset)
        filler = {key: zeros(spec.shape, spec.dtype)
                  for key, spec in dataset.element_spec.items()}
        filler[mask_key] = False
        filler = type(dataset).from_tensors(filler).repeat(padding)

        def _valid(element):
            element = dict(element)
            element[mask_key] = True
            return element

        return dataset.map(_valid).concatenate(filler)

    return _apply_fn


def _common_component(a, b, index):
    if a.dtype != b.dtype or not a.same_class(b):
        raise TypeError(f"Invalid `elements`. Component {index} of the elements has "
                        f"different types: {a.dtype.name} and {b.dtype.name}.")
    if isinstance(a.cls, st.DatasetSpec):
        return a
    return st.Component(a.dtype, a.shape.most_specific_compatible_shape(b.shape), a.cls)


def from_list(elements, name=None):
    """A dataset of the elements of the list `elements`, one after another (they may
    differ in shape, unlike the slices of from_tensor_slices)."""
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty. If you want "
                         "an empty dataset, use `tf.data.Dataset.range(0)`.")
    if not isinstance(elements, list):
        raise ValueError("Invalid `elements`. `elements` must be a list.")
    normalized = [st.normalize(e, convert_to_tensor) for e in elements]
    first = normalized[0][1]
    for _, structure in normalized[1:]:
        if not first.same_nesting(structure):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{first.template} and {structure.template}.")
    comps = list(first.components)
    for _, structure in normalized[1:]:
        comps = [_common_component(a, b, i)
                 for i, (a, b) in enumerate(zip(comps, structure.components))]
    structure = st.Structure(st.pack(first.template, comps))
    tensors = [t for element, _ in normalized for t in element_codec.encode(element, False)]
    op = apply_op("ListDataset", tensors=tensors, output_types=structure.flat_types,
                  output_shapes=structure.flat_shapes, name=name)
    return st.DatasetSpec.dataset_class(op.outputs[0], structure)


def _component_of_spec(spec):
    if isinstance(spec, st.Component):
        return spec
    if not (hasattr(spec, "dtype") and hasattr(spec, "shape")):
        raise TypeError(f"`structure` must be a nest of the element specs of a dataset "
                        f"(as tf.data.experimental.get_structure gives), got {spec!r}.")
    cls = SparseTensor if type(spec).__name__ == "SparseTensorSpec" else Tensor
    return st.Component(dtypes.as_dtype(spec.dtype), TensorShape(spec.shape), cls)


def from_variant(variant, structure):
    """The dataset behind the scalar variant tensor `variant`, whose elements have the
    nest of element specs `structure`."""
    return st.DatasetSpec.dataset_class(
        variant, st.Structure(st.map_leaves(_component_of_spec, structure)))


def to_variant(dataset):
    """The scalar variant tensor of `dataset`."""
    return dataset._variant_tensor


def get_structure(dataset_or_iterator):
    """The nest of element specs of a Dataset or Iterator (its `element_spec`)."""
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError(f"Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
                        f"`tf.data.Dataset` or tf.data.Iterator object, but got "
                        f"{type(dataset_or_iterator)}.") from None


def enable_debug_mode():
    """TF's tf.data debug mode runs user functions eagerly; in graph mode (the only mode
    here, as in a TF1 program) TF refuses it.

    Raises:
      ValueError: always (it is only supported in eager mode).
    """
    raise ValueError("`enable_debug_mode() is only supported in eager mode.")
