"""Python/NumPy values -> NumPy arrays under TensorFlow's dtype rules.

Without a dtype, Python floats become float32 and Python ints int32 (int64, then
uint64, when they do not fit), while NumPy arrays and scalars keep their dtype.
With a dtype, each Python element must be of a kind the dtype holds (no float for an
int dtype, no number for a string) and integers wrap around as in TensorFlow
(`constant(-1, uint8)` is 255); NumPy arrays are cast.
"""
import numbers

import numpy as np

from trainflow._src.framework import dtypes

_STRING_TYPES = (str, bytes, np.bytes_, np.str_)


def _dimension_value(d):
    if d.value is None:
        raise ValueError("Cannot convert a partially known TensorShape (an unknown "
                         "Dimension) to a Tensor.")
    return d.value


def _dimensions_to_ints(values):
    """Replaces TensorShape Dimensions in (nested) lists by their int sizes."""
    if not any(isinstance(v, (list, tuple)) or type(v).__name__ == "Dimension"
               for v in values):
        return values
    return [_dimensions_to_ints(v) if isinstance(v, (list, tuple)) else
            _dimension_value(v) if type(v).__name__ == "Dimension" else v for v in values]


def _flatten(values, out):
    if isinstance(values, (list, tuple)):
        for v in values:
            _flatten(v, out)
    else:
        out.append(values)
    return out


def _failed(values):
    return TypeError(f"Failed to convert elements of {values!r} to Tensor. Consider casting "
                     "elements to a supported type (see trainflow.dtypes).")


def _check_elements(values, dtype):
    """Raises TypeError if a Python element is not of a kind `dtype` can hold."""
    base = dtype.base_dtype
    for v in _flatten(values, []):
        if isinstance(v, np.ndarray):
            continue
        if base.is_integer:
            ok = isinstance(v, (numbers.Integral, np.integer))
        elif base.is_floating:
            ok = isinstance(v, (numbers.Real, np.floating, np.integer))
        elif base.is_complex:
            ok = isinstance(v, (numbers.Number, np.number))
        elif base == dtypes.bool:
            ok = isinstance(v, (bool, np.bool_))
        elif base == dtypes.string:
            ok = isinstance(v, _STRING_TYPES)
        else:
            ok = True
        if not ok:
            shown = v.decode(errors="replace") if isinstance(v, bytes) else v
            raise TypeError(f"Expected {base.name}, but got {shown} of type "
                            f"'{type(v).__name__}'.")


def _to_string_array(values):
    arr = np.array(values, dtype=object)
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            flat[i] = bytes(v)
        elif isinstance(v, np.str_):
            flat[i] = str(v).encode("utf-8")
        elif not isinstance(v, bytes):
            raise TypeError(f"Expected binary or unicode string, got {v!r}")
    return arr


def _canonical(arr, dtype=None):
    """`arr` with NumPy's canonical scalar type for its TF dtype (np.ulonglong arrays
    become np.uint64, so fetched scalars have the types TF returns)."""
    want = (dtype or dtypes.as_dtype(arr.dtype)).as_numpy_dtype
    if arr.dtype.type is not want:
        arr = arr.astype(want)
    return arr


def _wrapping_cast(values, np_dtype):
    """Python ints -> `np_dtype`, wrapping out-of-range values as TF does."""
    try:
        wide = np.array(values)
    except (ValueError, OverflowError):
        raise _failed(values) from None
    if wide.dtype == object:
        raise _failed(values)
    with np.errstate(over="ignore", invalid="ignore"):
        return wide.astype(np_dtype)


def to_numpy(values, dtype=None):
    """Converts `values` to an ndarray following TF's constant rules.

    Args:
      values: a Python scalar, nested list/tuple, or NumPy value.
      dtype: optional DType (or anything `as_dtype` accepts).

    Returns:
      a new ndarray (never an alias of `values`).

    Raises:
      TypeError: if `values` (or one of its elements) can't be represented in
        `dtype`, or has no TF dtype.
      ValueError: for None or ragged lists.
    """
    if values is None:
        raise ValueError("None values not supported.")
    dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if isinstance(values, (np.ndarray, np.generic)):
        return _from_numpy(values, dtype)
    if isinstance(values, (list, tuple)):
        values = _dimensions_to_ints(values)
    elif type(values).__name__ == "Dimension":
        values = _dimension_value(values)
    if not isinstance(values, (list, tuple, numbers.Number, bool) + _STRING_TYPES):
        if getattr(values, "_is_tensor_like", False) or type(values).__name__ == "Tensor":
            raise TypeError("Expected any non-tensor type, but got a tensor instead.")
        if not hasattr(values, "__array__"):
            raise _failed(values)
        return _from_numpy(np.asarray(values), dtype)
    if dtype is not None:
        _check_elements(values, dtype)
        if dtype == dtypes.string:
            return _to_string_array(values)
        np_dtype = dtype.as_numpy_dtype
        try:
            with np.errstate(over="ignore"):
                return np.array(values, dtype=np_dtype)
        except OverflowError:
            if not dtype.is_integer:
                raise _failed(values) from None
            return _wrapping_cast(values, np_dtype)
        except ValueError as e:
            raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {e}") \
                from None
    flat = _flatten(values, [])
    if any(isinstance(v, _STRING_TYPES) for v in flat):
        if not all(isinstance(v, _STRING_TYPES) for v in flat):
            raise _failed(values)
        return _to_string_array(values)
    try:
        arr = np.array(values)
    except ValueError as e:
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {e}") \
            from None
    except OverflowError:
        raise _failed(values) from None
    if arr.dtype == object:
        raise _failed(values)
    if arr.dtype == np.float64:
        with np.errstate(over="ignore"):
            arr = arr.astype(np.float32)
    elif arr.dtype == np.int64:
        small = arr.astype(np.int32)
        if np.array_equal(small, arr):
            arr = small
    return _canonical(arr)


def _from_numpy(values, dtype):
    if dtype is None:
        if values.dtype.kind in "SUO":
            return _to_string_array(values)
        return _canonical(np.array(values))  # TypeError for dtypes TF lacks
    if dtype == dtypes.string:
        return _to_string_array(values)
    if values.dtype.kind in "SUO":
        raise TypeError(f"Expected {dtype.name}, but got an array of strings.")
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(values, dtype=dtype.as_numpy_dtype)


def fit_to_shape(arr, shape, verify_shape=False):
    """Reshapes or pads `arr` to `shape` as TF1's `constant(value, shape=...)` does.

    A value with as many elements as `shape` is reshaped; a scalar or a shorter
    list is padded by repeating its last element.

    Raises:
      TypeError: with verify_shape and a different shape.
      ValueError: when `arr` has more elements than `shape` holds.
    """
    shape = tuple(int(d) for d in shape)
    size = int(np.prod(shape, dtype=np.int64))
    if verify_shape and arr.shape != shape:
        raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
    if arr.size == size:
        return arr.reshape(shape)
    if arr.ndim == 0:  # a scalar fills any shape, an empty one too
        return np.full(shape, arr, dtype=arr.dtype)
    if arr.size > size:
        raise ValueError(f"Too many elements provided. Takes at most {size}, but got "
                         f"{arr.size}.")
    flat = arr.reshape(-1)
    if flat.size == 0:
        return np.zeros(shape, dtype=arr.dtype)
    pad = np.full(size - flat.size, flat[-1], dtype=arr.dtype)
    return np.concatenate([flat, pad]).reshape(shape)
