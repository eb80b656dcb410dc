"""TensorProto <-> NumPy conversion with TensorFlow's rules (`tf.make_tensor_proto`,
`tf.make_ndarray`).

Numeric arrays of more than one element go into `tensor_content` (raw
little-endian bytes); single values, broadcast values, strings, bools and
complex numbers go into the typed `*_val` fields. Python numbers without a
dtype become float32 / int32 (int64 when an int does not fit), as in TF.
"""
import numbers

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.nest_util import flatten_plain
from trainflow._src.framework.tensor_shape import Dimension
from trainflow._src.protos import tensor_pb2, tensor_shape_pb2

_CONVERT_HINT = ("Consider casting elements to a supported type. See "
                 "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.")

# dtypes whose multi-element values are stored as raw bytes in tensor_content.
_TENSOR_CONTENT_TYPES = frozenset([
    dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int8,
    dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint32, dtypes.uint64,
    dtypes.qint8, dtypes.quint8, dtypes.qint16, dtypes.quint16, dtypes.qint32,
    dtypes.float8_e5m2, dtypes.float8_e4m3fn, dtypes.float8_e4m3fnuz,
    dtypes.float8_e4m3b11fnuz, dtypes.float8_e5m2fnuz, dtypes.float4_e2m1fn,
])

# Single values of these go into float8_val, one byte each (their bit pattern). TF's
# make_tensor_proto has no such writer for the three fnuz float8s (TypeError), but a
# float8_val of any of them reads back.
_FLOAT8_VAL_WRITTEN = frozenset([dtypes.float8_e5m2, dtypes.float8_e4m3fn,
                                 dtypes.float4_e2m1fn])
_FLOAT8_VAL_TYPES = _FLOAT8_VAL_WRITTEN | {dtypes.float8_e4m3fnuz, dtypes.float8_e4m3b11fnuz,
                                           dtypes.float8_e5m2fnuz}

# The 4- and 2-bit ints: never tensor_content from Python (TF leaves their byte layout to
# the implementation), their values one per int_val.
_SMALL_INT_TYPES = frozenset([dtypes.int4, dtypes.uint4, dtypes.int2, dtypes.uint2])

_INT_VAL_TYPES = frozenset([dtypes.int8, dtypes.int16, dtypes.int32, dtypes.uint8,
                            dtypes.uint16, dtypes.qint8, dtypes.quint8, dtypes.qint16,
                            dtypes.quint16, dtypes.qint32])

_MAX_CONTENT_BYTES = 1 << 31


_INTEGRAL_TYPES = (numbers.Integral, np.integer, Dimension)  # a Dimension is an int, as in TF


_OK = object()  # returned by the checks below when every element is acceptable


def _kind_check(expected):
    def check(values):
        for v in flatten_plain(values):
            if not (isinstance(v, expected) or
                    (isinstance(v, np.ndarray) and issubclass(v.dtype.type, expected))):
                return v
        return _OK
    return check


def _check_quantized(values):
    if not isinstance(values, (list, tuple)):
        return values
    if isinstance(values, tuple):
        checker = _kind_check(_INTEGRAL_TYPES)
        for v in values:
            bad = checker(v)
            if bad is not _OK:
                return bad
        return _OK
    for v in values:
        bad = _check_quantized(v)
        if bad is not _OK:
            return bad
    return _OK


def _checker_for(dtype):
    if dtype == dtypes.bool:
        return _kind_check(bool)
    if dtype == dtypes.string:
        return _kind_check((bytes, str))
    if dtype.is_quantized:
        return _check_quantized
    if dtype.is_integer:
        return _kind_check(_INTEGRAL_TYPES)
    if dtype.is_floating:
        return _kind_check((numbers.Real, np.integer, np.floating))
    if dtype.is_complex:
        return _kind_check((numbers.Complex, np.number))
    return lambda values: _OK


def _assert_compatible(values, dtype):
    if dtype is None:
        return
    bad = _checker_for(dtype)(values)
    if bad is not _OK:
        raise TypeError(f"Expected {dtype.name}, but got {bad} of type '{type(bad).__name__}'.")


def _dense_dimensions(values):
    dims = []
    while isinstance(values, (list, tuple)):
        if not values:
            dims.append(0)
            break
        dims.append(len(values))
        values = values[0]
    return dims


def _as_bytes(value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def _shape_list(shape):
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    return [int(dim) for dim in shape]


def _shape_proto(dims):
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])


def _to_ndarray(values, dtype, shape):
    """Converts non-array `values` to an array the way TF does (float32/int32 defaults)."""
    if values is None:
        raise ValueError("None values not supported.")
    np_dt = dtype.as_numpy_dtype if dtype is not None and dtype.is_numpy_compatible else None
    if shape is not None and np.prod(_shape_list(shape), dtype=np.int64) == 0:
        array = np.empty(_shape_list(shape), dtype=np_dt)
    else:
        _assert_compatible(values, dtype)
        try:
            array = np.array(values, dtype=np_dt)
        except OverflowError:
            # Python ints beyond uint64: TF reports a conversion failure.
            raise TypeError(f"Failed to convert elements of {values} to Tensor. "
                            f"{_CONVERT_HINT}") from None
        quantized = dtype is not None and dtype.is_quantized
        if list(array.shape) != _dense_dimensions(values) and not quantized:
            raise ValueError(f"Expected values {values} to be a dense tensor with shape "
                             f"{_dense_dimensions(values)}, but got shape {list(array.shape)}.")
    if dtype is None:
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            narrow = array.astype(np.int32)
            if np.array_equal(narrow, array):
                array = narrow
    return array


def _append_values(proto, dtype, flat):
    """Fills the typed *_val field of `proto` from the 1-D array `flat`."""
    if dtype == dtypes.string:
        proto.string_val.extend(_as_bytes(x) for x in flat.tolist())
    elif dtype in (dtypes.float16, dtypes.bfloat16):
        proto.half_val.extend(flat.view(np.uint16).tolist())
    elif dtype in _FLOAT8_VAL_WRITTEN:
        proto.float8_val += np.ascontiguousarray(flat).view(np.uint8).tobytes()
    elif dtype in _SMALL_INT_TYPES:
        proto.int_val.extend(flat.astype(np.int8).tolist())
    elif dtype == dtypes.float32:
        proto.float_val.extend(flat.tolist())
    elif dtype == dtypes.float64:
        proto.double_val.extend(flat.tolist())
    elif dtype.is_quantized:
        proto.int_val.extend(int(x[0]) for x in flat)
    elif dtype in _INT_VAL_TYPES:
        proto.int_val.extend(flat.tolist())
    elif dtype == dtypes.int64:
        proto.int64_val.extend(flat.tolist())
    elif dtype == dtypes.uint32:
        proto.uint32_val.extend(flat.tolist())
    elif dtype == dtypes.uint64:
        proto.uint64_val.extend(flat.tolist())
    elif dtype == dtypes.bool:
        proto.bool_val.extend(flat.tolist())
    elif dtype in (dtypes.complex64, dtypes.complex128):
        pairs = np.stack([flat.real, flat.imag], axis=-1).ravel().tolist()
        field = proto.scomplex_val if dtype == dtypes.complex64 else proto.dcomplex_val
        field.extend(pairs)
    else:
        raise TypeError(f"Element type not supported in TensorProto: {dtype.name}.")


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False):
    """Builds a TensorProto from a value, as `tf.make_tensor_proto`.

    Args:
      values: a Python scalar, (nested) list/tuple, NumPy array or scalar, or
        a TensorProto (returned unchanged).
      dtype: optional DType (or anything `as_dtype` accepts) to convert to.
      shape: optional shape; fewer values than it holds are broadcast (the
        last value repeats when read back).
      verify_shape: require `values` to have exactly `shape`.
      allow_broadcast: allow a scalar or 1-element value to fill `shape`.

    Returns:
      A `trainflow._src.protos.tensor_pb2.TensorProto`.

    Raises:
      TypeError: values incompatible with `dtype`, unsupported element types,
        or a shape mismatch under verify_shape/allow_broadcast.
      ValueError: None values, ragged lists, too many values for `shape`, or
        both verify_shape and allow_broadcast.
    """
    if allow_broadcast and verify_shape:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    quantized = dtype is not None and dtype.is_quantized

    if not isinstance(values, (np.ndarray, np.generic)) and (
            hasattr(values, "__array__") or hasattr(values, "__array_interface__")):
        values = np.asarray(values)
    if isinstance(values, (np.ndarray, np.generic)):
        if dtype is not None and dtype.is_numpy_compatible:
            array = np.asarray(values).astype(dtype.as_numpy_dtype)
        else:
            array = np.asarray(values)
    else:
        array = _to_ndarray(values, dtype, shape)

    try:
        value_dtype = dtypes.as_dtype(array.dtype)
    except TypeError:
        raise TypeError(f"Unrecognized data type: {array.dtype}.") from None
    if quantized:
        value_dtype = dtype
    if dtype is not None and dtype.base_dtype != value_dtype.base_dtype:
        raise TypeError(f"`dtype` {dtype} is not compatible with {values} of dtype "
                        f"{array.dtype}.")

    if shape is None:
        dims = list(array.shape)
        shape_size = array.size
        same_size = True
    else:
        dims = _shape_list(shape)
        shape_size = int(np.prod(dims, dtype=np.int64))
        same_size = shape_size == array.size
        if allow_broadcast:
            if array.shape not in ((1,), ()) and array.size != shape_size:
                raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, "
                                f"but got {array.shape}.")
        else:
            if verify_shape and array.shape != tuple(dims):
                raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, "
                                f"but got {array.shape}.")
            if array.size > shape_size:
                raise ValueError("Too many elements provided. Takes at most "
                                 f"{shape_size:d}, but got {array.size:d}.")

    proto = tensor_pb2.TensorProto(dtype=value_dtype.as_datatype_enum,
                                   tensor_shape=_shape_proto(dims))
    if same_size and value_dtype in _TENSOR_CONTENT_TYPES and shape_size > 1:
        if array.nbytes >= _MAX_CONTENT_BYTES:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        # tobytes() of the C-ordered little-endian array is TF's layout.
        proto.tensor_content = np.ascontiguousarray(
            array, dtype=array.dtype.newbyteorder("<")).tobytes()
        return proto

    if value_dtype == dtypes.string and not isinstance(values, np.ndarray):
        try:
            proto.string_val.extend(_as_bytes(x) for x in _flatten_strings(values))
        except TypeError:
            raise TypeError(f"Failed to convert elements of {values} to Tensor. "
                            f"{_CONVERT_HINT}") from None
        return proto

    _append_values(proto, value_dtype, array.ravel())
    return proto


def _flatten_strings(values):
    if isinstance(values, (list, tuple)):
        return [leaf for item in values for leaf in _flatten_strings(item)]
    return [values]


# dtype -> the repeated field holding its values one per element
_VALUE_FIELDS = {
    dtypes.float32: "float_val",
    dtypes.float64: "double_val",
    dtypes.int64: "int64_val",
    dtypes.uint32: "uint32_val",
    dtypes.uint64: "uint64_val",
    dtypes.bool: "bool_val",
}


def _typed_values(proto, dtype, np_dtype):
    if dtype in (dtypes.float16, dtypes.bfloat16):
        return np.array(proto.half_val, dtype=np.int64).astype(np.uint16).view(np_dtype)
    if dtype in _VALUE_FIELDS:
        return np.array(getattr(proto, _VALUE_FIELDS[dtype]), dtype=np_dtype)
    if dtype.is_quantized:
        return np.array([(v,) for v in proto.int_val], dtype=np_dtype)
    if dtype in _INT_VAL_TYPES:
        return np.array(proto.int_val, dtype=np_dtype)
    if dtype in _FLOAT8_VAL_TYPES:
        return np.frombuffer(proto.float8_val, dtype=np.uint8).view(np_dtype)
    if dtype in _SMALL_INT_TYPES:
        return np.array(proto.int_val, dtype=np.int8).astype(np_dtype)
    if dtype in (dtypes.complex64, dtypes.complex128):
        field = proto.scomplex_val if dtype == dtypes.complex64 else proto.dcomplex_val
        parts = np.array(field, dtype=np.float64).reshape(-1, 2)
        return (parts[:, 0] + 1j * parts[:, 1]).astype(np_dtype)
    raise TypeError(f"Unsupported tensor type: {dtype.name}.")


# A compact TensorProto (fewer values than elements, the last one repeated) with more than
# one value is expanded up to this many elements; one with a single value (tf.zeros,
# tf.fill, a broadcast constant) becomes a read-only broadcast view of any size.
MAX_EXPANDED_ELEMENTS = 1 << 24


def _expand(values, shape, num_elements, what, compact_view):
    """`values` padded with its last value to `num_elements`, shaped `shape`."""
    if values.size == num_elements:
        return values.reshape(shape)
    if values.size == 1:
        view = np.broadcast_to(values.reshape(()), shape)
        return view if compact_view else view.copy()
    if compact_view and num_elements > max(MAX_EXPANDED_ELEMENTS, 16 * values.size):
        raise ValueError(f"TensorProto of {what} and shape {shape} holds {values.size} values "
                         f"for {num_elements} elements; expanding more than "
                         f"{MAX_EXPANDED_ELEMENTS} elements is not supported.")
    return np.concatenate([values, np.repeat(values[-1:], num_elements - values.size)]
                          ).reshape(shape)


def _decode_string_content(content, num_elements, shape):
    """Strings packed in tensor_content as TF's C++ Tensor writes them: each length as a
    varint, then all the bytes."""
    lengths, pos = [], 0
    for _ in range(num_elements):
        n = shift = 0
        while True:
            if pos >= len(content):
                raise ValueError(f"TensorProto of dtype string and shape {shape} has "
                                 "truncated tensor_content.")
            b = content[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        lengths.append(n)
    if pos + sum(lengths) != len(content):
        raise ValueError(f"TensorProto of dtype string and shape {shape} has "
                         f"{len(content) - pos} bytes of strings, needs {sum(lengths)}.")
    out = np.empty(num_elements, dtype=object)
    for i, n in enumerate(lengths):
        out[i] = bytes(content[pos:pos + n])
        pos += n
    return out.reshape(shape)


def make_ndarray(tensor_proto, compact_view=False):
    """Returns the NumPy array held by a TensorProto, as `tf.make_ndarray`.

    Values listed for fewer elements than the shape holds are padded with the
    last value (how TF stores broadcast constants). With `compact_view` (what graph
    import uses, for untrusted protos) a single value gives a read-only broadcast view and
    more values expand only up to MAX_EXPANDED_ELEMENTS, so the proto cannot make this
    allocate what it does not hold.

    Raises:
      TypeError: for dtypes with no NumPy value (resource, variant) or an
        invalid dtype.
      ValueError: when the proto holds more values than its shape, or
        tensor_content whose size does not match the shape, or a negative dimension.
    """
    shape = [d.size for d in tensor_proto.tensor_shape.dim]
    if any(d < 0 for d in shape):
        raise ValueError(f"TensorProto has a negative dimension in shape {shape}.")
    num_elements = 1
    for d in shape:
        num_elements *= d
    try:
        dtype = dtypes.as_dtype(tensor_proto.dtype)
    except TypeError:
        raise TypeError(f"Unsupported tensor type: {tensor_proto.dtype}.") from None
    if not dtype.is_numpy_compatible:
        raise TypeError(f"Unsupported tensor type: {dtype.name} has no NumPy value.")
    np_dtype = np.dtype(dtype.as_numpy_dtype)

    if tensor_proto.tensor_content and dtype == dtypes.string:
        return _decode_string_content(tensor_proto.tensor_content, num_elements, shape)
    if tensor_proto.tensor_content:
        content = tensor_proto.tensor_content
        if len(content) != num_elements * np_dtype.itemsize:
            raise ValueError(f"TensorProto of dtype {dtype.name} and shape {shape} needs "
                             f"{num_elements * np_dtype.itemsize} bytes of tensor_content, "
                             f"got {len(content)}.")
        if dtype in _SMALL_INT_TYPES:  # one byte each, sign-extended as C++ holds them
            return np.frombuffer(content, dtype=np.int8).astype(np_dtype).reshape(shape)
        return np.frombuffer(content, dtype=np_dtype.newbyteorder("<")).astype(
            np_dtype).reshape(shape)

    if dtype == dtypes.string:
        values = list(tensor_proto.string_val)
        if len(values) > num_elements:
            raise ValueError(f"TensorProto of shape {shape} holds {len(values)} strings.")
        result = np.empty(len(values) or min(num_elements, 1), dtype=object)
        result[:] = values or [b""] * len(result)
        return _expand(result, shape, num_elements, "dtype string", compact_view) \
            if num_elements else \
            np.empty(shape, dtype=object)

    values = _typed_values(tensor_proto, dtype, np_dtype)
    if values.size == 0:
        values = np.zeros(min(num_elements, 1), np_dtype)
    if values.size > num_elements:
        raise ValueError(f"TensorProto of dtype {dtype.name} and shape {shape} holds "
                         f"{values.size} values, more than its {num_elements} elements.")
    return _expand(values, shape, num_elements, f"dtype {dtype.name}", compact_view)
