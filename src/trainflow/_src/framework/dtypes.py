"""TensorFlow's DType objects: names, DataType enum numbers, NumPy mappings.

A DType is identified by its DataType enum number (`as_datatype_enum`); the
`_ref` variants (enum + 100) mark reference-typed outputs (variables).
"""
import builtins
import sys

import numpy as np

_REF_OFFSET = 100


class DType:
    """A TensorFlow element type (e.g. `float32`, `int64_ref`)."""

    __slots__ = ("_type_enum",)

    def __init__(self, type_enum):
        type_enum = int(type_enum)
        if type_enum % _REF_OFFSET not in _BASE_NAMES or type_enum % _REF_OFFSET == 0:
            raise TypeError(f"type_enum={type_enum} is not a valid DataType")
        self._type_enum = type_enum

    @property
    def _is_ref_dtype(self):
        return self._type_enum > _REF_OFFSET

    @property
    def _as_ref(self):
        return self if self._is_ref_dtype else _BY_ENUM[self._type_enum + _REF_OFFSET]

    @property
    def base_dtype(self):
        """The non-reference DType."""
        return _BY_ENUM[self._type_enum - _REF_OFFSET] if self._is_ref_dtype else self

    @property
    def real_dtype(self):
        """float32 for complex64, float64 for complex128, else the base dtype."""
        base = self.base_dtype
        return {complex64: float32, complex128: float64}.get(base, base)

    @property
    def as_datatype_enum(self):
        """The DataType enum number (as in types.proto)."""
        return self._type_enum

    @property
    def name(self):
        """TF's name, e.g. 'float32' or 'int64_ref'."""
        base = _BASE_NAMES[self._type_enum % _REF_OFFSET]
        return base + "_ref" if self._is_ref_dtype else base

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type for this dtype (object for string)."""
        return _NP_TYPES[self._type_enum % _REF_OFFSET]

    @property
    def is_numpy_compatible(self):
        return self._type_enum % _REF_OFFSET not in (20, 21)

    @property
    def is_bool(self):
        return self.base_dtype == bool

    @property
    def is_floating(self):
        return self.base_dtype in _FLOATING_TYPES

    @property
    def is_complex(self):
        return self.base_dtype in (complex64, complex128)

    @property
    def is_integer(self):
        return self.base_dtype in _INTEGER_TYPES

    @property
    def is_unsigned(self):
        return self.base_dtype in (uint8, uint16, uint32, uint64, uint4, uint2)

    @property
    def is_quantized(self):
        return self.base_dtype in _QUANTIZED

    @property
    def size(self):
        """Bytes per element (1 for string/resource/variant as TF reports)."""
        if self.base_dtype in (string, resource, variant):
            return 1
        return np.dtype(self.as_numpy_dtype).itemsize

    @property
    def min(self):
        """Smallest representable value; TypeError for non-numeric types."""
        return self._limits()[0]

    @property
    def max(self):
        """Largest representable value; TypeError for non-numeric types."""
        return self._limits()[1]

    @property
    def limits(self):
        """TF's image intensity range (0, max) of bool, the ints, float32 and float64.

        Raises:
          ValueError: for any other dtype, as TF does.
        """
        base = self._type_enum % _REF_OFFSET
        if base not in _INTENSITY_MAX:
            raise ValueError(f"{self} does not have defined limits.")
        return 0, _INTENSITY_MAX[base]

    def _limits(self):
        base = self.base_dtype
        if base == bool:
            return False, True
        if base in _QUANTIZED or base in (string, resource, variant) or base.is_complex:
            raise TypeError(f"Cannot find minimum/maximum value for {self.name}")
        np_t = base.as_numpy_dtype
        if base.is_floating:
            info = float_info(np_t)
        elif base._type_enum in _ML_DTYPE_NAMES:
            info = _load_ml_dtypes().iinfo(np_t)
        else:
            info = np.iinfo(np_t)
        return info.min, info.max

    def is_compatible_with(self, other):
        """True if a value of `other` may be used where this dtype is expected."""
        other = as_dtype(other)
        return self._type_enum in (other.as_datatype_enum, other.base_dtype.as_datatype_enum)

    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, DType):
            return self._type_enum == other._type_enum
        try:
            return self._type_enum == as_dtype(other)._type_enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._type_enum

    def __reduce__(self):
        return as_dtype, (self.name,)

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        return f"<dtype: {self.name!r}>"


_BASE_NAMES = {
    0: "invalid", 1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8",
    7: "string", 8: "complex64", 9: "int64", 10: "bool", 11: "qint8", 12: "quint8",
    13: "qint32", 14: "bfloat16", 15: "qint16", 16: "quint16", 17: "uint16",
    18: "complex128", 19: "float16", 20: "resource", 21: "variant", 22: "uint32", 23: "uint64",
    24: "float8_e5m2", 25: "float8_e4m3fn", 26: "float8_e4m3fnuz", 27: "float8_e4m3b11fnuz",
    28: "float8_e5m2fnuz", 29: "int4", 30: "uint4", 31: "int2", 32: "uint2",
    33: "float4_e2m1fn",
}

# The dtypes whose NumPy types come from ml_dtypes (the same names there).
_ML_DTYPE_NAMES = {14: "bfloat16", **{e: _BASE_NAMES[e] for e in range(24, 34)}}

# dtype_range of TF's dtypes.py: the upper end of `DType.limits` (the lower one is 0).
_INTENSITY_MAX = {10: True, 4: 255, 17: 65535, 6: 127, 5: 32767, 9: 2**63 - 1,
                  23: 2**64 - 1, 3: 2**31 - 1, 22: 2**32 - 1, 1: 1, 2: 1}

class _NumpyTypes(dict):
    """Enum -> NumPy type; the types of bfloat16, the float8s, float4 and the 4- and 2-bit
    ints (ml_dtypes, ~1 s to import) load on first use."""

    def __missing__(self, enum):
        if enum not in _ML_DTYPE_NAMES:
            raise KeyError(enum)
        return getattr(_load_ml_dtypes(), _ML_DTYPE_NAMES[enum])


def _load_ml_dtypes():
    """Imports ml_dtypes and registers its types in the lookup tables (once)."""
    import ml_dtypes  # stays out of `import trainflow`: its import alone takes ~1 s
    if 14 not in _NP_TYPES:
        for enum, name in _ML_DTYPE_NAMES.items():
            np_type = getattr(ml_dtypes, name)
            _NP_TO_TF[np.dtype(np_type)] = _BY_ENUM[enum]
            _NP_TYPES[enum] = np_type
    return ml_dtypes


_ML_FLOAT_NAMES = frozenset(n for n in _ML_DTYPE_NAMES.values() if "float" in n)


def float_info(np_type):
    """`np.finfo` of a floating NumPy type, ml_dtypes' (bfloat16, float8s ...) included."""
    dt = np.dtype(np_type)
    if dt.name in _ML_FLOAT_NAMES:
        return _load_ml_dtypes().finfo(dt)
    return np.finfo(dt)


def is_half_float(np_dtype):
    """True for the NumPy dtypes float16 and bfloat16 (kernels compute them in float32)."""
    np_dtype = np.dtype(np_dtype)
    return np_dtype == _FLOAT16 or (np_dtype.kind == "V" and np_dtype.name == "bfloat16")


_FLOAT16 = np.dtype(np.float16)
_NP_TYPES = _NumpyTypes({
    1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
    7: np.object_, 8: np.complex64, 9: np.int64, 10: np.bool_,
    11: np.dtype([("qint8", np.int8)]), 12: np.dtype([("quint8", np.uint8)]),
    13: np.dtype([("qint32", np.int32)]),
    15: np.dtype([("qint16", np.int16)]), 16: np.dtype([("quint16", np.uint16)]),
    17: np.uint16, 18: np.complex128, 19: np.float16, 20: np.object_, 21: np.object_,
    22: np.uint32, 23: np.uint64,
})

_BY_ENUM = {}
for _e in _BASE_NAMES:
    if _e:
        _BY_ENUM[_e] = DType.__new__(DType)
        _BY_ENUM[_e]._type_enum = _e
        _BY_ENUM[_e + _REF_OFFSET] = DType.__new__(DType)
        _BY_ENUM[_e + _REF_OFFSET]._type_enum = _e + _REF_OFFSET

float32 = _BY_ENUM[1]
float64 = _BY_ENUM[2]
int32 = _BY_ENUM[3]
uint8 = _BY_ENUM[4]
int16 = _BY_ENUM[5]
int8 = _BY_ENUM[6]
string = _BY_ENUM[7]
complex64 = _BY_ENUM[8]
int64 = _BY_ENUM[9]
bool = _BY_ENUM[10]  # noqa: A001 - TF's name
qint8 = _BY_ENUM[11]
quint8 = _BY_ENUM[12]
qint32 = _BY_ENUM[13]
bfloat16 = _BY_ENUM[14]
qint16 = _BY_ENUM[15]
quint16 = _BY_ENUM[16]
uint16 = _BY_ENUM[17]
complex128 = _BY_ENUM[18]
float16 = _BY_ENUM[19]
half = float16
resource = _BY_ENUM[20]
variant = _BY_ENUM[21]
uint32 = _BY_ENUM[22]
uint64 = _BY_ENUM[23]
double = float64
# tf.dtypes.experimental: the 8-, 4- and 2-bit types (their NumPy types are ml_dtypes').
float8_e5m2 = _BY_ENUM[24]
float8_e4m3fn = _BY_ENUM[25]
float8_e4m3fnuz = _BY_ENUM[26]
float8_e4m3b11fnuz = _BY_ENUM[27]
float8_e5m2fnuz = _BY_ENUM[28]
int4 = _BY_ENUM[29]
uint4 = _BY_ENUM[30]
int2 = _BY_ENUM[31]
uint2 = _BY_ENUM[32]
float4_e2m1fn = _BY_ENUM[33]

for _e, _n in _BASE_NAMES.items():
    if _e:
        globals()[_n + "_ref"] = _BY_ENUM[_e + _REF_OFFSET]
half_ref = globals()["float16_ref"]

_INTEGER_TYPES = (int8, int16, int32, int64, uint8, uint16, uint32, uint64, int4, uint4,
                  int2, uint2)
_FLOATING_TYPES = (float16, float32, float64, bfloat16, float8_e5m2, float8_e4m3fn,
                   float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2fnuz, float4_e2m1fn)
_QUANTIZED = (qint8, quint8, qint16, quint16, qint32)

_STRING_TO_TF = {_n: _BY_ENUM[_e] for _e, _n in _BASE_NAMES.items() if _e}
_STRING_TO_TF.update({_n + "_ref": _BY_ENUM[_e + _REF_OFFSET]
                      for _e, _n in _BASE_NAMES.items() if _e})
_STRING_TO_TF.update({"half": float16, "half_ref": float16_ref, "float": float32,  # noqa: F821
                      "float_ref": float32_ref, "double": float64,  # noqa: F821
                      "double_ref": float64_ref})  # noqa: F821

_NP_TO_TF = {
    np.dtype(np.float32): float32, np.dtype(np.float64): float64, np.dtype(np.int32): int32,
    np.dtype(np.uint8): uint8, np.dtype(np.int16): int16, np.dtype(np.int8): int8,
    np.dtype(np.complex64): complex64, np.dtype(np.int64): int64, np.dtype(np.bool_): bool,
    np.dtype(np.uint16): uint16,
    np.dtype(np.complex128): complex128, np.dtype(np.float16): float16,
    np.dtype(np.uint32): uint32, np.dtype(np.uint64): uint64, np.dtype(np.object_): string,
}
for _e in (11, 12, 13, 15, 16):
    _NP_TO_TF[np.dtype(_NP_TYPES[_e])] = _BY_ENUM[_e]

_PYTHON_TO_TF = {builtins.float: float32, builtins.bool: bool, builtins.object: string,
                 builtins.bytes: string, builtins.str: string, builtins.int: int64,
                 builtins.complex: complex128}


def as_dtype(type_value):
    """Converts a DType, DataType enum, name, NumPy or Python type to a DType.

    Raises:
      TypeError: if `type_value` names no TensorFlow dtype.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, (builtins.int, np.integer)) and not isinstance(
            type_value, builtins.bool):
        dt = _BY_ENUM.get(builtins.int(type_value))
        if dt is None or builtins.int(type_value) % _REF_OFFSET == 0:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
        return dt
    if isinstance(type_value, str):
        try:
            return _STRING_TO_TF[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if type_value in _PYTHON_TO_TF:
        return _PYTHON_TO_TF[type_value]
    if hasattr(type_value, "as_datatype_enum"):
        return _BY_ENUM[type_value.as_datatype_enum]
    try:
        np_dt = np.dtype(type_value)
    except TypeError:
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if np_dt.kind in "SU":
        return string
    try:
        return _NP_TO_TF[np_dt]
    except KeyError:
        pass
    if "ml_dtypes" in sys.modules and 14 not in _NP_TYPES:
        # A bfloat16 array exists only once ml_dtypes is imported (by the user or jax).
        _load_ml_dtypes()
        return as_dtype(np_dt)
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None


QUANTIZED_DTYPES = frozenset(_QUANTIZED) | frozenset(q._as_ref for q in _QUANTIZED)
TF_VALUE_DTYPES = frozenset(dt for e, dt in _BY_ENUM.items() if e < _REF_OFFSET)
