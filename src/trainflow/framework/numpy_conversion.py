"""Python/NumPy values -> NumPy arrays under TensorFlow's dtype rules.

Without a dtype, Python floats become float32 and Python ints int32 (int64
when they do not fit), while NumPy arrays keep their dtype. With a dtype, each
element must be representable (no float for an int dtype, no string for a
number), as `tf.constant` requires.
"""
import numbers

import numpy as np

from trainflow.framework import dtypes


def _flatten(values, out):
    if isinstance(values, (list, tuple)):
        for v in values:
            _flatten(v, out)
    else:
        out.append(values)
    return out


def _check_elements(values, dtype):
    """Raises TypeError if a Python element can't be held exactly by `dtype`."""
    if isinstance(values, np.ndarray):
        return
    base = dtype.base_dtype
    for v in _flatten(values, []):
        if isinstance(v, np.ndarray) or v is None and base == dtypes.string:
            continue
        ok = True
        if base.is_integer:
            ok = isinstance(v, (numbers.Integral, np.integer)) or (
                isinstance(v, np.ndarray) and v.dtype.kind in "iub")
        elif base.is_floating:
            ok = isinstance(v, (numbers.Real, np.floating, np.integer)) and not isinstance(
                v, (str, bytes))
        elif base.is_complex:
            ok = isinstance(v, (numbers.Number, np.number))
        elif base == dtypes.bool:
            ok = isinstance(v, (bool, np.bool_))
        elif base == dtypes.string:
            ok = isinstance(v, (str, bytes, np.bytes_, np.str_))
        if not ok:
            raise TypeError(f"Expected {base.name}, got {v!r} of type '{type(v).__name__}' "
                            "instead.")


def _to_string_array(values):
    arr = np.array(values, dtype=object)
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, (np.bytes_, np.str_)):
            flat[i] = bytes(v) if isinstance(v, np.bytes_) else str(v).encode()
        elif not isinstance(v, bytes):
            raise TypeError(f"Expected string, got {v!r} of type '{type(v).__name__}' instead.")
    return arr


def to_numpy(values, dtype=None):
    """Converts `values` to an ndarray following TF's constant rules.

    Args:
      values: a Python scalar, nested list/tuple, or NumPy value.
      dtype: optional DType (or anything `as_dtype` accepts).

    Returns:
      a new ndarray (never an alias of `values`).

    Raises:
      TypeError: if `values` can't be represented in `dtype`.
      ValueError: for None or ragged lists.
    """
    if values is None:
        raise ValueError("None values not supported.")
    dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if isinstance(values, (np.ndarray, np.generic)):
        if dtype is None:
            if values.dtype.kind in "SUO":
                return _to_string_array(values)
            dtypes.as_dtype(values.dtype)  # TypeError for unsupported NumPy dtypes
            return np.array(values)
        if dtype == dtypes.string:
            return _to_string_array(values)
        if values.dtype.kind in "SUO":
            raise TypeError(f"Expected {dtype.name}, got an array of strings instead.")
        return np.array(values, dtype=dtype.as_numpy_dtype)
    if dtype is not None:
        _check_elements(values, dtype)
        if dtype == dtypes.string:
            return _to_string_array(values)
        try:
            return np.array(values, dtype=dtype.as_numpy_dtype)
        except (ValueError, OverflowError) as e:
            raise TypeError(f"Cannot convert {values!r} to EagerTensor of dtype "
                            f"{dtype.name}: {e}") from None
    flat = _flatten(values, [])
    if flat and any(isinstance(v, (str, bytes, np.bytes_, np.str_)) for v in flat):
        return _to_string_array(values)
    try:
        arr = np.array(values)
    except ValueError as e:
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {e}") \
            from None
    if arr.dtype == object:
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor.")
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    elif arr.dtype == np.int64:
        small = arr.astype(np.int32)
        if np.array_equal(small, arr):
            arr = small
    elif arr.dtype.kind == "U":
        return _to_string_array(values)
    return arr


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
    if arr.size > size:
        raise ValueError(f"Too many elements provided. Needed at most {size}, but received "
                         f"{arr.size}")
    flat = arr.reshape(-1)
    if flat.size == 0:
        return np.zeros(shape, dtype=arr.dtype)
    pad = np.full(size - flat.size, flat[-1], dtype=arr.dtype)
    return np.concatenate([flat, pad]).reshape(shape)
