"""`tf.TensorShape` and `tf.Dimension` with TF1 semantics.

Indexing or iterating a known-rank `TensorShape` gives `Dimension` objects
(`shape[1].value`), an unknown dimension is `Dimension(None)`, arithmetic with
an unknown operand gives an unknown result, and comparisons involving an
unknown dimension return None. A shape stores its dimensions as a tuple of
ints and Nones, so building one and calling `as_list()` stay cheap.

This module imports no protos at import time; `as_proto()` loads
`trainflow._src.protos.tensor_shape_pb2` when first called.
"""

import functools
import operator

__all__ = [
    "Dimension", "TensorShape", "as_dimension", "as_shape", "dimension_value",
    "dimension_at_index", "unknown_shape", "scalar", "vector", "matrix",
]


class Dimension:
    """The size of one dimension of a TensorShape: an int >= 0, or None if unknown.

    Args:
      value: an int >= 0, None, another Dimension, or an object with `__index__`.

    Raises:
      TypeError: if `value` is not integer-like or None.
      ValueError: if `value` is negative.
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, int):
            if value < 0:
                raise ValueError("Dimension %d must be >= 0" % value)
            self._value = value
        elif value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value._value
        else:
            try:
                self._value = int(value.__index__())
            except AttributeError:
                raise TypeError(
                    "Dimension value must be integer or None or have an __index__ method, "
                    "got value '{0!r}' with type '{1!r}'".format(value, type(value))) from None
            if self._value < 0:
                raise ValueError("Dimension %d must be >= 0" % self._value)

    @property
    def value(self):
        """The size as an int, or None if unknown."""
        return self._value

    def __repr__(self):
        return "Dimension(%r)" % (self._value,)

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __bool__(self):
        return bool(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __reduce__(self):
        return Dimension, (self._value,)

    # Equality and ordering: None when either side is unknown.
    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value != other._value

    __hash__ = None  # unhashable, as in TensorFlow (equality can be None)

    def _compare(self, other, op):
        other = as_dimension(other)
        if self._value is None or other._value is None:
            return None
        return op(self._value, other._value)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    def is_compatible_with(self, other):
        """True if `other` (anything `as_dimension` accepts) could be the same size."""
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other):
        """Raises ValueError ("Dimensions 2 and 3 are not compatible") if incompatible."""
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        """Returns the more specific of two compatible dimensions.

        Raises:
          ValueError: if the two are known and differ.
        """
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(other._value if self._value is None else self._value)

    # Arithmetic: unknown if either operand is unknown.
    def _binary(self, other, op, reflected=False, strict=False):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            if strict:
                raise
            return NotImplemented
        if self._value is None or other._value is None:
            return Dimension(None)
        if reflected:
            return Dimension(op(other._value, self._value))
        return Dimension(op(self._value, other._value))

    def __add__(self, other):
        return self._binary(other, operator.add)

    def __radd__(self, other):
        return self._binary(other, operator.add, reflected=True)

    def __sub__(self, other):
        return self._binary(other, operator.sub)

    def __rsub__(self, other):
        return self._binary(other, operator.sub, reflected=True, strict=True)

    def __mul__(self, other):
        return self._binary(other, operator.mul)

    def __rmul__(self, other):
        return self._binary(other, operator.mul, reflected=True)

    def __floordiv__(self, other):
        return self._binary(other, operator.floordiv)

    def __rfloordiv__(self, other):
        return self._binary(other, operator.floordiv, reflected=True, strict=True)

    def __mod__(self, other):
        return self._binary(other, operator.mod, strict=True)

    def __rmod__(self, other):
        return self._binary(other, operator.mod, reflected=True, strict=True)

    def __truediv__(self, other):
        raise TypeError("unsupported operand type(s) for /: 'Dimension' and '{}', "
                        "please use // instead".format(type(other).__name__))

    def __rtruediv__(self, other):
        raise TypeError("unsupported operand type(s) for /: '{}' and 'Dimension', "
                        "please use // instead".format(type(other).__name__))


def as_dimension(value):
    """Returns `value` if it is a Dimension, else `Dimension(value)`."""
    if isinstance(value, Dimension):
        return value
    return Dimension(value)


def _dim_value(d):
    """The int-or-None value of one dimension given in any accepted form."""
    if type(d) is int:
        if d < 0:
            raise ValueError("Dimension %d must be >= 0" % d)
        return d
    if d is None:
        return None
    return as_dimension(d)._value


def _is_shape_proto(obj):
    descriptor = getattr(type(obj), "DESCRIPTOR", None)
    return descriptor is not None and getattr(descriptor, "name", None) == "TensorShapeProto"


class TensorShape:
    """The static shape of a tensor: unknown rank, or a rank with known/unknown sizes.

    Args:
      dims: None (unknown rank); a list/tuple/iterable of ints, Nones or
        Dimensions; a single int (a vector's length); another TensorShape; or a
        TensorShapeProto.

    Raises:
      TypeError: if an entry cannot be converted to a Dimension.
      ValueError: if an entry is negative.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, (tuple, list)):
            # Fast path: plain non-negative ints and Nones need no conversion.
            for d in dims:
                if d is not None and (type(d) is not int or d < 0):
                    self._dims = tuple(map(_dim_value, dims))
                    break
            else:
                self._dims = tuple(dims)
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif _is_shape_proto(dims):
            if dims.unknown_rank:
                self._dims = None
            else:
                self._dims = tuple(_dim_value(None if d.size == -1 else d.size)
                                   for d in dims.dim)
        else:
            try:
                dims_iter = iter(dims)
            except TypeError:
                self._dims = (as_dimension(dims)._value,)
                return
            values = []
            for d in dims_iter:
                try:
                    values.append(as_dimension(d)._value)
                except TypeError as e:
                    raise TypeError(
                        "Failed to convert '{0!r}' to a shape: '{1!r}' could not be converted "
                        "to a dimension. A shape should either be single dimension (e.g. 10), "
                        "or an iterable of dimensions (e.g. [1, 10, None]).".format(dims, d)) from e
            self._dims = tuple(values)

    @classmethod
    def _from_values(cls, values):
        """Builds a shape from a tuple of ints >= 0 / Nones (or None) without checks."""
        shape = cls.__new__(cls)
        shape._dims = values
        return shape

    # ----- basic properties -------------------------------------------------
    @property
    def rank(self):
        """The number of dimensions, or None if unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self):
        """Deprecated alias of `rank`."""
        return self.rank

    @property
    def dims(self):
        """A list of Dimension objects, or None if the rank is unknown."""
        if self._dims is None:
            return None
        return [Dimension(d) for d in self._dims]

    def as_list(self):
        """Returns the dimensions as a list of ints and Nones.

        Raises:
          ValueError: if the rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_proto(self):
        """Returns this shape as a TensorShapeProto (unknown sizes are -1)."""
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.protos import tensor_shape_pb2
        if self._dims is None:
            return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        dim_cls = tensor_shape_pb2.TensorShapeProto.Dim
        return tensor_shape_pb2.TensorShapeProto(
            dim=[dim_cls(size=-1 if d is None else d) for d in self._dims])

    def num_elements(self):
        """The product of all sizes, or None if the shape is not fully defined."""
        if not self.is_fully_defined():
            return None
        return functools.reduce(operator.mul, self._dims, 1)

    def is_fully_defined(self):
        """True if the rank and every size are known."""
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        """Raises ValueError ("Shape (1, ?) is not fully defined") unless fully defined."""
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % self)

    # ----- python protocol ---------------------------------------------------
    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % (self.dims,)

    def __str__(self):
        dims = self._dims
        if dims is None:
            return "<unknown>"
        text = ["?" if d is None else str(d) for d in dims]
        if len(dims) == 1:
            return "(%s,)" % text[0]
        return "(%s)" % ", ".join(text)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter([Dimension(d) for d in self._dims])

    def __getitem__(self, key):
        """A Dimension for an int key, a TensorShape for a slice.

        On an unknown-rank shape an int gives Dimension(None) and a slice gives
        a shape whose rank is known only when both ends are non-negative.

        Raises:
          IndexError: if an int key is out of range for a known rank.
          ValueError: for a slice with a step on an unknown-rank shape.
        """
        dims = self._dims
        if dims is not None:
            if isinstance(key, slice):
                return TensorShape._from_values(dims[key])
            return Dimension(dims[key])
        if isinstance(key, slice):
            start = 0 if key.start is None else key.start
            stop = key.stop
            if key.step is not None:
                raise ValueError("Steps are not yet handled")
            if stop is None or start < 0 or stop < 0:
                return unknown_shape()
            return unknown_shape(rank=stop - start)
        return Dimension(None)

    def __eq__(self, other):
        """True if `other` converts to a shape with the same rank and sizes."""
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)

    def __reduce__(self):
        return TensorShape, (self.dims,)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __concat__(self, other):
        return self.concatenate(other)

    # ----- combining shapes ---------------------------------------------------
    def is_compatible_with(self, other):
        """True if some fully defined shape is represented by both shapes."""
        other = as_shape(other)
        a, b = self._dims, other._dims
        if a is None or b is None:
            return True
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x is not None and y is not None and x != y:
                return False
        return True

    def assert_is_compatible_with(self, other):
        """Raises ValueError ("Shapes (2, 3) and [2, 4] are incompatible") if incompatible."""
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def merge_with(self, other):
        """Returns the shape combining the information in `self` and `other`.

        Raises:
          ValueError: "Shapes (2, 3) and (2, 4) are not compatible" when the
            ranks or any known sizes differ.
        """
        other = as_shape(other)
        a, b = self._dims, other._dims
        if a is None:
            return other
        if b is None:
            return self
        if len(a) != len(b):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        merged = []
        for x, y in zip(a, b):
            if x is None:
                merged.append(y)
            elif y is None or x == y:
                merged.append(x)
            else:
                raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        return TensorShape._from_values(tuple(merged))

    def most_specific_compatible_shape(self, other):
        """The most specific shape compatible with both (sizes that differ become None)."""
        other = as_shape(other)
        a, b = self._dims, other._dims
        if a is None or b is None or len(a) != len(b):
            return unknown_shape()
        return TensorShape._from_values(
            tuple(x if x is not None and x == y else None for x, y in zip(a, b)))

    def concatenate(self, other):
        """The dimensions of `self` followed by those of `other` (unknown if either is)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape._from_values(self._dims + other._dims)

    # ----- rank checks ----------------------------------------------------------
    def assert_same_rank(self, other):
        """Raises ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and \
                len(self._dims) != len(other._dims):
            raise ValueError("Shapes %s and %s must have the same rank" % (self, other))

    def assert_has_rank(self, rank):
        """Raises ValueError ("Shape (1,) must have rank 2") if the rank is known and differs."""
        if self.rank not in (None, rank):
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def with_rank(self, rank):
        """Returns this shape with rank `rank` (an unknown rank becomes known).

        Raises:
          ValueError: if the rank is known and differs.
        """
        if self._dims is None:
            return unknown_shape(rank=rank)
        if len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))
        return self

    def with_rank_at_least(self, rank):
        """Returns self; raises ValueError if the rank is known and less than `rank`."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def with_rank_at_most(self, rank):
        """Returns self; raises ValueError if the rank is known and greater than `rank`."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError("Shape %s must have rank at most %d" % (self, rank))
        return self

    def is_subtype_of(self, other):
        """True if `other` can represent this shape (its sizes are equal or None)."""
        if not isinstance(other, TensorShape):
            return False
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(o is None or s == o for s, o in zip(self._dims, other._dims))

    def most_specific_common_supertype(self, others):
        """The most specific shape that every one of `self` and `others` is a subtype of.

        Returns None if any of `others` is not a TensorShape.
        """
        if any(not isinstance(o, TensorShape) for o in others):
            return None
        if self._dims is None or any(o._dims is None or len(o._dims) != len(self._dims)
                                     for o in others):
            return unknown_shape()
        return TensorShape._from_values(tuple(
            d if all(d == o._dims[i] for o in others) else None
            for i, d in enumerate(self._dims)))


def as_shape(shape):
    """Returns `shape` if it is a TensorShape, else `TensorShape(shape)`."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank=None, **kwargs):
    """A shape of unknown sizes: unknown rank, or `rank` unknown dimensions.

    Args:
      rank: the number of dimensions, or None for an unknown rank.
      **kwargs: `ndims`, the old name of `rank`.

    Raises:
      TypeError: for any other keyword argument.
    """
    if rank is None and "ndims" in kwargs:
        rank = kwargs.pop("ndims")
    if kwargs:
        raise TypeError("Unknown argument: %s" % kwargs)
    if rank is None:
        return TensorShape._from_values(None)
    return TensorShape._from_values((None,) * rank)


def scalar():
    """The shape of a scalar, `TensorShape([])`."""
    return TensorShape._from_values(())


def vector(length):
    """The shape of a vector of `length` elements (None for unknown)."""
    return TensorShape([length])


def matrix(rows, cols):
    """The shape of a `rows` x `cols` matrix (either may be None)."""
    return TensorShape([rows, cols])


def dimension_value(dimension):
    """The plain int-or-None value of a Dimension, int or None."""
    if isinstance(dimension, Dimension):
        return dimension._value
    return dimension


def dimension_at_index(shape, index):
    """The Dimension at `index` of `shape`; Dimension(None) if the rank is unknown."""
    if not isinstance(shape, TensorShape):
        raise TypeError("dimension_at_index expects a TensorShape, got %r" % (shape,))
    if shape._dims is None:
        return Dimension(None)
    return Dimension(shape._dims[index])
