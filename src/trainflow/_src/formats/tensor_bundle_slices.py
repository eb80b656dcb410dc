"""Tensor slices: TF's TensorSlice, its string and proto forms, and the binary slice keys.

A slice names, per dimension, either the whole extent or `start, length`. Its string form is
TF's: dimensions joined by ':', each `-` (whole) or `start,length`, e.g. "0,4:-". Checkpoints
store a slice of tensor NAME under the key `EncodeTensorNameSlice(NAME, slice)`, an
OrderedCode string: number 0, the escaped name, the rank, then start and length (-1 for a
whole dimension) of each dimension as order-preserving signed numbers.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.protos import tensor_slice_pb2

FULL = -1  # the length of a dimension taken whole


class TensorSlice:
    """An immutable slice specification: a tuple of (start, length) per dimension.

    A length of -1 (`FULL`) takes the whole dimension (start is then 0).

    Args:
      extents: iterable of (start, length) pairs.
    """

    __slots__ = ("extents",)

    def __init__(self, extents=()):
        ext = []
        for start, length in extents:
            start, length = int(start), int(length)
            if length == FULL:
                start = 0
            elif start < 0 or length < 0:
                raise ValueError(f"bad slice extent ({start}, {length}): start and length "
                                 "must be non-negative (or length -1 for a whole dimension)")
            ext.append((start, length))
        self.extents = tuple(ext)

    # -- constructors
    @classmethod
    def full(cls, rank):
        """The slice that takes every dimension of a rank-`rank` tensor whole."""
        return cls([(0, FULL)] * rank)

    @classmethod
    def parse(cls, spec):
        """Parses TF's string form ("0,4:-"). The empty string is a rank-0 full slice.

        Raises:
          ValueError: on a malformed spec.
        """
        if isinstance(spec, bytes):
            spec = spec.decode("ascii")
        if spec == "":
            return cls(())
        extents = []
        for part in spec.split(":"):
            if part == "-":
                extents.append((0, FULL))
                continue
            pieces = part.split(",")
            try:
                if len(pieces) != 2:
                    raise ValueError
                start, length = int(pieces[0]), int(pieces[1])
            except ValueError:
                raise ValueError(f"bad tensor slice spec {spec!r}: expected '-' or "
                                 f"'start,length' per dimension, got {part!r}") from None
            if start < 0 or length < 0:
                raise ValueError(f"bad tensor slice spec {spec!r}: negative start or length")
            extents.append((start, length))
        return cls(extents)

    @classmethod
    def from_proto(cls, proto):
        """Builds a slice from a TensorSliceProto."""
        return cls([(e.start, e.length) if e.HasField("length") else (0, FULL)
                    for e in proto.extent])

    @classmethod
    def from_shape(cls, shape):
        """The slice covering all of `shape` with explicit extents."""
        return cls([(0, int(d)) for d in shape])

    # -- queries
    @property
    def rank(self):
        """Number of dimensions."""
        return len(self.extents)

    def is_full(self):
        """True when every dimension is taken whole (-1 lengths)."""
        return all(length == FULL for _, length in self.extents)

    def covers(self, full_shape):
        """True when the slice spans all of `full_shape` (TF's IsFullSlice)."""
        if self.is_full():
            return True
        return self.shape(full_shape) == tuple(int(d) for d in full_shape) and all(
            start == 0 for start, _ in self.extents)

    def resolved(self, full_shape):
        """Extents with whole dimensions replaced by (0, dim) of `full_shape`.

        Raises:
          ValueError: if the rank differs or an extent runs past the shape.
        """
        full_shape = tuple(int(d) for d in full_shape)
        if len(full_shape) != self.rank:
            raise ValueError(f"tensor slice {self} has rank {self.rank} but the tensor shape "
                             f"{list(full_shape)} has rank {len(full_shape)}")
        out = []
        for (start, length), dim in zip(self.extents, full_shape):
            if length == FULL:
                out.append((0, dim))
            elif start + length > dim:
                raise ValueError(f"tensor slice {self} runs past the shape {list(full_shape)}")
            else:
                out.append((start, length))
        return tuple(out)

    def shape(self, full_shape):
        """The shape of this slice of a tensor of shape `full_shape`."""
        return tuple(length for _, length in self.resolved(full_shape))

    def index(self, full_shape):
        """A tuple of Python slices that selects this slice from a full array."""
        return tuple(slice(s, s + n) for s, n in self.resolved(full_shape))

    def intersect(self, other, full_shape):
        """The overlap of two slices of `full_shape` as a TensorSlice, or None if empty."""
        out = []
        for (s1, n1), (s2, n2) in zip(self.resolved(full_shape), other.resolved(full_shape)):
            lo, hi = max(s1, s2), min(s1 + n1, s2 + n2)
            if hi <= lo:
                return None
            out.append((lo, hi - lo))
        return TensorSlice(out)

    # -- conversions
    def to_proto(self, proto=None):
        """Fills (or creates) a TensorSliceProto the way TF writes it."""
        if proto is None:
            proto = tensor_slice_pb2.TensorSliceProto()
        for start, length in self.extents:
            ext = proto.extent.add()
            if length != FULL:
                if start:
                    ext.start = start
                ext.length = length
        return proto

    def __str__(self):
        return ":".join("-" if n == FULL else f"{s},{n}" for s, n in self.extents)

    def __repr__(self):
        return f"TensorSlice({str(self)!r})"

    def __eq__(self, other):
        return isinstance(other, TensorSlice) and self.extents == other.extents

    def __hash__(self):
        return hash(self.extents)


def parse_shape_and_slice(spec):
    """Parses a Saver shape-and-slice string ("10 3 0,4:-").

    Returns:
      (full_shape tuple, TensorSlice). An empty spec gives (None, None): the whole tensor.

    Raises:
      ValueError: on a malformed spec or a slice that does not fit the shape.
    """
    if isinstance(spec, bytes):
        spec = spec.decode("ascii")
    if not spec:
        return None, None
    parts = spec.split(" ")
    if len(parts) < 2:
        raise ValueError(f"need at least two elements in shape_and_slice spec {spec!r}")
    try:
        shape = tuple(int(p) for p in parts[:-1])
    except ValueError:
        raise ValueError(f"non-numerical dimension in shape_and_slice spec {spec!r}") from None
    sl = TensorSlice.parse(parts[-1])
    sl.resolved(shape)
    return shape, sl


# ----------------------------------------------------------------------------- OrderedCode
def _write_num_increasing(out, value):
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    out.append(len(body))
    out += body


def _escape(s):
    out = bytearray()
    for b in s:
        if b == 0:
            out += b"\x00\xff"
        elif b == 0xFF:
            out += b"\xff\x00"
        else:
            out.append(b)
    return bytes(out)


def _signed_length(value):
    """Bytes used by TF's WriteSignedNumIncreasing: n bytes carry 7n-1 payload bits."""
    x = ~value if value < 0 else value
    return max(1, -(-(x.bit_length() + 1) // 7))


def _header_bits(n):
    # The sign bit and n-1 length bits, all equal to the sign, lead an n-byte encoding.
    return ((1 << n) - 1) << (7 * n)


def _write_signed_num_increasing(out, value):
    n = _signed_length(value)
    if n > 10:
        raise ValueError(f"number {value} too large for OrderedCode")
    raw = (value & ((1 << (8 * n)) - 1)) ^ _header_bits(n)
    out += raw.to_bytes(n, "big")


def encode_tensor_name_slice(name, tensor_slice):
    """The checkpoint key of slice `tensor_slice` of tensor `name` (TF's EncodeTensorNameSlice).

    Args:
      name: the full tensor's name (str or bytes).
      tensor_slice: a TensorSlice.

    Returns:
      bytes.
    """
    if isinstance(name, str):
        name = name.encode("utf-8", "surrogateescape")  # undoes key_str's decoding
    out = bytearray()
    _write_num_increasing(out, 0)
    out += _escape(name) + b"\x00\x01"
    _write_num_increasing(out, tensor_slice.rank)
    for start, length in tensor_slice.extents:
        _write_signed_num_increasing(out, start)
        _write_signed_num_increasing(out, length)
    return bytes(out)


def _read_num_increasing(buf, pos):
    n = buf[pos]
    if n > 8 or pos + 1 + n > len(buf):
        raise ValueError("bad OrderedCode number")
    return int.from_bytes(buf[pos + 1:pos + 1 + n], "big"), pos + 1 + n


def _read_string(buf, pos):
    out = bytearray()
    while pos + 1 < len(buf):
        b = buf[pos]
        if b == 0:
            nxt = buf[pos + 1]
            if nxt == 1:
                return bytes(out), pos + 2
            if nxt != 0xFF:
                raise ValueError("bad OrderedCode string escape")
            out.append(0)
            pos += 2
        elif b == 0xFF:
            if buf[pos + 1] != 0:
                raise ValueError("bad OrderedCode string escape")
            out.append(0xFF)
            pos += 2
        else:
            out.append(b)
            pos += 1
    raise ValueError("unterminated OrderedCode string")


def _read_signed_num_increasing(buf, pos):
    if pos >= len(buf):
        raise ValueError("truncated OrderedCode signed number")
    mask = 0 if buf[pos] & 0x80 else 0xFF  # negative numbers have the header bits inverted
    first = buf[pos] ^ mask
    if first != 0xFF:
        n = 8 - (first ^ 0xFF).bit_length()
    else:
        if pos + 1 >= len(buf):
            raise ValueError("truncated OrderedCode signed number")
        n = 16 - ((buf[pos + 1] ^ mask) ^ 0xFF).bit_length()
    if n > 10 or pos + n > len(buf):
        raise ValueError("bad OrderedCode signed number")
    raw = int.from_bytes(buf[pos:pos + n], "big") ^ _header_bits(n)
    if raw >> (8 * n - 1):
        raw -= 1 << (8 * n)
    return raw, pos + n


def decode_tensor_name_slice(key):
    """Inverse of `encode_tensor_name_slice`.

    Returns:
      (name as str, TensorSlice).

    Raises:
      ValueError: if `key` is not a slice key.
    """
    key = bytes(key)
    try:
        zero, pos = _read_num_increasing(key, 0)
        if zero != 0:
            raise ValueError("the leading number of a slice key must be 0")
        name, pos = _read_string(key, pos)
        rank, pos = _read_num_increasing(key, pos)
        extents = []
        for _ in range(rank):
            start, pos = _read_signed_num_increasing(key, pos)
            length, pos = _read_signed_num_increasing(key, pos)
            extents.append((start, length if length >= 0 else FULL))
        if pos != len(key):
            raise ValueError("trailing bytes after the slice extents")
    except (IndexError, ValueError) as e:
        raise ValueError(f"not a tensor slice key: {key!r} ({e})") from None
    return name.decode("utf-8", "surrogateescape"), TensorSlice(extents)


def is_slice_key(key):
    """True when `key` (bytes) looks like an encoded tensor-slice key (starts with 0x00)."""
    return len(key) > 0 and key[0] == 0


def assemble(full_shape, dtype, pieces, wanted=None, name="?", where=""):
    """Copies stored slices into one array holding slice `wanted` of the full tensor.

    Args:
      full_shape: the full tensor's shape.
      dtype: NumPy dtype of the result.
      pieces: iterable of (TensorSlice, loader) where loader() returns that slice's array.
        Loaders of slices that do not overlap `wanted` are never called.
      wanted: the TensorSlice to build (default: the whole tensor).
      name: the tensor's name, for error messages.
      where: the checkpoint, for error messages.

    Raises:
      InvalidArgumentError: if the stored slices do not cover `wanted`.
    """
    full_shape = tuple(int(d) for d in full_shape)
    wanted = wanted or TensorSlice.full(len(full_shape))
    want = wanted.resolved(full_shape)
    out = np.empty(tuple(n for _, n in want), dtype=dtype)
    covered = np.zeros(out.shape, dtype=bool) if out.size else None
    for stored, loader in pieces:
        overlap = stored.intersect(wanted, full_shape)
        if overlap is None:
            continue
        data = loader()
        have = stored.resolved(full_shape)
        src = tuple(slice(s - hs, s - hs + n) for (s, n), (hs, _) in zip(overlap.extents, have))
        dst = tuple(slice(s - ws, s - ws + n) for (s, n), (ws, _) in zip(overlap.extents, want))
        out[dst] = data[src]
        if covered is not None:
            covered[dst] = True
    if covered is not None and not covered.all():
        raise errors.InvalidArgumentError(
            None, None, f"Does not have sufficient slices for partitioned tensor {name} to "
            f"restore in slice_spec: {wanted}" + (f" (checkpoint {where})" if where else ""))
    return out
