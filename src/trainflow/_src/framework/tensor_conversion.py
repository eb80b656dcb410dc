"""`convert_to_tensor` and the registry of tensor conversion functions."""

from trainflow._src.framework import dtypes as dtypes_mod
from trainflow._src.framework.tensor import Tensor

# (priority, base_type, fn) kept sorted by priority; fn(value, dtype, name, as_ref).
_CONVERSIONS = []
_CACHE = {}


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers `conversion_func(value, dtype=None, name=None, as_ref=False)` for
    values of `base_type` (a type or tuple of types). Lower priority runs first."""
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    _CONVERSIONS.append((priority, len(_CONVERSIONS), base_type, conversion_func))
    _CONVERSIONS.sort(key=lambda e: (e[0], e[1]))
    _CACHE.clear()


def _functions_for(value_type):
    fns = _CACHE.get(value_type)
    if fns is None:
        fns = [fn for _, _, base, fn in _CONVERSIONS if issubclass(value_type, base)]
        _CACHE[value_type] = fns
    return fns


def _contains_tensor(values):
    stack = [values]
    while stack:
        v = stack.pop()
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor_for_packing"):
            return True
        if isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


def _tensor_conversion(value, dtype=None, name=None, as_ref=False):
    return value


def convert_to_tensor(value, dtype=None, name=None, as_ref=False, preferred_dtype=None,
                      dtype_hint=None):
    """Converts `value` (Tensor, Variable, NumPy or Python value...) to a Tensor.

    Args:
      value: the object to convert.
      dtype: the required DType, or None.
      name: name for any op created.
      as_ref: return a variable's ref tensor instead of its value.
      preferred_dtype / dtype_hint: a DType to try first when `dtype` is None.

    Raises:
      TypeError / ValueError: if the value can't be converted, or has another dtype.
    """
    if isinstance(value, Tensor) and dtype is None:
        return value
    preferred_dtype = preferred_dtype or dtype_hint
    if dtype is not None:
        dtype = dtypes_mod.as_dtype(dtype)
    if dtype is None and preferred_dtype is not None and not isinstance(value, Tensor):
        try:
            out = _convert(value, dtypes_mod.as_dtype(preferred_dtype), name, as_ref)
        except (TypeError, ValueError):
            out = None
        if out is not None:
            return out
    return _convert(value, dtype, name, as_ref)


def _convert(value, dtype, name, as_ref):
    if value is None:
        raise ValueError("None values not supported.")
    for fn in _functions_for(type(value)):
        ret = fn(value, dtype=dtype, name=name, as_ref=as_ref)
        if ret is NotImplemented:
            continue
        if not isinstance(ret, Tensor):
            raise RuntimeError(f"{fn!r}: conversion function returned {ret!r}, not a Tensor.")
        if dtype is not None and not dtype.is_compatible_with(ret.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {ret.dtype.name}: {ret!r}")
        return ret
    raise TypeError(f"Failed to convert elements of {value!r} to Tensor: no conversion "
                    f"function is registered for {type(value).__name__}. Consider casting "
                    "elements to a supported type.")


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    """Converts each element of `values`; returns a list of Tensors."""
    if not isinstance(values, (list, tuple)):
        raise TypeError("values must be a sequence.")
    return [convert_to_tensor(v, dtype=dtype, preferred_dtype=preferred_dtype,
                              name=None if name is None else f"{name}_{i}")
            for i, v in enumerate(values)]


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """Like convert_to_tensor, but IndexedSlices (and SparseTensor) pass through."""
    if hasattr(value, "indices") and hasattr(value, "values"):
        if dtype and not dtypes_mod.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes_mod.as_dtype(dtype).name}"
                             f" for Tensor with dtype {value.dtype.name}: {value!r}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


convert_to_tensor_or_sparse_tensor = convert_to_tensor_or_indexed_slices


def is_tensor(x):
    """True for Tensors and tensor-like objects (Variables, SparseTensor, IndexedSlices)."""
    return isinstance(x, Tensor) or getattr(x, "_is_tensor_like", False)


# Python and NumPy values become constants: framework/constant_op.py registers those
# conversions (and the array ops pack lists that hold tensors).
register_tensor_conversion_function(Tensor, _tensor_conversion, 0)
