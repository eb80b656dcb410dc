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

_MAX_ENTRIES = 64
_PAD = 8


def _varint(data, pos):
    """(value, byte count) of the varints at `pos`; None if one is over 3 bytes."""
    b0 = data[pos].astype(np.int64)
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
        if not active.any():
            break
        r, p, e = rows[active], pos[active], end[active]
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
        found.append((r, ks, key_len, vs, val_len))
        pos = pos.copy()
        pos[active] = stop
    else:
        return None
    if not found:
        return None
    return [np.concatenate(parts) for parts in zip(*found)]


def feature_parts(records, keys):
    """{key: list of each record's Feature bytes} for `keys`, or None (see the module)."""
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
    out = {}
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
        out[key] = [joined[s:s + m] for s, m in zip(vs[idx].tolist(), vl[idx].tolist())]
    return out
