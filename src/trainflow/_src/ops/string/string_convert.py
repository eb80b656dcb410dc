"""String conversions: StringToNumber, AsString, and the hash-bucket ops
(StringToHashBucketFast / Strong / legacy StringToHashBucket)."""
__all__ = ["string_to_number", "as_string", "string_to_hash_bucket_fast",
           "string_to_hash_bucket_strong", "string_to_hash_bucket"]

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.ops.string import string_hash


def _same_shape(op):
    return [op._inputs[0]._shape]


def _bytes(x):
    return x if isinstance(x, bytes) else str(x).encode()


def _map(values, fn, dtype):
    arr = np.asarray(values, dtype=object)
    out = np.empty(arr.shape, dtype=dtype)
    flat_out = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat_out[i] = fn(v)
    return out


# -- StringToNumber ------------------------------------------------------------------------
def _to_number_kernel(string_tensor, *, out_type):
    np_type = out_type.as_numpy_dtype
    is_int = out_type.is_integer

    def convert(s):
        text = _bytes(s).decode("utf-8", "replace")
        try:
            v = int(text, 10) if is_int else float(text)
            if is_int and not (out_type.min <= v <= out_type.max):
                raise ValueError(text)
            return v
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"StringToNumberOp could not correctly convert string: {text}"
            ) from None
    return _map(string_tensor, convert, np_type)


register_op("StringToNumber", inputs=["string_tensor: string"], outputs=["output: out_type"],
            attrs=["out_type: {float, double, int32, int64} = DT_FLOAT"],
            shape_fn=_same_shape, kernel=_to_number_kernel)


def string_to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Converts each string to a number of `out_type`."""
    return apply_op("StringToNumber", string_tensor=string_tensor, out_type=out_type,
                    name=name).outputs[0]


# -- AsString ------------------------------------------------------------------------------
def _as_string_kernel(input, *, T, precision, scientific, shortest, width, fill):  # noqa: A002
    fill = fill.decode() if isinstance(fill, bytes) else fill
    if len(fill) > 1:
        raise errors.InvalidArgumentError(None, None, f"Fill string must be one or fewer "
                                                      f"characters: {fill}")
    if scientific and shortest:
        raise errors.InvalidArgumentError(None, None,
                                          "Cannot select both scientific and shortest notation")
    flags = ""
    if fill == "0":
        flags = "0"
    elif fill == "-" or fill not in ("", " "):
        if fill == "-":
            flags = "-"
        elif fill:
            raise errors.InvalidArgumentError(None, None, f"Fill argument not supported: "
                                                          f"\"{fill}\"")
    w = str(width) if width > -1 else ""
    if T.is_floating or T.is_complex:
        p = f".{precision}" if precision > -1 else ""
        conv = "e" if scientific else ("g" if shortest else "f")
        fmt = f"%{flags}{w}{p}{conv}"
        if T.is_complex:
            return _map(input, lambda v: f"({fmt % v.real},{fmt % v.imag})".encode(), object)
        return _map(input, lambda v: (fmt % float(v)).encode(), object)
    if T == dtypes.bool:
        return _map(input, lambda v: b"true" if v else b"false", object)
    if T == dtypes.string:
        return _map(input, _bytes, object)
    fmt = f"%{flags}{w}d"
    return _map(input, lambda v: (fmt % int(v)).encode(), object)


register_op("AsString", inputs=["input: T"], outputs=["output: string"],
            attrs=["T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                   "uint32, uint64, complex64, complex128, bool, string}",
                   "precision: int = -1", "scientific: bool = false", "shortest: bool = false",
                   "width: int = -1", "fill: string = ''"],
            shape_fn=_same_shape, kernel=_as_string_kernel)


def as_string(input, precision=-1, scientific=False, shortest=False,  # noqa: A002
              width=-1, fill="", name=None):
    """Formats each element as a string (printf-style precision/width/fill)."""
    return apply_op("AsString", input=input, precision=precision, scientific=scientific,
                    shortest=shortest, width=width, fill=fill, name=name).outputs[0]


# -- hash buckets ------------------------------------------------------------------------
def _bucket_kernel(hash_fn):
    def kernel(input, *, num_buckets):  # noqa: A002
        return _map(input, lambda s: hash_fn(_bytes(s)) % num_buckets, np.int64)
    return kernel


def _strong_kernel(input, *, num_buckets, key):  # noqa: A002
    k0, k1 = int(key[0]) & 0xFFFFFFFFFFFFFFFF, int(key[1]) & 0xFFFFFFFFFFFFFFFF
    return _map(input, lambda s: string_hash.siphash24(k0, k1, _bytes(s)) % num_buckets,
                np.int64)


register_op("StringToHashBucketFast", inputs=["input: string"], outputs=["output: int64"],
            attrs=["num_buckets: int >= 1"], shape_fn=_same_shape,
            kernel=_bucket_kernel(string_hash.fingerprint64))
register_op("StringToHashBucket", inputs=["string_tensor: string"], outputs=["output: int64"],
            attrs=["num_buckets: int >= 1"], shape_fn=_same_shape,
            kernel=lambda string_tensor, *, num_buckets: _bucket_kernel(string_hash.hash64)(
                string_tensor, num_buckets=num_buckets))
register_op("StringToHashBucketStrong", inputs=["input: string"], outputs=["output: int64"],
            attrs=["num_buckets: int >= 1", "key: list(int)"], shape_fn=_same_shape,
            kernel=_strong_kernel)
for _t in ("StringToNumber", "AsString", "StringToHashBucketFast", "StringToHashBucket",
           "StringToHashBucketStrong"):
    NotDifferentiable(_t)


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """FarmHash Fingerprint64 of each string, modulo `num_buckets`."""
    return apply_op("StringToHashBucketFast", input=input, num_buckets=num_buckets,
                    name=name).outputs[0]


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """SipHash-2-4 (keyed by the two ints of `key`) of each string, modulo
    `num_buckets`."""
    if len(key) != 2:
        raise ValueError(f"Key must have 2 elements, got {len(key)}")
    return apply_op("StringToHashBucketStrong", input=input, num_buckets=num_buckets,
                    key=list(key), name=name).outputs[0]


def string_to_hash_bucket(string_tensor=None, num_buckets=None, name=None,
                          input=None):  # noqa: A002 - TF's name
    """TF's legacy Hash64 of each string, modulo `num_buckets`."""
    if string_tensor is None:
        string_tensor = input
    return apply_op("StringToHashBucket", string_tensor=string_tensor,
                    num_buckets=num_buckets, name=name).outputs[0]
