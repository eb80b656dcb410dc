"""Type specs: `tf.TypeSpec` (the base: a value's type, apart from its contents),
`tf.TensorSpec`, `tf.SparseTensorSpec`, `tf.IndexedSlicesSpec`, `tf.NoneTensorSpec`,
`tf.type_spec_from_value` and `tf.is_symbolic_tensor`. Specs of values defined above
this floor (RaggedTensor, TensorArray, Optional) live beside those values; such a value
gives its spec through a `_type_spec` property."""
import abc

from trainflow._src.framework import dtypes
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.framework.tensor_util import constant_value_as_shape


def shape_repr(shape):
    """TensorFlow 2's repr of a TensorShape: `TensorShape([2, None])`."""
    return "TensorShape(None)" if shape.rank is None else f"TensorShape({shape.as_list()})"


def _field_repr(value):
    if isinstance(value, TensorShape):
        return shape_repr(value)
    return repr(value)


def _compatible(a, b):
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        return a.is_compatible_with(b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_compatible_with(b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))
    return a == b


def _merge(a, b):
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        if a.rank != b.rank and a.rank is not None and b.rank is not None:
            return TensorShape(None)
        return a.most_specific_compatible_shape(b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.most_specific_compatible_type(b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        return type(a)(_merge(x, y) for x, y in zip(a, b))
    if a != b:
        raise ValueError
    return a


class TypeSpec(abc.ABC):
    """The type of a (possibly composite) value: what two values must share to be used
    interchangeably, without their contents. Subclasses define `value_type`,
    `_serialize` (the fields that identify the type) and the component methods."""

    __slots__ = ()

    @property
    @abc.abstractmethod
    def value_type(self):
        """The Python type of the values this spec describes."""

    @abc.abstractmethod
    def _serialize(self):
        """The tuple of fields that identify this spec (its constructor's arguments)."""

    @property
    @abc.abstractmethod
    def _component_specs(self):
        """The specs of the tensors a value is made of."""

    @abc.abstractmethod
    def _to_components(self, value):
        """The component tensors of `value`."""

    @abc.abstractmethod
    def _from_components(self, components):
        """The value made of `components`."""

    def is_compatible_with(self, spec_or_value):
        """True if `spec_or_value` (a spec or a value) is of a compatible type: same kind,
        same dtypes, compatible shapes."""
        if not isinstance(spec_or_value, TypeSpec):
            spec_or_value = _spec_of(spec_or_value)
            if spec_or_value is None:
                return False
        return type(self) is type(spec_or_value) and \
            _compatible(self._serialize(), spec_or_value._serialize())

    def most_specific_compatible_type(self, other):
        """The most specific spec both `self` and `other` satisfy (shapes relaxed).

        Raises:
          ValueError: if there is none.
        """
        try:
            if type(self) is not type(other):
                raise ValueError
            return type(self)(*_merge(self._serialize(), other._serialize()))
        except ValueError:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}") \
                from None

    def most_specific_common_supertype(self, others):
        """The most specific spec all of `self` and `others` satisfy, or None."""
        result = self
        try:
            for other in others:
                result = result.most_specific_compatible_type(other)
        except ValueError:
            return None
        return result

    def __eq__(self, other):
        return type(self) is type(other) and self._serialize() == other._serialize()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, _hashable(self._serialize())))

    def __repr__(self):
        fields = self._serialize()
        inner = ", ".join(_field_repr(f) for f in fields)
        return f"{type(self).__name__}({inner}{',' if len(fields) == 1 else ''})"

    def __reduce__(self):
        return type(self), self._serialize()


def _hashable(value):
    if isinstance(value, TensorShape):
        return None if value.rank is None else tuple(value.as_list())
    if isinstance(value, (tuple, list)):
        return tuple(_hashable(v) for v in value)
    return value


class TensorSpec(TypeSpec):
    """The type of a Tensor: its shape, dtype and an optional name."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_spec(cls, spec, name=None):
        """A TensorSpec with the shape and dtype of `spec` (and its name unless given)."""
        return cls(spec.shape, spec.dtype, name or getattr(spec, "name", None))

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of `tensor` (named after its op unless `name` is given).

        Raises:
          ValueError: for a value that is not a Tensor.
        """
        if isinstance(tensor, Tensor):
            return cls(tensor.shape, tensor.dtype, name or tensor.op.name)
        raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")

    shape = property(lambda self: self._shape, doc="The TensorShape.")
    dtype = property(lambda self: self._dtype, doc="The DType.")
    name = property(lambda self: self._name, doc="The name, or None.")
    value_type = property(lambda self: Tensor, doc="Tensor.")

    def _serialize(self):
        return (self._shape, self._dtype, self._name)

    @property
    def _component_specs(self):
        return self

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    def is_compatible_with(self, spec_or_tensor):
        """True for a TensorSpec or Tensor of this dtype and a compatible shape (names are
        not compared)."""
        return isinstance(spec_or_tensor, (TensorSpec, Tensor)) and \
            self._dtype.is_compatible_with(spec_or_tensor.dtype) and \
            self._shape.is_compatible_with(spec_or_tensor.shape)

    def __repr__(self):
        shape = "<unknown>" if self._shape.rank is None else \
            repr(tuple(self._shape.as_list()))
        return f"TensorSpec(shape={shape}, dtype={self._dtype!r}, name={self._name!r})"


class SparseTensorSpec(TypeSpec):
    """The type of a SparseTensor: its dense shape and dtype."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        """The spec of a SparseTensor (or SparseTensorValue)."""
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        return cls(TensorShape(list(value.dense_shape)), dtypes.as_dtype(value.values.dtype))

    shape = property(lambda self: self._shape, doc="The dense TensorShape.")
    dtype = property(lambda self: self._dtype, doc="The DType of the values.")
    value_type = property(lambda self: SparseTensor, doc="SparseTensor.")

    def _serialize(self):
        return (self._shape, self._dtype)

    @property
    def _component_specs(self):
        rank = self._shape.rank
        return [TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], dtypes.int64)]

    def _to_components(self, value):
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components):
        return SparseTensor(*components)


class IndexedSlicesSpec(TypeSpec):
    """The type of IndexedSlices: dense shape, dtype, index and dense-shape dtypes, and
    the shape of the indices."""

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype",
                 "_indices_shape")

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else \
            dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = as_shape(indices_shape if indices_shape is not None
                                       else [None]).with_rank(1)

    shape = property(lambda self: self._shape, doc="The dense TensorShape.")
    dtype = property(lambda self: self._values_dtype, doc="The DType of the values.")
    value_type = property(lambda self: IndexedSlices, doc="IndexedSlices.")

    def _serialize(self):
        return (self._shape, self._values_dtype, self._indices_dtype,
                self._dense_shape_dtype, self._indices_shape)

    @property
    def _component_specs(self):
        values = TensorSpec(self._indices_shape.concatenate(self._shape[1:])
                            if self._shape.rank is not None else TensorShape(None),
                            self._values_dtype)
        specs = [values, TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
        return specs

    def _to_components(self, value):
        parts = [value.values, value.indices]
        return parts + [value.dense_shape] if self._dense_shape_dtype is not None else parts

    def _from_components(self, components):
        return IndexedSlices(*components)


class NoneTensor:
    """The value a NoneTensorSpec describes: no tensor at all."""

    @property
    def _type_spec(self):
        return NoneTensorSpec()


class NoneTensorSpec(TypeSpec):
    """The type of an absent value (None inside a composite value)."""

    __slots__ = ()
    value_type = property(lambda self: NoneTensor, doc="NoneTensor.")

    def _serialize(self):
        return ()

    @property
    def _component_specs(self):
        return []

    def _to_components(self, value):
        return []

    def _from_components(self, components):
        return NoneTensor()

    def __repr__(self):
        return "NoneTensorSpec()"


def type_spec_from_value(value):
    """The TypeSpec of `value`: a Tensor, SparseTensor, IndexedSlices, a value with a
    `_type_spec` (RaggedTensor, TensorArray ...), or anything `convert_to_tensor` takes
    (made a constant in the default graph, as TensorFlow does).

    Raises:
      TypeError: for a value none of these fit.
    """
    spec = _spec_of(value)
    if spec is not None:
        return spec
    try:
        return _spec_of(convert_to_tensor(value))
    except (ValueError, TypeError):
        pass
    raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type "
                    f"{type(value)}.")


def _spec_of(value):
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, SparseTensor):
        return SparseTensorSpec.from_value(value)
    if isinstance(value, IndexedSlices):
        dense = value.dense_shape
        return IndexedSlicesSpec(TensorShape(None) if dense is None else
                                 _static_dense_shape(value), value.dtype,
                                 value.indices.dtype,
                                 None if dense is None else dense.dtype, value.indices.shape)
    spec = getattr(value, "_type_spec", None)
    return spec if isinstance(spec, TypeSpec) else None


def _static_dense_shape(value):
    return constant_value_as_shape(value.dense_shape).merge_with(
        TensorShape([None]).concatenate(value.values.shape[1:]))


def is_symbolic_tensor(tensor):
    """True for a graph Tensor (every Tensor in graph mode); False for anything else."""
    return isinstance(tensor, Tensor)
