"""Reading tensor bundles (V2 checkpoints): entries, tensors, slices, every CRC checked."""
import os
import struct
import threading
from typing import NamedTuple

import numpy as np

from trainflow._src.formats import atomic
from trainflow._src.formats import crc32c
from trainflow._src.formats import leveldb_table
from trainflow._src.formats.varint import decode_varint
from trainflow._src.formats import tensor_bundle_checks as checks
from trainflow._src.formats.tensor_bundle import (
    FORMAT_VERSION, HEADER_KEY, SIGN_EXTENDED, as_key, data_filename, index_filename, key_str,
    readonly_bytes)
from trainflow._src.formats.tensor_bundle_slices import (
    TensorSlice, assemble, decode_tensor_name_slice, encode_tensor_name_slice, is_slice_key)
from trainflow._src.framework import dtypes
from trainflow._src.framework import errors
from trainflow._src.protos import tensor_bundle_pb2, types_pb2

_MAX_READ = 1 << 30  # bytes per pread call; the OS may return fewer for larger requests


class BundleEntry(NamedTuple):
    """Metadata of one bundle entry.

    Attributes:
      key: the entry's key (str; binary slice keys decoded with surrogateescape).
      dtype: trainflow DType.
      shape: tuple of ints (the full shape for a partitioned tensor).
      shard_id, offset, size: where the data lies (data file shard, byte offset, length).
      crc32c: the stored masked CRC32C.
      slices: tuple of TensorSlice for a partitioned tensor's full entry, else ().
    """
    key: str
    dtype: object
    shape: tuple
    shard_id: int
    offset: int
    size: int
    crc32c: int
    slices: tuple


def dtype_name(enum):
    """TF's DataType name of an enum value ("DT_FLOAT")."""
    try:
        return types_pb2.DataType.Name(enum)
    except ValueError:
        return f"DT_UNKNOWN_{enum}"


def shape_string(shape):
    """TF's TensorShape::DebugString ("[2,3]", "[]")."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def _pread_into(fd, view, offset):
    """Fills `view` (a writable uint8 buffer) from `fd` at `offset`; returns bytes read."""
    done = 0
    total = len(view)
    while done < total:
        n = os.preadv(fd, [view[done:done + _MAX_READ]], offset + done)
        if n <= 0:
            break
        done += n
    return done


class BundleReader:
    """Reads a V2 checkpoint written by TensorFlow or `BundleWriter`.

    The index is untrusted: every entry is checked (tensor_bundle_checks) before anything is
    read or allocated from it. When a save over this prefix was interrupted after its commit
    began, the files of that complete new checkpoint are read where the commit's journal
    says they lie (`atomic.resolve_pending`).

    Args:
      prefix: the checkpoint prefix (the path without `.index`).

    Raises:
      NotFoundError: `PREFIX.index` does not exist.
      DataLossError: the index is corrupt (bad table, missing or unparseable header).
      InvalidArgumentError: the bundle was written by an incompatible format version.
    """

    def __init__(self, prefix):
        self._pb = tensor_bundle_pb2
        self.prefix = os.fspath(prefix)
        self.index_path = index_filename(self.prefix)
        self._moves = atomic.resolve_pending(self.index_path)
        index_file = self._moves.get(os.path.normpath(self.index_path), self.index_path)
        if not os.path.exists(index_file):
            raise errors.NotFoundError(None, None,
                                       f"{self.index_path}; No such file or directory")
        self._table = leveldb_table.TableReader(index_file)
        first = next(self._table.items(), None)
        if first is None or first[0] != HEADER_KEY:
            raise errors.DataLossError(None, None, f"Unable to read file ({self.index_path}): "
                                       "failed to seek to the header entry")
        try:
            self.header = tensor_bundle_pb2.BundleHeaderProto.FromString(first[1])
        except Exception:  # noqa: BLE001 - protobuf raises DecodeError subclasses
            raise errors.DataLossError(None, None, f"Unable to read file ({self.index_path}): "
                                       "unable to parse the header") from None
        version = self.header.version
        if version.min_consumer > FORMAT_VERSION or FORMAT_VERSION in version.bad_consumers:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {self.prefix} needs a newer reader: min consumer "
                f"version {version.min_consumer}, bad consumers "
                f"{list(version.bad_consumers)}, this reader is version {FORMAT_VERSION}")
        self.num_shards = self.header.num_shards
        if self.num_shards < 0:
            raise errors.DataLossError(None, None, f"Unable to read file ({self.index_path}): "
                                       f"header field num_shards is {self.num_shards}")
        big = self.header.endianness == tensor_bundle_pb2.BundleHeaderProto.BIG
        self._byteorder = ">" if big else "<"
        self._fds = {}
        self._sizes = {}
        self._lock = threading.Lock()

    # -- lifetime
    def close(self):
        """Closes the open data files."""
        with self._lock:
            for fd in self._fds.values():
                os.close(fd)
            self._fds.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # -- entries
    def _parse_entry(self, key, value):
        try:
            entry = self._pb.BundleEntryProto.FromString(value)
        except Exception:  # noqa: BLE001 - protobuf raises DecodeError subclasses
            raise errors.DataLossError(None, None, f"Entry for key "
                                       f"{checks.key_for_message(key)} not parseable in "
                                       f"{self.index_path}") from None
        checks.check_entry(self.index_path, key, entry, self.num_shards)
        return entry

    def entry_proto(self, key):
        """The BundleEntryProto stored under `key`.

        Raises:
          NotFoundError: no such key.
        """
        k = as_key(key)
        value = self._table.get(k) if k != HEADER_KEY else None
        if value is None:
            raise errors.NotFoundError(None, None, f"Key {checks.key_for_message(k)} not found "
                                       "in checkpoint")
        return self._parse_entry(k, value)

    def _to_entry(self, key, proto):
        dtype, shape, slices = checks.check_entry(self.index_path, key, proto, self.num_shards)
        return BundleEntry(key_str(key), dtype, shape, proto.shard_id, proto.offset, proto.size,
                           proto.crc32c, slices)

    def entry(self, key):
        """The BundleEntry (dtype, shape, shard, offset, size, crc32c, slices) of `key`."""
        k = as_key(key)
        return self._to_entry(k, self.entry_proto(k))

    def entries(self):
        """Yields the BundleEntry of every key (slice keys included) in key order."""
        for k, v in self._table.items():
            if k != HEADER_KEY:
                yield self._to_entry(k, self._parse_entry(k, v))

    def raw_keys(self):
        """Every key except the header, as bytes, in order (slice keys included)."""
        return [k for k in self._table.keys() if k != HEADER_KEY]

    def keys(self):
        """Names of the stored tensors, in key order, without the keys of individual slices."""
        out = []
        for k in self.raw_keys():
            if is_slice_key(k):
                try:
                    decode_tensor_name_slice(k)
                    continue
                except ValueError:
                    pass
            out.append(key_str(k))
        return out

    def __contains__(self, key):
        k = as_key(key)
        return k != HEADER_KEY and self._table.get(k) is not None

    contains = __contains__

    def slices(self, key):
        """The stored slices of a partitioned tensor (empty for an ordinary one)."""
        return self.entry(key).slices

    # -- data
    def _fd(self, shard_id):
        fd = self._fds.get(shard_id)
        if fd is None:
            with self._lock:
                fd = self._fds.get(shard_id)
                if fd is None:
                    path = data_filename(self.prefix, shard_id, self.num_shards)
                    path = self._moves.get(os.path.normpath(path), path)
                    try:
                        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
                    except FileNotFoundError:
                        raise errors.NotFoundError(
                            None, None, f"{path}; No such file or directory (data shard of "
                            f"checkpoint {self.prefix})") from None
                    except IsADirectoryError:
                        raise errors.FailedPreconditionError(
                            None, None, f"{path}; Is a directory") from None
                    self._sizes[shard_id] = os.fstat(fd).st_size
                    self._fds[shard_id] = fd
        return fd

    def _check_region(self, key, proto):
        """The entry's bytes must lie inside its data file (checked before allocating)."""
        self._fd(proto.shard_id)
        checks.check_region(self.index_path, key, proto,
                            data_filename(self.prefix, proto.shard_id, self.num_shards),
                            self._sizes[proto.shard_id])

    def _read_region(self, key, proto, view):
        got = _pread_into(self._fd(proto.shard_id), view, proto.offset)
        if got != len(view):
            path = data_filename(self.prefix, proto.shard_id, self.num_shards)
            raise errors.DataLossError(
                None, None, f"Truncated data file {path}: tensor "
                f"{checks.key_for_message(key)} needs bytes "
                f"[{proto.offset}, {proto.offset + len(view)}) but only {got} could be read")

    def _crc_error(self, key, proto, actual):
        path = data_filename(self.prefix, proto.shard_id, self.num_shards)
        return errors.DataLossError(
            None, None, f"Checksum does not match for tensor {checks.key_for_message(key)} "
            f"in {path} "
            f"(offset {proto.offset}, {proto.size} bytes): stored "
            f"{crc32c.unmask(proto.crc32c):08x} vs. calculated on the restored bytes "
            f"{actual:08x}")

    def _read_value(self, key, proto, out=None):
        dtype, shape, _ = checks.check_entry(self.index_path, key, proto, self.num_shards)
        if dtype == dtypes.string:
            checks.check_string_size(self.index_path, key, proto, shape)
            if proto.size:
                self._check_region(key, proto)
            return self._read_strings(key, proto, shape)
        if dtype in (dtypes.resource, dtypes.variant):
            raise errors.UnimplementedError(None, None, f"Tensor {checks.key_for_message(key)} "
                                            f"has dtype {dtype.name}, which bundles cannot "
                                            "restore here")
        np_dtype = np.dtype(dtype.as_numpy_dtype)
        checks.check_numeric_size(self.index_path, key, proto, dtype, shape, np_dtype.itemsize)
        expected = proto.size
        if expected:
            self._check_region(key, proto)
        file_dtype = np.dtype(np.int8) if dtype in SIGN_EXTENDED else np_dtype
        if self._byteorder == ">" and np_dtype.byteorder not in "|>":
            file_dtype = np_dtype.newbyteorder(">")
        if (out is not None and out.shape == shape and out.dtype == file_dtype and
                out.flags.c_contiguous and out.flags.writeable):
            arr = out
        else:
            arr = np.empty(shape, dtype=file_dtype)
        view = arr.reshape(-1).view(np.uint8)
        if expected:
            self._read_region(key, proto, view)
        actual = crc32c.crc32c(readonly_bytes(arr)) if expected else 0
        if actual != crc32c.unmask(proto.crc32c):
            raise self._crc_error(key, proto, actual)
        if arr.dtype != np_dtype:
            arr = arr.astype(np_dtype)
        if out is not None and arr is not out:
            out[...] = arr
            return out
        return arr

    def _read_strings(self, key, proto, shape):
        count = checks.num_elements(shape)
        result = np.empty(count, dtype=object)
        if proto.size == 0:
            if count:
                raise errors.DataLossError(None, None, f"Invalid size in bundle entry: key "
                                           f"{key_str(key)}; stored size 0 for {count} strings")
            return result.reshape(shape)
        buf = bytearray(proto.size)
        self._read_region(key, proto, memoryview(buf))
        buf = bytes(buf)
        pos = 0
        lengths = []
        crc = 0
        u32 = struct.Struct(self._byteorder + "I")
        u64 = struct.Struct(self._byteorder + "Q")
        where = f"string tensor {checks.key_for_message(key)} in checkpoint {self.prefix}"
        try:
            for _ in range(count):
                n, pos = decode_varint(buf, pos)
                lengths.append(n)
                crc = crc32c.extend(crc, u32.pack(n) if n <= 0xFFFFFFFF else u64.pack(n))
        except ValueError:
            raise errors.DataLossError(None, None, f"Corrupt lengths of {where}") from None
        if pos + 4 > len(buf):
            raise errors.DataLossError(None, None, f"String lengths longer than expected in "
                                       f"{where}")
        stored = u32.unpack_from(buf, pos)[0]
        if crc32c.unmask(stored) != crc:
            raise errors.DataLossError(
                None, None, f"The length checksum does not match for {where}: expected "
                f"{crc32c.unmask(stored):08x} but actual is {crc:08x}")
        pos += 4
        if pos + sum(lengths) != len(buf):
            raise errors.DataLossError(None, None, f"Invalid size in bundle entry: {where} "
                                       f"holds {pos + sum(lengths)} bytes, entry says "
                                       f"{proto.size}")
        # The entry's CRC covers the lengths as fixed-width integers (not the varints in the
        # file), then the 4 length-checksum bytes, then the string bytes.
        crc = crc32c.extend(crc, buf[pos - 4:])
        if crc != crc32c.unmask(proto.crc32c):
            raise self._crc_error(key, proto, crc)
        for i, n in enumerate(lengths):
            result[i] = buf[pos:pos + n]
            pos += n
        return result.reshape(shape)

    def lookup(self, key, out=None):
        """Returns the tensor stored under `key` as an ndarray (strings: object array of bytes).

        A partitioned tensor is assembled from its slices.

        Args:
          key: the tensor's name (str or bytes).
          out: optional C-contiguous array of the right shape and dtype to read into.

        Raises:
          NotFoundError: no such key (or a missing data file).
          DataLossError: a CRC mismatch, truncated data or an inconsistent entry.
        """
        k = as_key(key)
        proto = self.entry_proto(k)
        if not proto.slices:
            return self._read_value(k, proto, out)
        result = self.lookup_slice(k, TensorSlice.full(len(proto.shape.dim)), _proto=proto)
        if out is not None:
            out[...] = result
            return out
        return result

    def lookup_slice(self, key, slice_spec, _proto=None):
        """Returns slice `slice_spec` (TensorSlice or "0,4:-") of the tensor under `key`.

        Works for partitioned tensors (from the stored slices that overlap) and for tensors
        saved whole.

        Raises:
          InvalidArgumentError: the stored slices do not cover the requested one.
        """
        k = as_key(key)
        proto = _proto if _proto is not None else self.entry_proto(k)
        wanted = slice_spec if isinstance(slice_spec, TensorSlice) else \
            TensorSlice.parse(slice_spec)
        entry = self._to_entry(k, proto)
        try:
            wanted.resolved(entry.shape)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"Slice {wanted} of tensor "
                                              f"{checks.key_for_message(k)}: {e}") from None
        if not proto.slices:
            full = self._read_value(k, proto)
            return np.ascontiguousarray(full[wanted.index(entry.shape)])
        pieces = self._slice_pieces(k, entry, wanted)
        np_dtype = object if entry.dtype == dtypes.string else entry.dtype.as_numpy_dtype
        return assemble(entry.shape, np_dtype, pieces, wanted=wanted,
                        name=checks.key_for_message(k), where=self.prefix)

    def _slice_pieces(self, k, entry, wanted):
        """(slice, loader) pairs of the stored slices overlapping `wanted`, each entry
        checked against the full entry and its data file, and their volume checked to cover
        `wanted`, before the result is allocated."""
        pieces = []
        regions = {}
        per_element = 1 if entry.dtype == dtypes.string else \
            np.dtype(entry.dtype.as_numpy_dtype).itemsize
        for sl in dict.fromkeys(entry.slices):
            if sl.intersect(wanted, entry.shape) is None:
                continue
            sk = encode_tensor_name_slice(k, sl)
            try:
                sproto = self.entry_proto(sk)
            except errors.NotFoundError:
                raise checks.corrupt(self.index_path, k, "slices",
                                     f"Slice {sl} of {checks.key_for_message(k)} has no entry "
                                     "of its own") from None
            sdtype, sshape, _ = checks.check_entry(self.index_path, sk, sproto, self.num_shards)
            if sdtype != entry.dtype or sshape != sl.shape(entry.shape) or sproto.slices:
                raise checks.corrupt(self.index_path, sk, "dtype/shape",
                                     f"slice {sl} of {checks.key_for_message(k)} is stored as "
                                     f"{sdtype.name} {list(sshape)}, the full entry says "
                                     f"{entry.dtype.name} {list(sl.shape(entry.shape))}")
            if sdtype == dtypes.string:
                checks.check_string_size(self.index_path, sk, sproto, sshape)
            elif sdtype not in (dtypes.resource, dtypes.variant):
                checks.check_numeric_size(self.index_path, sk, sproto, sdtype, sshape,
                                          per_element)
            if sproto.size:
                self._check_region(sk, sproto)
            regions.setdefault(sproto.shard_id, []).append(
                (sproto.offset, sproto.offset + sproto.size))
            pieces.append((sl, lambda sk=sk, sproto=sproto: self._read_value(sk, sproto)))
        # Slices that cover `wanted` hold at least its bytes, in distinct parts of the data.
        stored = sum(checks.union_length(r) for r in regions.values())
        if checks.num_elements(wanted.shape(entry.shape)) * per_element > stored:
            raise errors.InvalidArgumentError(
                None, None, f"Does not have sufficient slices for partitioned tensor "
                f"{checks.key_for_message(k)} to restore in slice_spec: {wanted} "
                f"(checkpoint {self.prefix})")
        return pieces

    def debug_string(self):
        """TF's BundleReader::DebugString: `key (DT_X) [shape]` per line (bytes).

        Full entries of partitioned tensors are left out; their slices are listed.
        """
        lines = []
        for k, v in self._table.items():
            if k == HEADER_KEY:
                continue
            proto = self._parse_entry(k, v)
            if proto.slices:
                continue
            lines.append(k + f" ({dtype_name(proto.dtype)}) "
                         f"{shape_string(d.size for d in proto.shape.dim)}\n".encode())
        return b"".join(lines)
