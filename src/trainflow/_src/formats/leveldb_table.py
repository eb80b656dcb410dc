"""The LevelDB SSTable format that TensorFlow uses for `.index` files and V1 checkpoints.

Layout of a table file:

    data block 0 | trailer ... data block N | trailer
    metaindex block | trailer        (always empty when TF writes it)
    index block | trailer            (one entry per data block: separator key -> BlockHandle)
    footer (48 bytes): metaindex BlockHandle, index BlockHandle, zero padding to 40 bytes,
                       then the magic number 0xdb4775248b80fb57 as two little-endian uint32s

A block is a run of entries `varint32 shared | varint32 unshared | varint32 value_len |
key suffix | value` whose keys share a prefix with the previous key, except at restart
points (every `restart_interval` entries), whose offsets end the block as uint32s followed by
their count. The 5-byte trailer holds the compression type (0 none, 1 snappy) and the masked
CRC32C of the block contents plus that type byte.
"""
import bisect
import os
import struct

from trainflow._src.formats import crc32c
from trainflow._src.formats.varint import decode_varint, encode_varint
from trainflow._src.framework import errors

TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_TRAILER_SIZE = 5
NO_COMPRESSION = 0
SNAPPY_COMPRESSION = 1
# TensorFlow's table::Options defaults.
DEFAULT_BLOCK_SIZE = 262144
DEFAULT_RESTART_INTERVAL = 16

_U32 = struct.Struct("<I")


# ----------------------------------------------------------------------------- writing
class _BlockBuilder:
    """Accumulates sorted entries into one block with prefix-compressed keys."""

    def __init__(self, restart_interval):
        self._interval = restart_interval
        self.reset()

    def reset(self):
        self._buf = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last_key = b""

    @property
    def empty(self):
        return not self._buf

    def size_estimate(self):
        return len(self._buf) + 4 * len(self._restarts) + 4

    def add(self, key, value):
        shared = 0
        if self._counter < self._interval:
            last = self._last_key
            limit = min(len(last), len(key))
            while shared < limit and last[shared] == key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buf))
            self._counter = 0
        self._buf += encode_varint(shared)
        self._buf += encode_varint(len(key) - shared)
        self._buf += encode_varint(len(value))
        self._buf += key[shared:]
        self._buf += value
        self._last_key = key
        self._counter += 1

    def finish(self):
        out = self._buf
        for r in self._restarts:
            out += _U32.pack(r)
        out += _U32.pack(len(self._restarts))
        return bytes(out)


def _shortest_separator(start, limit):
    """A short key k with start <= k < limit (TF's bytewise FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        byte = start[i]
        if byte < 0xFF and byte + 1 < limit[i]:
            return start[:i] + bytes([byte + 1])
    return start


def _short_successor(key):
    """A short key k >= key (TF's bytewise FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def _encode_handle(offset, size):
    return encode_varint(offset) + encode_varint(size)


class TableWriter:
    """Writes a table to a binary file object, byte-for-byte as TensorFlow's TableBuilder.

    Keys must be added in strictly increasing bytewise order.

    Args:
      fileobj: a writable binary file object positioned where the table starts.
      block_size: target uncompressed size of a data block.
      restart_interval: entries between restart points in data blocks.
      compression: NO_COMPRESSION (what TF writes) or SNAPPY_COMPRESSION (blocks that shrink
        by at least 12.5% are stored compressed; needs `cramjam` or `python-snappy`).
    """

    def __init__(self, fileobj, block_size=DEFAULT_BLOCK_SIZE,
                 restart_interval=DEFAULT_RESTART_INTERVAL, compression=NO_COMPRESSION):
        if compression not in (NO_COMPRESSION, SNAPPY_COMPRESSION):
            raise ValueError(f"unknown table compression type {compression!r}")
        self._file = fileobj
        self._block_size = block_size
        self._compression = compression
        self._data = _BlockBuilder(restart_interval)
        self._index = _BlockBuilder(1)
        self._offset = 0
        self._last_key = None
        self._pending_handle = None
        self._num_entries = 0
        self._closed = False

    @property
    def num_entries(self):
        """Number of entries added so far."""
        return self._num_entries

    def add(self, key, value):
        """Appends one entry.

        Raises:
          ValueError: if `key` is not greater than the previous key, or the table is finished.
        """
        if self._closed:
            raise ValueError("table is already finished")
        key = bytes(key)
        if self._last_key is not None:
            if key <= self._last_key:
                raise ValueError(f"table keys must be strictly increasing: {key!r} after "
                                 f"{self._last_key!r}")
            # An entry twice the block size or more gets a block of its own.
            if len(key) + len(value) >= 2 * self._block_size:
                self._flush()
        if self._pending_handle is not None:
            sep = _shortest_separator(self._last_key, key)
            self._index.add(sep, _encode_handle(*self._pending_handle))
            self._pending_handle = None
        self._last_key = key
        self._num_entries += 1
        self._data.add(key, value)
        if self._data.size_estimate() >= self._block_size:
            self._flush()

    def _flush(self):
        if self._data.empty:
            return
        self._pending_handle = self._write_block(self._data)

    def _write_block(self, builder):
        raw = builder.finish()
        builder.reset()
        kind = NO_COMPRESSION
        contents = raw
        if self._compression == SNAPPY_COMPRESSION:
            packed = _snappy_compress(raw)
            if len(packed) < len(raw) - len(raw) // 8:
                contents, kind = packed, SNAPPY_COMPRESSION
        return self._write_raw_block(contents, kind)

    def _write_raw_block(self, contents, kind):
        handle = (self._offset, len(contents))
        type_byte = bytes([kind])
        crc = crc32c.mask(crc32c.extend(crc32c.crc32c(contents), type_byte))
        self._file.write(contents)
        self._file.write(type_byte + _U32.pack(crc))
        self._offset += len(contents) + BLOCK_TRAILER_SIZE
        return handle

    def finish(self):
        """Writes the remaining data block, the metaindex and index blocks and the footer.

        Returns:
          The table's size in bytes.
        """
        if self._closed:
            raise ValueError("table is already finished")
        self._flush()
        self._closed = True
        metaindex = self._write_block(_BlockBuilder(DEFAULT_RESTART_INTERVAL))
        if self._pending_handle is not None:
            self._index.add(_short_successor(self._last_key),
                            _encode_handle(*self._pending_handle))
            self._pending_handle = None
        index = self._write_block(self._index)
        footer = _encode_handle(*metaindex) + _encode_handle(*index)
        footer += b"\0" * (FOOTER_SIZE - 8 - len(footer))
        footer += struct.pack("<II", TABLE_MAGIC & 0xFFFFFFFF, TABLE_MAGIC >> 32)
        self._file.write(footer)
        self._offset += len(footer)
        return self._offset


def write_table(path, items, **options):
    """Writes `items` ((key, value) pairs in increasing key order) as a table file at `path`.

    Returns:
      The file's size in bytes.
    """
    with open(path, "wb") as f:
        writer = TableWriter(f, **options)
        for key, value in items:
            writer.add(key, value)
        return writer.finish()


# ----------------------------------------------------------------------------- compression
def _snappy_module():
    try:
        import cramjam
        return ("cramjam", cramjam)
    except ImportError:
        pass
    try:
        import snappy
        return ("snappy", snappy)
    except ImportError:
        return None


def _snappy_compress(raw):
    found = _snappy_module()
    if found is None:
        raise ImportError("writing snappy-compressed table blocks needs the 'cramjam' or "
                          "'python-snappy' package")
    name, mod = found
    if name == "cramjam":
        return bytes(mod.snappy.compress_raw(raw))
    return mod.compress(raw)


def _snappy_uncompress(data, where):
    found = _snappy_module()
    if found is None:
        raise errors.UnimplementedError(
            None, None, f"{where} is snappy-compressed; install the 'cramjam' or "
            "'python-snappy' package to read it")
    name, mod = found
    # Snappy's copy elements expand at most 64 bytes from 3 in the input, so a block that
    # claims more is corrupt; checked before the decoder allocates what it claims.
    try:
        claimed, _ = decode_varint(data, 0)
    except ValueError:
        raise errors.DataLossError(None, None, f"{where}: corrupted snappy block: bad "
                                   "length header") from None
    if claimed > 22 * len(data) + 32:
        raise errors.DataLossError(None, None, f"{where}: corrupted snappy block: claims "
                                   f"{claimed} bytes from {len(data)}")
    try:
        if name == "cramjam":
            return bytes(mod.snappy.decompress_raw(bytes(data)))
        return mod.uncompress(bytes(data))
    except Exception as e:  # noqa: BLE001 - any decoder failure means corrupt data
        raise errors.DataLossError(None, None, f"{where}: corrupted snappy block: {e}") from None


# ----------------------------------------------------------------------------- reading
def _parse_block(contents, where):
    """Decodes all entries of a block; returns (keys, values) lists."""
    n = len(contents)
    if n < 4:
        raise errors.DataLossError(None, None, f"{where}: bad block contents (too short)")
    num_restarts = _U32.unpack_from(contents, n - 4)[0]
    limit = n - 4 - 4 * num_restarts
    if limit < 0:
        raise errors.DataLossError(None, None, f"{where}: bad block contents "
                                   f"({num_restarts} restart points in {n} bytes)")
    keys, values = [], []
    pos = 0
    key = b""
    try:
        while pos < limit:
            shared, pos = decode_varint(contents, pos, limit)
            unshared, pos = decode_varint(contents, pos, limit)
            vlen, pos = decode_varint(contents, pos, limit)
            if shared > len(key) or pos + unshared + vlen > limit:
                raise ValueError("entry overruns the block")
            key = key[:shared] + bytes(contents[pos:pos + unshared])
            pos += unshared
            keys.append(key)
            values.append(bytes(contents[pos:pos + vlen]))
            pos += vlen
    except ValueError as e:
        raise errors.DataLossError(None, None, f"{where}: bad entry in block: {e}") from None
    return keys, values


class TableReader:
    """Reads a table file written by TensorFlow (or `TableWriter`).

    The whole file is read once; data blocks are decoded on first use. Every block's CRC32C
    is checked when it is decoded.

    Args:
      path: the table file.
      verify_checksums: check block CRCs (DataLossError on a mismatch).

    Raises:
      NotFoundError: the file does not exist.
      DataLossError: the file is too short, has a bad magic number, or a corrupt index.
    """

    def __init__(self, path, verify_checksums=True):
        self.path = os.fspath(path)
        self._verify = verify_checksums
        try:
            with open(self.path, "rb") as f:
                self._buf = f.read()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{self.path}; No such file or directory") \
                from None
        except IsADirectoryError:
            raise errors.FailedPreconditionError(None, None, f"{self.path}; Is a directory") \
                from None
        if len(self._buf) < FOOTER_SIZE:
            raise errors.DataLossError(
                None, None, f"{self.path}: file is too short ({len(self._buf)} bytes) "
                "to be an sstable")
        footer = self._buf[-FOOTER_SIZE:]
        lo, hi = struct.unpack_from("<II", footer, FOOTER_SIZE - 8)
        if (hi << 32 | lo) != TABLE_MAGIC:
            raise errors.DataLossError(None, None,
                                       f"{self.path}: not an sstable (bad magic number)")
        try:
            meta_off, pos = decode_varint(footer, 0)
            meta_size, pos = decode_varint(footer, pos)
            index_off, pos = decode_varint(footer, pos)
            index_size, pos = decode_varint(footer, pos)
        except ValueError:
            raise errors.DataLossError(None, None, f"{self.path}: bad table footer") from None
        index = self._read_block(index_off, index_size, "index block")
        self._index_keys, handles = _parse_block(index, self._where(index_off, "index block"))
        self._handles = []
        for h in handles:
            try:
                off, p = decode_varint(h, 0)
                size, _ = decode_varint(h, p)
            except ValueError:
                raise errors.DataLossError(
                    None, None, f"{self._where(index_off, 'index block')}: bad block handle") \
                    from None
            self._handles.append((off, size))
        self._blocks = {}

    def _where(self, offset, what="block"):
        return f"table {self.path}, {what} at offset {offset}"

    def _read_block(self, offset, size, what="data block"):
        where = self._where(offset, what)
        if offset + size + BLOCK_TRAILER_SIZE > len(self._buf) - FOOTER_SIZE:
            raise errors.DataLossError(None, None, f"{where}: truncated block read "
                                       f"({size} bytes past the end of the file)")
        contents = memoryview(self._buf)[offset:offset + size]
        kind = self._buf[offset + size]
        if self._verify:
            stored = crc32c.unmask(_U32.unpack_from(self._buf, offset + size + 1)[0])
            actual = crc32c.crc32c(self._buf[offset:offset + size + 1])
            if stored != actual:
                raise errors.DataLossError(None, None, f"{where}: block checksum mismatch "
                                           f"(stored {stored:#010x}, computed {actual:#010x})")
        if kind == NO_COMPRESSION:
            return contents
        if kind == SNAPPY_COMPRESSION:
            return _snappy_uncompress(contents, where)
        raise errors.DataLossError(None, None, f"{where}: bad block type {kind}")

    def _block(self, i):
        block = self._blocks.get(i)
        if block is None:
            off, size = self._handles[i]
            where = self._where(off, "data block")
            block = _parse_block(self._read_block(off, size), where)
            self._blocks[i] = block
        return block

    @property
    def num_blocks(self):
        """Number of data blocks."""
        return len(self._handles)

    def seek(self, key=b""):
        """Yields (key, value) pairs in key order, starting at the first key >= `key`."""
        key = bytes(key)
        start = bisect.bisect_left(self._index_keys, key)
        for i in range(start, len(self._handles)):
            keys, values = self._block(i)
            j = bisect.bisect_left(keys, key) if i == start else 0
            for k in range(j, len(keys)):
                yield keys[k], values[k]

    def items(self):
        """Yields every (key, value) pair in key order."""
        return self.seek(b"")

    def keys(self):
        """Yields every key in order."""
        return (k for k, _ in self.seek(b""))

    def get(self, key, default=None):
        """Returns the value stored under `key`, or `default`."""
        key = bytes(key)
        i = bisect.bisect_left(self._index_keys, key)
        if i >= len(self._handles):
            return default
        keys, values = self._block(i)
        j = bisect.bisect_left(keys, key)
        if j < len(keys) and keys[j] == key:
            return values[j]
        return default

    def __contains__(self, key):
        return self.get(key) is not None
