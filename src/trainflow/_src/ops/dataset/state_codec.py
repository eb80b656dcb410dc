"""Iterator state as bytes: what `ElementIterator.save()` returns, written so that
`DeserializeIterator` can read it back in another process, and reject anything else.

The format (ours; TensorFlow's own iterator state is a graph of its C++ iterators):
  MAGIC | masked CRC32C of the body (4 bytes, little-endian) | body
where the body is UTF-8 JSON of the saved data with tagged values for what JSON lacks:
  {"$b": base64}                              bytes
  {"$a": dtype, "s": shape, "d": base64}      a NumPy array or scalar (fixed-size dtypes)
  {"$S": [base64 ...], "s": shape}            a NumPy array of strings (object dtype)
  {"$t": [...]}                               a tuple
  {"$m": [[key, value] ...]}                  a dict
  {"$end": 1}                                 END
  {"$e": class name, "m": message}            an error waiting in a buffer
Lists, str, int, float, bool and None are themselves. Bytes that are not this format
raise DataLossError (wrong magic, bad checksum, bad JSON); well-formed bytes holding
values of the wrong kind raise InvalidArgumentError. Decoding never runs code and never
allocates more than the bytes describe.
"""
import base64
import binascii
import json
import struct

import numpy as np

from trainflow._src.formats import crc32c
from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv

MAGIC = b"TFLOW-ITERATOR-STATE\x01"
# Errors a buffer may hold that decode back to their own class.
_BUILTIN_ERRORS = {"ValueError": ValueError, "TypeError": TypeError}


def _bad(message):
    return errors.InvalidArgumentError(None, None, f"Invalid iterator state: {message}")


def _b64(data):
    return base64.b64encode(bytes(data)).decode("ascii")


def _unb64(text):
    if not isinstance(text, str):
        raise _bad(f"expected base64 text, got {type(text).__name__}")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError) as e:
        raise _bad(f"bad base64 data ({e})") from None


def _to_json(value):
    """`value` (saved iterator data) as JSON-ready data; UnimplementedError for what the
    format cannot hold."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype == object:
            flat = [x.encode("utf-8") if isinstance(x, str) else x
                    for x in arr.reshape(-1).tolist()]
            if not all(isinstance(x, bytes) for x in flat):
                raise errors.UnimplementedError(
                    None, None, "Cannot checkpoint an iterator holding an array of "
                                "Python objects")
            return {"$S": [_b64(x) for x in flat], "s": list(arr.shape)}
        shape = list(arr.shape)  # ascontiguousarray makes a 0-d array 1-d
        arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
        return {"$a": arr.dtype.str, "s": shape, "d": _b64(arr.tobytes())}
    if isinstance(value, (bytes, bytearray)):
        return {"$b": _b64(value)}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, tuple):
        return {"$t": [_to_json(v) for v in value]}
    if isinstance(value, dict):
        return {"$m": [[_to_json(k), _to_json(v)] for k, v in value.items()]}
    if value is dv.END:
        return {"$end": 1}
    if isinstance(value, errors.OpError) or type(value) in _BUILTIN_ERRORS.values():
        message = value.message if isinstance(value, errors.OpError) else str(value)
        return {"$e": type(value).__name__, "m": message}
    raise errors.UnimplementedError(
        None, None, f"Cannot checkpoint an iterator holding a {type(value).__name__}")


def _array(tagged):
    if not isinstance(tagged["$a"], str):
        raise _bad(f"bad dtype {tagged['$a']!r:.80}")
    try:
        dtype = np.dtype(tagged["$a"])
    except (TypeError, ValueError) as e:
        raise _bad(f"unknown dtype {tagged['$a']!r}") from e
    if dtype.hasobject or dtype.kind not in "biufcSU?" or dtype.itemsize == 0:
        raise _bad(f"dtype {dtype} cannot be restored")
    shape = _shape(tagged.get("s"))
    data = _unb64(tagged.get("d"))
    if len(data) != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
        raise _bad(f"{len(data)} bytes do not hold an array of shape {shape} and {dtype}")
    return np.frombuffer(data, dtype=dtype).astype(dtype.newbyteorder("=")).reshape(shape)


def _shape(shape):
    if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise _bad(f"bad array shape {shape!r}")
    return tuple(shape)


def _strings(tagged):
    shape = _shape(tagged.get("s"))
    values = tagged["$S"]
    if not isinstance(values, list) or len(values) != int(np.prod(shape, dtype=np.int64)):
        raise _bad(f"string array of shape {shape} with a wrong number of values")
    out = np.empty(len(values), dtype=object)
    out[:] = [_unb64(v) for v in values]
    return out.reshape(shape)


def _error(tagged):
    name, message = tagged["$e"], tagged.get("m")
    if not isinstance(name, str):
        raise _bad(f"bad error class {name!r:.80}")
    cls = _BUILTIN_ERRORS.get(name) or getattr(errors, name, None)
    if not isinstance(cls, type) or not issubclass(cls, Exception) or \
            not isinstance(message, str):
        raise _bad(f"unknown error class {name!r}")
    if issubclass(cls, errors.OpError):
        return cls(None, None, message)
    return cls(message)


def _from_json(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if not isinstance(value, dict) or len(value) == 0:
        raise _bad(f"unexpected value {value!r:.80}")
    if "$a" in value:
        return _array(value)
    if "$S" in value:
        return _strings(value)
    if "$b" in value:
        return _unb64(value["$b"])
    if "$t" in value and isinstance(value["$t"], list):
        return tuple(_from_json(v) for v in value["$t"])
    if "$m" in value and isinstance(value["$m"], list):
        out = {}
        for pair in value["$m"]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise _bad("a dict entry is not a [key, value] pair")
            key = _from_json(pair[0])
            try:
                out[key] = _from_json(pair[1])
            except TypeError:
                raise _bad(f"unhashable dict key {key!r:.80}") from None
        return out
    if value.get("$end") == 1:
        return dv.END
    if "$e" in value:
        return _error(value)
    raise _bad(f"unknown tag in {sorted(value)[:3]}")


def encode(data):
    """`data` (plain saved iterator data) as bytes."""
    body = json.dumps(_to_json(data), separators=(",", ":"), allow_nan=True).encode("utf-8")
    return MAGIC + struct.pack("<I", crc32c.masked_crc32c(body)) + body


def decode(blob):
    """The data `encode` wrote into `blob`: DataLossError for corrupt or foreign bytes,
    InvalidArgumentError for well-formed bytes holding values of the wrong kind."""
    blob = bytes(blob)
    head = len(MAGIC) + 4
    if len(blob) < head or not blob.startswith(MAGIC):
        raise errors.DataLossError(None, None, "Iterator state is corrupt or was not "
                                               "written by SerializeIterator (bad header)")
    (crc,) = struct.unpack("<I", blob[len(MAGIC):head])
    body = blob[head:]
    if crc32c.masked_crc32c(body) != crc:
        raise errors.DataLossError(None, None, "Iterator state is corrupt (checksum "
                                               "mismatch)")
    try:
        parsed = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise errors.DataLossError(None, None, f"Iterator state is corrupt ({e})") from None
    try:
        return _from_json(parsed)
    except RecursionError:
        raise _bad("nested too deeply") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as e:
        raise _bad(f"{type(e).__name__}: {e}") from None
