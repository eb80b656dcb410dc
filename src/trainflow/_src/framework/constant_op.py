"""Const, Placeholder and PlaceholderWithDefault: ops and graph-building functions."""
__all__ = ["constant", "placeholder", "placeholder_with_default"]

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.numpy_conversion import fit_to_shape, to_numpy
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_conversion import register_tensor_conversion_function
from trainflow._src.framework.tensor_shape import Dimension, TensorShape, as_shape

_TF_TYPE_STRINGS = {"float32": "float", "float64": "double", "float16": "half"}

# dtypes whose TensorProto holds them only as tensor_content (TF's make_tensor_proto has no
# single-value writer for them): a scalar, a broadcast value or an empty one is a TypeError.
_NO_VALUE_FIELD_TYPES = frozenset([dtypes.float8_e4m3fnuz, dtypes.float8_e4m3b11fnuz,
                                   dtypes.float8_e5m2fnuz])


def dtype_string(dtype):
    """TF's C++ name of a dtype ("float" for float32), as its runtime errors print it."""
    return _TF_TYPE_STRINGS.get(dtype.base_dtype.name, dtype.base_dtype.name)


def _const_kernel(*, value):
    return value


register_op("Const", outputs=["output: dtype"], attrs=["value: tensor", "dtype: type"],
            shape_fn=lambda op: [TensorShape._from_values(op._attrs["value"].shape)],
            kernel=_const_kernel)


def _placeholder_kernel(*, ctx, dtype, shape):
    shape_str = "unknown" if shape.rank is None else \
        "[" + ",".join("?" if d is None else str(d) for d in shape._dims) + "]"
    raise errors.InvalidArgumentError(
        None, None, f"You must feed a value for placeholder tensor '{ctx.op.name}' with dtype "
                    f"{dtype_string(dtype)}" + ("" if not shape.rank else
                                                f" and shape {shape_str}"))


register_op("Placeholder", outputs=["output: dtype"],
            attrs=["dtype: type", "shape: shape = unknown_shape"],
            shape_fn=lambda op: [op._attrs["shape"]], kernel=_placeholder_kernel)


def _placeholder_with_default_kernel(x):
    return x


def _pwd_shape(op):
    shape = op._attrs["shape"]
    op._inputs[0]._shape.assert_is_compatible_with(shape) if shape.rank is not None else None
    return [shape]


register_op("PlaceholderWithDefault", inputs=["input: dtype"], outputs=["output: dtype"],
            attrs=["dtype: type", "shape: shape"], shape_fn=_pwd_shape,
            kernel=_placeholder_with_default_kernel, output_aliases_input=True)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """Creates a constant tensor (TF1 `tf.constant`).

    Args:
      value: a Python or NumPy value (a scalar or list is padded to `shape` by
        repeating its last element).
      dtype: the element type; inferred from `value` when None.
      shape: optional shape.
      name: the op name.
      verify_shape: require `value` to have exactly `shape`.

    Raises:
      TypeError: if `value` can't be represented in `dtype`.
      ValueError: if `value` has more elements than `shape`.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    arr = to_numpy(value, dtype)
    given = None
    if shape is not None:
        given = arr
        arr = fit_to_shape(arr, as_shape(shape).as_list(), verify_shape)
    if dtype is None:
        dtype = dtypes.as_dtype(arr.dtype)
    source = arr if given is None else given
    if dtype in _NO_VALUE_FIELD_TYPES and not (source.size == arr.size > 1):
        # A value TF would write into a typed *_val field, which these dtypes lack.
        raise TypeError(f"Element type not supported in TensorProto: {dtype.name}.")
    arr.flags.writeable = False
    g = get_default_graph()
    op = g._create_op_internal(
        "Const", [], [dtype], name, {"value": arr, "dtype": dtype}, _CONST_INFO)
    if given is not None and 0 < given.size < arr.size:
        # TF stores a padded or broadcast value as given (e.g. one float_val for
        # zeros([8])); GraphDef export writes that form.
        op._attr_protos = {"value": (arr, _CompactValue(given, dtype, arr.shape))}
    return op._outputs[0]


class _CompactValue:
    """Builds, on export, the AttrValue of a constant whose value was padded to its shape."""

    __slots__ = ("given", "dtype", "shape")

    def __init__(self, given, dtype, shape):
        self.given, self.dtype, self.shape = given, dtype, shape

    def __call__(self):
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.formats.tensor_proto import make_tensor_proto
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.protos import attr_value_pb2
        return attr_value_pb2.AttrValue(
            tensor=make_tensor_proto(self.given, self.dtype, list(self.shape)))


def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed at run time (`tf.placeholder`)."""
    dtype = dtypes.as_dtype(dtype)
    return apply_op("Placeholder", dtype=dtype, shape=as_shape(shape), name=name).outputs[0]


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's name
    """A tensor that takes `input` unless fed (`tf.placeholder_with_default`)."""
    return apply_op("PlaceholderWithDefault", input=input, shape=as_shape(shape),
                    name=name).outputs[0]


from trainflow._src.framework import registry as _registry  # noqa: E402

_CONST_INFO = _registry.get("Const")


# -- conversion of Python and NumPy values to constants (`convert_to_tensor`) ------------
def _constant_conversion(value, dtype=None, name=None, as_ref=False):
    return constant(value, dtype=dtype, name=name or "Const")


def _array_like_conversion(value, dtype=None, name=None, as_ref=False):
    """Any other object with `__array__` converts as its array (tried last)."""
    if not hasattr(value, "__array__"):
        return NotImplemented
    return _constant_conversion(value, dtype, name, as_ref)


def _shape_conversion(value, dtype=None, name=None, as_ref=False):
    """A fully defined TensorShape -> 1-D int32 constant (int64 if asked or too large)."""
    if isinstance(value, TensorShape):
        if not value.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {value} to a "
                             "Tensor.")
        dims = value.as_list()
    else:
        if value.value is None:
            raise ValueError(f"Cannot convert an unknown Dimension to a Tensor: {value!r}")
        dims = value.value
    if dtype is None:
        flat = dims if isinstance(dims, list) else [dims]
        dtype = dtypes.int64 if any(d >= 2 ** 31 for d in flat) else dtypes.int32
    elif dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Cannot convert {value} to {dtype.name}; shapes convert to int32 or "
                        "int64 only.")
    return _constant_conversion(dims, dtype, name or "shape_as_tensor")


register_tensor_conversion_function((list, tuple), _constant_conversion, 110)
register_tensor_conversion_function(
    (int, float, complex, bool, str, bytes, np.ndarray, np.generic), _constant_conversion, 100)
register_tensor_conversion_function((TensorShape, Dimension), _shape_conversion, 100)
register_tensor_conversion_function(object, _array_like_conversion, 1000)
