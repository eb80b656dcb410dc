"""The Feature bytes of chosen keys in a batch of serialized Examples, found with NumPy
over all records at once (no per-record protobuf objects).

An Example is `0x0a len Features`, and Features a run of map entries
`0x0a len (0x0a len key 0x12 len Feature)`. The scan walks the j-th entry of every
record in one vectorized step, so its Python cost grows with the entries of a record,
not with the records. Any other form (another field, a varint longer than 3 bytes, a
key missing or repeated in a record, more than `_MAX_ENTRIES` entries) returns None and
the caller parses record by record.
"""
import numpy as np

from trainflow._src.formats.varint import encode_varint

_MAX_ENTRIES = 64
_PAD = 16  # bytes past the end a gather may read (14 for a 10-byte varint)


def _varint(data, pos):
    """(value, byte count) of the varints at `pos`; None if one is over 3 bytes."""
    b0 = data[pos]
    if (b0 < 0x80).all():  # the common case: one byte each
        return b0.astype(np.int64), 1
    b0 = b0.astype(np.int64)
    b1 = data[pos + 1].astype(np.int64)
    b2 = data[pos + 2].astype(np.int64)
    one = b0 < 0x80
    two = ~one & (b1 < 0x80)
    three = ~one & ~two & (b2 < 0x80)
    if not (one | two | three).all():
        return None
    value = np.where(one, b0, (b0 & 0x7F) | ((b1 & 0x7F) << 7))
    value = np.where(three, value | (b2 << 14), value)
    return value, np.where(one, 1, np.where(two, 2, 3))


def _entry(data, p, e):
    """(key start, key length, value start, value length, entry end) of the map entries
    at `p` (each ending by `e`), or None."""
    if (data[p] != 0x0A).any():
        return None
    got = _varint(data, p + 1)
    if got is None:
        return None
    entry_len, w = got
    s = p + 1 + w                      # the entry's fields
    stop = s + entry_len
    if (stop > e).any() or (data[s] != 0x0A).any():
        return None
    got = _varint(data, s + 1)
    if got is None:
        return None
    key_len, w = got
    ks = s + 1 + w
    vt = ks + key_len                  # the value's tag
    if (vt >= stop).any() or (data[vt] != 0x12).any():
        return None
    got = _varint(data, vt + 1)
    if got is None:
        return None
    val_len, w = got
    vs = vt + 1 + w
    if (vs + val_len != stop).any():
        return None
    return ks, key_len, vs, val_len, stop


def _entries(data, starts, ends):
    """(record, key start, key length, value start, value length) of every map entry."""
    n = len(starts)
    if (data[starts] != 0x0A).any():
        return None
    got = _varint(data, starts + 1)
    if got is None:
        return None
    length, width = got
    pos = starts + 1 + width
    end = pos + length
    if (end != ends).any():
        return None
    rows = np.arange(n)
    found = []
    for _ in range(_MAX_ENTRIES):
        active = pos < end
        if active.all():
            r, p, e = rows, pos, end
        elif active.any():
            r, p, e = rows[active], pos[active], end[active]
        else:
            break
        got = _entry(data, p, e)
        if got is None:
            return None
        ks, key_len, vs, val_len, stop = got
        found.append((r, ks, key_len, vs, val_len))
        if r is rows:
            pos = stop
        else:
            pos = pos.copy()
            pos[active] = stop
    else:
        return None
    if not found:
        return None
    return [np.concatenate(parts) for parts in zip(*found)]


class Columns:
    """Where each wanted key's Feature bytes lie in the joined records: `starts` and
    `lengths` (one per record) into `data` (the joined bytes as uint8, zero padded)."""

    def __init__(self, joined, data, spans):
        self.joined, self.data, self.spans = joined, data, spans

    def parts(self, key):
        """Each record's Feature bytes of `key`."""
        joined = self.joined
        starts, lengths = self.spans[key]
        return [joined[s:s + m] for s, m in zip(starts.tolist(), lengths.tolist())]


def feature_columns(records, keys):
    """A Columns of `keys` over `records`, or None (see the module)."""
    n = len(records)
    if n == 0:
        return None
    lengths = np.fromiter(map(len, records), np.int64, n)
    joined = b"".join(records)
    data = np.frombuffer(joined + b"\0" * _PAD, np.uint8)
    starts = np.cumsum(lengths) - lengths
    entries = _entries(data, starts, starts + lengths)
    if entries is None:
        return None
    rec, ks, kl, vs, vl = entries
    spans = {}
    for key in keys:
        kb = key.encode() if isinstance(key, str) else key
        match = kl == len(kb)
        if kb and match.any():
            idx = np.nonzero(match)[0]
            window = data[ks[idx, None] + np.arange(len(kb))]
            ok = (window == np.frombuffer(kb, np.uint8)).all(axis=1)
            idx = idx[ok]
        else:
            idx = np.nonzero(match)[0]
        if len(idx) != n:
            return None
        order = np.argsort(rec[idx], kind="stable")
        idx = idx[order]
        if (rec[idx] != np.arange(n)).any():
            return None
        spans[key] = (vs[idx], vl[idx])
    return Columns(joined, data, spans)


def feature_parts(records, keys):
    """{key: list of each record's Feature bytes} for `keys`, or None (see the module)."""
    columns = feature_columns(records, keys)
    if columns is None:
        return None
    return {key: columns.parts(key) for key in keys}


def _gather(data, starts, offset, width):
    return data[starts[:, None] + (offset + np.arange(width))]


def _float_column(columns, key, size):
    """Packed floats: 0x12 L1 0x0a L2 <4*size bytes>, the same bytes in every record."""
    starts, lengths = columns.spans[key]
    body = 4 * size
    inner = b"\x0a" + encode_varint(body)
    prefix = b"\x12" + encode_varint(len(inner) + body) + inner
    if not (lengths == len(prefix) + body).all():
        return None
    data = columns.data
    head = _gather(data, starts, 0, len(prefix))
    if not (head == np.frombuffer(prefix, np.uint8)).all():
        return None
    return _gather(data, starts, len(prefix), body).view("<f4").astype(np.float32)


def _int64_scalar_column(columns, key):
    """One varint: 0x1a L1 0x0a L2 <varint>, with L1 == L2 + 2 and L2 its length."""
    starts, lengths = columns.spans[key]
    data = columns.data
    width = lengths - 4
    if ((width < 1) | (width > 10)).any():
        return None
    head = _gather(data, starts, 0, 4).astype(np.int64)
    if not ((head[:, 0] == 0x1A) & (head[:, 1] == width + 2) & (head[:, 2] == 0x0A)
            & (head[:, 3] == width)).all():
        return None
    raw = _gather(data, starts, 4, 10).astype(np.uint64)
    inside = np.arange(10) < width[:, None]
    more = raw >= 0x80
    # each byte but the last of a varint has its high bit set, the last does not
    last = np.arange(10) == (width[:, None] - 1)
    if not (np.where(last, ~more, more) | ~inside).all():
        return None
    shifts = (7 * np.arange(10)).astype(np.uint64)
    value = np.bitwise_or.reduce(np.where(inside, (raw & np.uint64(0x7F)) << shifts,
                                          np.uint64(0)), axis=1)
    return value.view(np.int64)


def fast_column(columns, key, np_dtype, shape):
    """The [records] + shape array of `key` decoded from the spans, or None."""
    size = int(np.prod(shape, dtype=np.int64))
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.float32 and size > 0:
        values = _float_column(columns, key, size)
    elif np_dtype == np.int64 and size == 1:
        values = _int64_scalar_column(columns, key)
    else:
        return None
    if values is None:
        return None
    return values.reshape((len(values),) + tuple(shape))
