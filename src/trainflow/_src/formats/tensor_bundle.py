"""Tensor bundles: TensorFlow's V2 checkpoint format (`PREFIX.index` + `PREFIX.data-*`).

`PREFIX.index` is a LevelDB-format table: the empty key holds a BundleHeaderProto
(num_shards, endianness, version) and every other key, in bytewise order, a
BundleEntryProto (dtype, shape, shard_id, offset, size, masked CRC32C, slices).
`PREFIX.data-SSSSS-of-NNNNN` holds the tensors' bytes back to back:

* numeric tensors: their little-endian bytes; the CRC covers them;
* string tensors: varint64 length of each element, a uint32 masked CRC32C of the lengths
  (each taken as a little-endian uint32, or uint64 past 4 GiB), then the bytes; the entry's
  CRC covers those lengths, the 4 checksum bytes, then the bytes;
* a partitioned tensor: one entry under its name with the full shape and `slices` (no data),
  and one entry per slice under `encode_tensor_name_slice(name, slice)`.
"""
import os
import struct

import numpy as np

from trainflow._src.formats import atomic
from trainflow._src.formats import crc32c
from trainflow._src.formats import leveldb_table
from trainflow._src.formats.varint import encode_varint
from trainflow._src.formats.tensor_bundle_slices import TensorSlice, encode_tensor_name_slice
from trainflow._src.framework import dtypes
from trainflow._src.framework import errors
from trainflow._src.protos import tensor_bundle_pb2

HEADER_KEY = b""
FORMAT_VERSION = 1  # producer version TF writes (kTensorBundleVersion)
MIN_CONSUMER = 0
_WRITE_BUFFER = 1 << 20
_COPY_CHUNK = 8 << 20
_LITTLE_HOST = np.little_endian


def data_filename(prefix, shard_id, num_shards):
    """`PREFIX.data-00000-of-00001` style name of one data shard."""
    return f"{os.fspath(prefix)}.data-{shard_id:05d}-of-{num_shards:05d}"


def index_filename(prefix):
    """`PREFIX.index`, the bundle's metadata table (TF's MetaFilename)."""
    return f"{os.fspath(prefix)}.index"


def as_key(key):
    """A tensor key as bytes (str keys are UTF-8 encoded)."""
    if isinstance(key, str):
        return key.encode("utf-8", "surrogateescape")
    return bytes(key)


def key_str(key):
    """A key as str for messages and name maps (binary slice keys survive the round trip)."""
    return key.decode("utf-8", "surrogateescape") if isinstance(key, bytes) else key


def readonly_bytes(arr):
    """A read-only, C-contiguous uint8 view of `arr`'s buffer (what the CRC library takes)."""
    view = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    view.flags.writeable = False
    return view


# TF's C++ tensors hold int4 and int2 as one sign-extended byte each; ml_dtypes' arrays keep
# only the low bits in theirs, so these two go to and from files as int8.
SIGN_EXTENDED = frozenset([dtypes.int4, dtypes.int2])


def file_layout(arr, dtype):
    """`arr` as its bytes go into a file: int4/int2 widened to int8, the rest as they are."""
    return arr.astype(np.int8) if dtype in SIGN_EXTENDED else arr


def to_little_endian(arr):
    """`arr` with a little-endian (or byte-order-free) dtype, converting only if needed."""
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and not _LITTLE_HOST):
        return arr.astype(arr.dtype.newbyteorder("<"))
    return arr


# ----------------------------------------------------------------------------- values
def as_tensor_value(value, dtype=None):
    """Converts `value` into an ndarray ready to save, and its trainflow DType.

    Strings (str, bytes, NumPy 'S'/'U' arrays) become object arrays of bytes (DT_STRING).

    Raises:
      TypeError: if the value's dtype has no TensorFlow equivalent or cannot be saved.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    arr = value if isinstance(value, np.ndarray) else None
    if arr is None:
        if dtype is not None and dtype != dtypes.string:
            arr = np.asarray(value, dtype=dtype.as_numpy_dtype)
        else:
            arr = np.asarray(value)
    if dtype is None:
        dtype = dtypes.as_dtype(arr.dtype)
    if dtype == dtypes.string:
        if arr.dtype.kind == "U" or arr.dtype.kind == "S" or arr.dtype == object:
            flat = [x.encode("utf-8") if isinstance(x, str) else bytes(x)
                    for x in arr.reshape(-1).tolist()]
            out = np.empty(len(flat), dtype=object)
            out[:] = flat
            return out.reshape(arr.shape), dtype
        raise TypeError(f"cannot save a {arr.dtype} array as DT_STRING")
    if dtype in (dtypes.resource, dtypes.variant):
        raise TypeError(f"cannot save a {dtype.name} tensor in a tensor bundle")
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    return arr, dtype


def encode_string_tensor(flat):
    """Serializes a flat sequence of bytes as TF stores DT_STRING data.

    Returns:
      (list of bytes chunks to write, total size, unmasked CRC32C of the entry).
    """
    lengths = bytearray()
    crc = 0
    for s in flat:
        n = len(s)
        lengths += encode_varint(n)
        crc = crc32c.extend(crc, struct.pack("<I", n) if n <= 0xFFFFFFFF else
                            struct.pack("<Q", n))
    checksum = struct.pack("<I", crc32c.mask(crc))
    crc = crc32c.extend(crc, checksum)
    chunks = [bytes(lengths), checksum]
    size = len(lengths) + 4
    for s in flat:
        if s:
            crc = crc32c.extend(crc, s)
            chunks.append(s)
            size += len(s)
    return chunks, size, crc


# ----------------------------------------------------------------------------- writer
class BundleWriter:
    """Writes one tensor bundle (a V2 checkpoint) at `prefix`, atomically.

    Tensors are written to temporary files beside the final ones, which `finish()` fsyncs
    and moves into place with `atomic.commit` (data first, the index last), so an interrupted
    save leaves any existing checkpoint at the same prefix readable: before the commit's
    journal exists the old pair is untouched, after it readers follow the journal to the
    complete new pair. Temporaries of killed saves in the directory are removed (or, if
    their commit had begun, rolled forward) when a writer starts. Entries are sorted by key
    in the index; data is laid out in the order of `add` calls (TF's Saver adds in
    sorted-name order).

    Args:
      prefix: the checkpoint prefix (path without `.index`).
      data_alignment: pad each tensor's data to this many bytes (TF's default 1).
      sync: fsync the files (and directory) before and after the renames.

    Use as a context manager, or call `finish()`; `abort()` deletes the temporary files.
    """

    def __init__(self, prefix, data_alignment=1, sync=True):
        self.prefix = os.fspath(prefix)
        self._alignment = int(data_alignment)
        self._sync = sync
        self._entries = {}
        self._size = 0
        self._closed = False
        directory = os.path.dirname(self.prefix) or "."
        os.makedirs(directory, exist_ok=True)
        atomic.clean_stale(directory)
        self._data_tmp = atomic.temp_path(data_filename(self.prefix, 0, 1))
        self._index_tmp = atomic.temp_path(index_filename(self.prefix))
        self._chunk = None
        try:
            self._out = open(self._data_tmp, "wb", buffering=_WRITE_BUFFER)
        except BaseException:
            atomic.release(self._data_tmp, self._index_tmp)
            raise

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            if not self._closed:
                self.finish()
        else:
            self.abort()
        return False

    def __del__(self):
        # A writer dropped without finish() must not leave temporary files behind.
        try:
            if not self._closed:
                self.abort()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _check_open(self):
        if self._closed:
            raise ValueError(f"BundleWriter for {self.prefix} is already finished")

    def _new_entry(self, key):
        if key == HEADER_KEY:
            raise ValueError("the empty key is reserved for the bundle header")
        if key in self._entries:
            raise errors.InvalidArgumentError(None, None,
                                              f"Adding duplicate key: {key_str(key)}")
        entry = tensor_bundle_pb2.BundleEntryProto()
        self._entries[key] = entry
        return entry

    def add(self, key, value, dtype=None):
        """Adds tensor `value` (ndarray or array-like) under `key` (str or bytes).

        Args:
          key: the tensor's name.
          value: the tensor; strings as bytes/str/object arrays.
          dtype: optional trainflow DType (or anything `as_dtype` takes) to save it as.

        Raises:
          InvalidArgumentError: on a duplicate key.
          TypeError: if the value cannot be saved.
        """
        self._check_open()
        key = as_key(key)
        arr, dt = as_tensor_value(value, dtype)
        entry = self._new_entry(key)
        entry.dtype = dt.as_datatype_enum
        entry.shape.SetInParent()
        for d in arr.shape:
            entry.shape.dim.add().size = d
        entry.offset = self._size
        try:
            if dt == dtypes.string:
                chunks, size, crc = encode_string_tensor(arr.reshape(-1).tolist())
                for chunk in chunks:
                    self._out.write(chunk)
            else:
                crc, size = self._write_numeric(to_little_endian(file_layout(arr, dt)))
        except BaseException:
            self.abort()
            raise
        entry.size = size
        entry.crc32c = crc32c.mask(crc)
        self._size += size
        pad = -self._size % self._alignment
        if pad:
            self._out.write(b"\0" * pad)
            self._size += pad

    def _write_numeric(self, arr):
        """Writes an array's bytes; returns (unmasked CRC32C, size).

        The bytes are copied chunk by chunk into a private buffer, and the CRC and the write
        both use that copy, so a tensor updated by another thread while it is being saved
        still gets a checksum that matches the bytes in the file (as TF's writer ensures).
        """
        src = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
        size = src.size
        if size <= _WRITE_BUFFER:
            data = bytes(src)
            self._out.write(data)
            return (crc32c.crc32c(data) if size else 0), size
        if self._chunk is None:
            self._chunk = np.empty(_COPY_CHUNK, dtype=np.uint8)
            self._chunk_ro = self._chunk.view()
            self._chunk_ro.flags.writeable = False
        crc = 0
        for start in range(0, size, _COPY_CHUNK):
            n = min(_COPY_CHUNK, size - start)
            np.copyto(self._chunk[:n], src[start:start + n])
            chunk = self._chunk_ro[:n]
            crc = crc32c.extend(crc, chunk)
            self._out.write(chunk)
        return crc, size

    def add_slice(self, full_name, full_shape, slice_spec, value, dtype=None):
        """Adds one slice of a partitioned tensor.

        Args:
          full_name: the full tensor's name.
          full_shape: the full tensor's shape.
          slice_spec: a TensorSlice or its string form ("0,4:-").
          value: the slice's data; its shape must be the slice's shape.
          dtype: optional DType to save as.

        Raises:
          ValueError: if the slice does not fit `full_shape` or `value` has the wrong shape.
          TypeError: if the dtype differs from earlier slices of the same tensor.
        """
        self._check_open()
        full_key = as_key(full_name)
        full_shape = tuple(int(d) for d in full_shape)
        sl = slice_spec if isinstance(slice_spec, TensorSlice) else TensorSlice.parse(slice_spec)
        arr, dt = as_tensor_value(value, dtype)
        if arr.shape != sl.shape(full_shape):
            raise ValueError(f"slice {sl} of {key_str(full_key)} {list(full_shape)} has shape "
                             f"{list(sl.shape(full_shape))} but the value has shape "
                             f"{list(arr.shape)}")
        if sl.covers(full_shape):
            return self.add(full_key, arr, dt)
        entry = self._entries.get(full_key)
        if entry is None:
            entry = self._new_entry(full_key)
            entry.dtype = dt.as_datatype_enum
            entry.shape.SetInParent()
            for d in full_shape:
                entry.shape.dim.add().size = d
        else:
            if not entry.slices:
                raise errors.InvalidArgumentError(
                    None, None, f"Adding duplicate key: {key_str(full_key)}")
            if entry.dtype != dt.as_datatype_enum:
                raise TypeError(f"slice of {key_str(full_key)} has dtype {dt.name}, earlier "
                                f"slices have {dtypes.as_dtype(entry.dtype).name}")
            if tuple(d.size for d in entry.shape.dim) != full_shape:
                raise ValueError(f"slice of {key_str(full_key)} gives full shape "
                                 f"{list(full_shape)}, earlier slices "
                                 f"{[d.size for d in entry.shape.dim]}")
        sl.to_proto(entry.slices.add())
        self.add(encode_tensor_name_slice(full_key, sl), arr, dt)

    def _header(self):
        header = tensor_bundle_pb2.BundleHeaderProto()
        header.num_shards = 1
        header.endianness = tensor_bundle_pb2.BundleHeaderProto.LITTLE
        header.version.producer = FORMAT_VERSION
        header.version.min_consumer = MIN_CONSUMER
        return header

    def finish(self):
        """Writes the index, then moves data and index into place (index last).

        Returns:
          The prefix.
        """
        self._check_open()
        self._closed = True
        try:
            self._out.flush()
            if self._sync:
                os.fsync(self._out.fileno())
            self._out.close()
            items = [(HEADER_KEY, self._header().SerializeToString())]
            items += [(k, self._entries[k].SerializeToString()) for k in sorted(self._entries)]
            write_index_file(self._index_tmp, items, sync=self._sync)
            atomic.commit([(self._data_tmp, data_filename(self.prefix, 0, 1)),
                           (self._index_tmp, index_filename(self.prefix))], sync=self._sync)
        except BaseException:
            if not atomic.pending(index_filename(self.prefix)):
                self._remove_temps()
            raise
        return self.prefix

    def abort(self):
        """Stops writing and deletes the temporary files; the final files are not touched."""
        if not self._out.closed:
            try:
                self._out.close()
            except OSError:
                pass
        self._closed = True
        self._remove_temps()

    def _remove_temps(self):
        atomic.remove_quietly(self._data_tmp, self._index_tmp)


def write_index_file(path, items, sync=True):
    """Writes a table of (key, value) items to `path` with TF's table options."""
    with open(path, "wb") as f:
        writer = leveldb_table.TableWriter(f)
        for k, v in items:
            writer.add(k, v)
        writer.finish()
        f.flush()
        if sync:
            os.fsync(f.fileno())


fsync_dir = atomic.fsync_dir


def save(prefix, tensors, sync=True):
    """Writes a dict {name: array} as a V2 checkpoint at `prefix`, in sorted-name order.

    Returns:
      The prefix.
    """
    with BundleWriter(prefix, sync=sync) as writer:
        for name in sorted(tensors, key=as_key):
            writer.add(name, tensors[name])
    return os.fspath(prefix)


def merge_bundles(prefixes, merged_prefix, sync=True):
    """Merges single-machine bundles into one multi-shard bundle (TF's MergeBundles).

    Each input's data files are renamed to `merged_prefix.data-K-of-N` (K in order of first
    appearance), the entries are merged (slices of one partitioned tensor may come from
    several inputs), and the merged index is written; the data files and the index move into
    place in one `atomic.commit` (index last). The inputs' index files are then deleted.

    Raises:
      InvalidArgumentError: a non-slice key appears twice, or headers disagree.
      NotFoundError: an input index is missing.
    """
    merged_prefix = os.fspath(merged_prefix)
    os.makedirs(os.path.dirname(merged_prefix) or ".", exist_ok=True)
    entries = {}
    shard_ids = {}
    header = None
    num_shards = 0
    for prefix in prefixes:
        prefix = os.fspath(prefix)
        table = leveldb_table.TableReader(index_filename(prefix))
        items = table.items()
        first = next(items, None)
        if first is None or first[0] != HEADER_KEY:
            raise errors.DataLossError(None, None, f"{index_filename(prefix)}: no bundle header")
        h = tensor_bundle_pb2.BundleHeaderProto.FromString(first[1])
        num_shards += h.num_shards
        if header is None:
            header = h
        elif (h.endianness != header.endianness or
              h.version.SerializeToString() != header.version.SerializeToString()):
            raise errors.InvalidArgumentError(
                None, None, f"Merging bundles with conflicting endianness or versions: "
                f"{prefix}")
        for key, value in items:
            entry = tensor_bundle_pb2.BundleEntryProto.FromString(value)
            old = entries.get(key)
            if old is not None:
                if not old.slices or not entry.slices:
                    raise errors.InvalidArgumentError(
                        None, None, f"Duplicate tensor keyed by {key_str(key)} encountered, "
                        f"when merging prefix: {prefix}")
                old.slices.extend(entry.slices)
                continue
            path = data_filename(prefix, entry.shard_id, h.num_shards)
            entry.shard_id = shard_ids.setdefault(path, len(shard_ids))
            entries[key] = entry
    if header is None:
        raise ValueError("merge_bundles needs at least one prefix")
    header.num_shards = num_shards
    items = [(HEADER_KEY, header.SerializeToString())]
    items += [(k, entries[k].SerializeToString()) for k in sorted(entries)]
    atomic.clean_stale(os.path.dirname(merged_prefix) or ".")
    tmp = atomic.temp_path(index_filename(merged_prefix))
    try:
        write_index_file(tmp, items, sync=sync)
        renames = [(path, data_filename(merged_prefix, shard, len(shard_ids)))
                   for path, shard in shard_ids.items()]
        atomic.commit(renames + [(tmp, index_filename(merged_prefix))], sync=sync)
    except BaseException:
        if not atomic.pending(index_filename(merged_prefix)):
            atomic.remove_quietly(tmp)
        raise
    for prefix in prefixes:
        try:
            os.remove(index_filename(prefix))
        except FileNotFoundError:
            pass
    return merged_prefix
