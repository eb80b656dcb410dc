"""`tf.data.experimental.Optional` and `get_next_as_optional` (TF 1.15's graph mode, with
TF 2's `empty` / `element_spec` names beside `none_from_structure` / `value_structure`)."""
from trainflow._src.data import structure as st
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import colocate_with, name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.type_spec import TensorSpec, TypeSpec
from trainflow._src.ops.dataset import optional_ops  # noqa: F401 - registers the ops


def _structure_of(spec):
    """A Structure from a Structure, or from an element_spec nest of Components."""
    return spec if isinstance(spec, st.Structure) else st.Structure(spec)


class Optional:
    """A nest of tensors that may be missing: `has_value()` says whether it is there,
    `get_value()` gives it (InvalidArgumentError when run on an empty optional)."""

    def __init__(self, variant_tensor, structure):
        self._variant_tensor = variant_tensor
        self._structure = structure

    @staticmethod
    def from_value(value):
        """An Optional holding `value` (a nest of tensors or values)."""
        with name_scope("optional") as scope:
            with name_scope("value"):
                tensors, structure = st.normalize(value, convert_to_tensor)
            flat = st.flatten(tensors)
            if any(isinstance(t, SparseTensor) for t in flat):
                raise TypeError("Optional.from_value: SparseTensor components are not "
                                "supported yet")
            op = apply_op("OptionalFromValue", components=flat, name=scope)
        return Optional(op.outputs[0], structure)

    @staticmethod
    def none_from_structure(value_structure):
        """An empty Optional for values of `value_structure` (a Structure or an
        element_spec)."""
        return Optional(apply_op("OptionalNone").outputs[0], _structure_of(value_structure))

    empty = none_from_structure

    def has_value(self, name=None):
        """A scalar bool tensor: whether the optional holds a value."""
        with colocate_with(self._variant_tensor.op):
            return apply_op("OptionalHasValue", optional=self._variant_tensor,
                            name=name).outputs[0]

    def get_value(self, name=None):
        """The value, a nest of tensors of `value_structure`."""
        with colocate_with(self._variant_tensor.op):
            op = apply_op("OptionalGetValue", optional=self._variant_tensor,
                          output_types=self._structure.flat_types,
                          output_shapes=self._structure.flat_shapes,
                          name=name or "OptionalGetValue")
        return st.pack(self._structure.template, op.outputs)

    @property
    def value_structure(self):
        """The Structure of the value."""
        return self._structure

    @property
    def element_spec(self):
        return self._structure.template

    @property
    def _type_spec(self):
        return OptionalSpec(self.element_spec)


class OptionalSpec(TypeSpec):
    """The type of an Optional: the spec of the value it may hold."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @staticmethod
    def from_value(value):
        """The spec of an Optional."""
        return OptionalSpec(value.element_spec)

    element_spec = property(lambda self: self._element_spec, doc="The value's spec.")
    value_type = property(lambda self: Optional, doc="Optional.")

    def _serialize(self):
        return (self._element_spec,)

    @property
    def _component_specs(self):
        return [TensorSpec([], dtypes.variant)]

    def _to_components(self, value):
        return [value._variant_tensor]

    def _from_components(self, components):
        return Optional(components[0], _structure_of(self._element_spec))


def get_next_as_optional(iterator):
    """The next element of `iterator` as an Optional, empty at the end of the data."""
    structure = iterator._structure
    with colocate_with(iterator._iterator_resource.op):
        op = apply_op("IteratorGetNextAsOptional", iterator=iterator._iterator_resource,
                      output_types=structure.flat_types,
                      output_shapes=structure.flat_shapes)
    return Optional(op.outputs[0], structure)
