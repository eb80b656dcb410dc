"""parse_example's fast path for fixed-length dense features.

Records are parsed as RawExample (Example with each Feature left serialized), and a
column is decoded from the Feature bytes of all records at once when every record
holds the feature in the compact form TensorFlow's writers produce (packed floats and
ints with one-byte length headers, single short strings). Anything else (a missing
feature, another kind, another count or encoding) returns None, and the caller takes
the exact per-record path, which fills defaults and words the errors.
"""
import numpy as np

from trainflow._src.formats.varint import encode_varint
from trainflow._src.protos.feature_pb2 import Feature
from trainflow._src.protos.raw_example_pb2 import RawExample


def raw_maps(records):
    """The {key: Feature bytes} map of each record, or None if one doesn't parse."""
    parse = RawExample.FromString
    try:
        return [parse(r).features.feature for r in records]
    except Exception:  # noqa: BLE001 - the exact path reports the bad record
        return None


def _column_bytes(maps, key):
    parts = [m.get(key) for m in maps]
    if None in parts:
        return None
    return parts


def _floats(parts, size):
    body = 4 * size
    inner = b"\x0a" + encode_varint(body)
    prefix = b"\x12" + encode_varint(len(inner) + body) + inner
    width = len(prefix) + body
    n = len(parts)
    lengths = np.fromiter(map(len, parts), np.int64, n)
    if not (lengths == width).all():
        return None
    rows = np.frombuffer(b"".join(parts), np.uint8).reshape(n, width)
    if not (rows[:, :len(prefix)] == np.frombuffer(prefix, np.uint8)).all():
        return None
    return rows[:, len(prefix):].copy().view("<f4").astype(np.float32, copy=False)


def _int64s(parts, size):
    n = len(parts)
    lengths = np.fromiter(map(len, parts), np.int64, n)
    if n == 0 or (lengths < 4).any():
        return None
    joined = b"".join(parts)
    data = np.frombuffer(joined, np.uint8)
    starts = np.cumsum(lengths) - lengths
    l1, l2 = data[starts + 1].astype(np.int64), data[starts + 3].astype(np.int64)
    if not ((data[starts] == 0x1A).all() and (data[starts + 2] == 0x0A).all()
            and (l1 < 0x80).all() and (l2 < 0x80).all() and (l1 == l2 + 2).all()
            and (lengths == l1 + 2).all()):
        return None
    # Each varint ends at its one byte below 0x80; the header bytes are all below it.
    high = (data >= 0x80).astype(np.int64)
    counts = (lengths - 4) - np.add.reduceat(high, starts)
    if not (counts == size).all():
        return None
    values = Feature.FromString(joined).int64_list.value
    return np.array(values, dtype=np.int64)


def _strings(parts):
    # One short string per record: 0x0a L1 0x0a L2 data, with L1 == L2 + 2 < 0x80.
    n = len(parts)
    lengths = np.fromiter(map(len, parts), np.int64, n)
    if n == 0 or (lengths < 4).any():
        return None
    data = np.frombuffer(b"".join(parts), np.uint8)
    starts = np.cumsum(lengths) - lengths
    l1, l2 = data[starts + 1].astype(np.int64), data[starts + 3].astype(np.int64)
    if not ((data[starts] == 0x0A).all() and (data[starts + 2] == 0x0A).all()
            and (l1 < 0x80).all() and (l1 == l2 + 2).all() and (lengths == l1 + 2).all()):
        return None
    out = np.empty(n, dtype=object)
    out[:] = [fb[4:] for fb in parts]
    return out


def dense_column(maps, key, np_dtype, shape):
    """The [records] + shape array of fixed-length feature `key`, or None."""
    parts = _column_bytes(maps, key)
    if parts is None:
        return None
    return column_from_parts(parts, np_dtype, shape)


def column_from_parts(parts, np_dtype, shape):
    """The [records] + shape array from each record's Feature bytes, or None."""
    size = int(np.prod(shape, dtype=np.int64))
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.float32:
        values = _floats(parts, size)
    elif np_dtype == np.int64:
        values = _int64s(parts, size)
    elif np_dtype == np.dtype(object) and size == 1:
        values = _strings(parts)
    else:
        return None
    if values is None:
        return None
    return values.reshape((len(parts),) + tuple(shape))
