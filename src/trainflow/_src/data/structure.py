"""The structure of a dataset's elements, as tf.data nests them.

tf.data's nesting differs from tf.nest's: tuples (namedtuples included) and dicts are
structure, a list is a value (converted to one tensor). Each leaf is a component with a
dtype, a static shape and a class (Tensor, or SparseTensor). The components of an
element travel flat, in `flatten` order (dict keys sorted).
"""
from trainflow._src.framework import dtypes as dtypes_lib
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape

class DatasetSpec:
    """The spec of a component that is itself a dataset (an element of `window`): what
    output_types, output_shapes and output_classes show for it, as TF's DatasetSpec."""

    dataset_class = None  # DatasetV1, set by dataset_ops (it makes the datasets)

    def __init__(self, element_structure):
        self.structure = element_structure

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and \
            self.structure.components == other.structure.components

    def __hash__(self):
        return hash(len(self.structure.components))

    def __repr__(self):
        def spec(c):
            shape = tuple(c.shape.as_list()) if c.shape.rank is not None else None
            kind = "SparseTensorSpec" if c.cls is SparseTensor else "TensorSpec"
            return f"{kind}(shape={shape}, dtype=tf.{c.dtype.name}, name=None)"
        inner = map_leaves(lambda c: _Raw(spec(c)), self.structure.template)
        return f"DatasetSpec({inner!r}, TensorShape([]))"


class _Raw(str):
    def __repr__(self):
        return str(self)


class Component:
    """One leaf of an element: its dtype, static shape and class (Tensor, SparseTensor, or
    a DatasetSpec for a nested dataset)."""

    __slots__ = ("dtype", "shape", "cls")

    def __init__(self, dtype, shape, cls):
        self.dtype, self.shape, self.cls = dtype, shape, cls

    def __eq__(self, other):
        return isinstance(other, Component) and (self.dtype, self.cls) == \
            (other.dtype, other.cls) and self.shape.as_proto() == other.shape.as_proto()

    def __hash__(self):
        return hash((self.dtype, self.cls))

    def __repr__(self):
        cls = getattr(self.cls, "__name__", self.cls)
        return f"Component({self.dtype.name}, {self.shape}, {cls})"

    def travels_as_variant(self):
        return self.cls is SparseTensor or isinstance(self.cls, DatasetSpec)

    def same_class(self, other):
        return self.cls is other.cls or (isinstance(self.cls, DatasetSpec) and
                                         self.cls == other.cls)


def is_nested(value):
    return isinstance(value, (tuple, dict)) and not isinstance(value, SparseTensorValue)


def flatten(structure):
    """The leaves of `structure`, in tf.data's order."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if is_nested(structure):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def _rebuild(template, items):
    if isinstance(template, dict):
        return type(template)((key, items[n]) for n, key in enumerate(sorted(template)))
    if hasattr(template, "_fields"):
        return type(template)(*items)
    return type(template)(items)


def pack(template, flat):
    """`flat` leaves arranged as `template` is."""
    flat = list(flat)

    def build(node):
        if isinstance(node, dict):
            return _rebuild(node, [build(node[k]) for k in sorted(node)])
        if is_nested(node):
            return _rebuild(node, [build(item) for item in node])
        return flat.pop(0)

    out = build(template)
    if flat:
        raise ValueError(f"{len(flat)} values left over packing into {template}")
    return out


def map_leaves(fn, structure):
    """`structure` with each leaf replaced by `fn(leaf)`."""
    return pack(structure, [fn(leaf) for leaf in flatten(structure)])


def _component_of(dtype, shape, cls):
    """The Component of one leaf of output_types/shapes/classes (a nested dataset shows
    its DatasetSpec in all three)."""
    spec = next((x for x in (cls, dtype) if isinstance(x, DatasetSpec)), None)
    if spec is not None:
        return Component(dtypes_lib.variant, TensorShape([]), spec)
    return Component(dtypes_lib.as_dtype(dtype),
                     as_shape(shape) if shape is not None else TensorShape(None), cls)


class Structure:
    """A nest of Components: an element's dtypes, shapes and classes."""

    def __init__(self, template):
        self.template = template
        self.components = flatten(template)

    @classmethod
    def of(cls, types, shapes=None, classes=None):
        """From nests of dtypes and (optionally) shapes and classes."""
        flat_types = flatten(types)
        flat_shapes = flatten(shapes) if shapes is not None else [None] * len(flat_types)
        flat_classes = flatten(classes) if classes is not None else [Tensor] * len(flat_types)
        if not len(flat_types) == len(flat_shapes) == len(flat_classes):
            raise ValueError("The structures of output_types, output_shapes and "
                             "output_classes differ")
        comps = [_component_of(t, s, c)
                 for t, s, c in zip(flat_types, flat_shapes, flat_classes)]
        return cls(pack(types, comps))

    @property
    def flat_types(self):
        """Each component's dtype as its tensors travel (variant for a SparseTensor)."""
        return [dtypes_lib.variant if c.travels_as_variant() else c.dtype
                for c in self.components]

    @property
    def flat_shapes(self):
        """Each component's static shape as it travels (a SparseTensor: unknown, a
        dataset: scalar)."""
        return [TensorShape(None) if c.cls is SparseTensor else
                TensorShape([]) if isinstance(c.cls, DatasetSpec) else c.shape
                for c in self.components]

    def types(self):
        return map_leaves(lambda c: c.cls if isinstance(c.cls, DatasetSpec) else c.dtype,
                          self.template)

    def shapes(self):
        return map_leaves(lambda c: c.cls if isinstance(c.cls, DatasetSpec) else c.shape,
                          self.template)

    def classes(self):
        return map_leaves(lambda c: c.cls, self.template)

    def batched(self, size):
        """The structure of a batch of `size` (None: unknown) such elements."""
        return Structure(map_leaves(
            lambda c: Component(c.dtype, TensorShape([size]).concatenate(c.shape), c.cls),
            self.template))

    def unbatched(self):
        return Structure(map_leaves(
            lambda c: Component(c.dtype, c.shape[1:] if c.shape.rank else TensorShape(None),
                                c.cls), self.template))

    def with_shapes(self, shapes):
        return Structure(pack(self.template, [
            Component(c.dtype, s, c.cls) for c, s in zip(self.components, shapes)]))

    def is_compatible_with(self, other):
        return self.same_nesting(other) and all(
            a.dtype == b.dtype and a.same_class(b)
            for a, b in zip(self.components, other.components))

    def same_nesting(self, other):
        try:
            pack(self.template, other.components)
        except (ValueError, IndexError, TypeError):
            return False
        return len(self.components) == len(other.components)

    def most_specific_compatible(self, other):
        """Shapes relaxed to what both structures allow (for concatenate, choose ...)."""
        return Structure(pack(self.template, [
            Component(a.dtype, a.shape.most_specific_compatible_shape(b.shape), a.cls)
            for a, b in zip(self.components, other.components)]))

    def __repr__(self):
        return f"Structure({self.template!r})"


def _leaf_to_tensor(value, convert):
    if isinstance(value, (Tensor, SparseTensor)):
        return value
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if hasattr(value, "_variant_tensor"):  # a Dataset returned by flat_map's function
        return value._variant_tensor
    return convert(value)


def normalize(element, convert):
    """(`element` with every leaf a Tensor, SparseTensor or dataset variant, its
    Structure). `convert(value)` turns a Python or NumPy value into a Tensor."""
    tensors = map_leaves(lambda v: _leaf_to_tensor(v, convert), element) \
        if is_nested(element) else _leaf_to_tensor(element, convert)
    leaves = flatten(element) if is_nested(element) else [element]
    comps = [Component(t.dtype.base_dtype, TensorShape([]), DatasetSpec(leaf._structure))
             if hasattr(leaf, "_variant_tensor") else
             Component(t.dtype.base_dtype, TensorShape(t.shape),
                       SparseTensor if isinstance(t, SparseTensor) else Tensor)
             for leaf, t in zip(leaves, flatten(tensors))]
    return tensors, Structure(pack(tensors, comps))


class HasElementStructure:
    """The `output_types` / `output_shapes` / `output_classes` / `element_spec` of a
    Dataset or Iterator, read from its `_structure`."""

    @property
    def output_types(self):
        """The nest of element dtypes."""
        return self._structure.types()

    @property
    def output_shapes(self):
        """The nest of element static shapes."""
        return self._structure.shapes()

    @property
    def output_classes(self):
        """The nest of element classes (Tensor, SparseTensor or DatasetSpec)."""
        return self._structure.classes()

    @property
    def element_spec(self):
        return self._structure.template
