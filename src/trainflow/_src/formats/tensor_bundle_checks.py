"""Validation of untrusted tensor-bundle entries, before anything is allocated from them.

Every field of a BundleEntryProto read from an `.index` file (dtype, shape, shard id,
offset, size, slices) is checked against the header, the dtype and the data file's size, so
that a corrupt index gives a DataLossError naming the file, the key and the field instead of
a huge allocation, a negative file offset, or a Python exception from deeper down.
"""
from trainflow._src.formats.tensor_bundle_slices import TensorSlice
from trainflow._src.framework import dtypes
from trainflow._src.framework import errors

# No dimension or element count of a real tensor comes near this; larger ones are corrupt.
MAX_ELEMENTS = 1 << 62


def key_for_message(key):
    """A key (bytes or str) printable in any message (bytes that are not UTF-8 escaped)."""
    if isinstance(key, str):
        key = key.encode("utf-8", "surrogateescape")
    return bytes(key).decode("utf-8", "backslashreplace")


def corrupt(path, key, field, detail):
    """The DataLossError for field `field` of the entry under `key` in index `path`;
    `detail` says what is wrong (and may name the key in TF's words)."""
    return errors.DataLossError(
        None, None, f"{detail} (field {field} of the entry for key {key_for_message(key)} in "
        f"{path})")


def entry_dtype(path, key, enum):
    """The DType of an entry's dtype enum: a known, non-reference DataType."""
    try:
        dtype = dtypes.as_dtype(enum)
    except TypeError:
        dtype = None
    if dtype is None or dtype._is_ref_dtype:
        raise corrupt(path, key, "dtype", f"Entry {key_for_message(key)} has unknown dtype "
                      f"enum {enum}" if dtype is None else
                      f"Entry {key_for_message(key)} has reference dtype {dtype.name}")
    return dtype


def num_elements(shape):
    """The product of `shape` as a Python int (no int64 overflow)."""
    n = 1
    for d in shape:
        n *= d
    return n


def entry_shape(path, key, shape_proto):
    """The entry's shape as a tuple: known rank, every size in [0, MAX_ELEMENTS], and an
    element count that fits too."""
    if shape_proto.unknown_rank:
        raise corrupt(path, key, "shape", "unknown rank")
    shape = tuple(d.size for d in shape_proto.dim)
    if any(d < 0 or d > MAX_ELEMENTS for d in shape) or num_elements(shape) > MAX_ELEMENTS:
        raise errors.DataLossError(
            None, None, f"Invalid tensor shape: {key_for_message(key)} {list(shape)} (field "
            f"shape of its entry in {path})")
    return shape


def entry_slices(path, key, slice_protos, shape):
    """TensorSlices from TensorSliceProtos, each of the shape's rank and inside it."""
    out = []
    for i, sp in enumerate(slice_protos):
        try:
            sl = TensorSlice.from_proto(sp)
            sl.resolved(shape)
        except ValueError as e:
            raise corrupt(path, key, f"slices[{i}]", f"Invalid slice of "
                          f"{key_for_message(key)} {list(shape)}: {e}") from None
        out.append(sl)
    return tuple(out)


def check_entry(path, key, proto, num_shards):
    """Checks every field of BundleEntryProto `proto` that needs no data file.

    Returns:
      (DType, shape tuple, tuple of TensorSlice).

    Raises:
      DataLossError: naming `path`, `key` and the bad field.
    """
    dtype = entry_dtype(path, key, proto.dtype)
    shape = entry_shape(path, key, proto.shape)
    if proto.shard_id < 0 or proto.shard_id >= max(num_shards, 1):
        raise corrupt(path, key, "shard_id", f"Entry {key_for_message(key)} names data shard "
                      f"{proto.shard_id} of {num_shards}")
    if proto.offset < 0:
        raise corrupt(path, key, "offset", f"Entry {key_for_message(key)} has a negative "
                      f"offset {proto.offset}")
    if proto.size < 0:
        raise corrupt(path, key, "size", f"Entry {key_for_message(key)} has a negative size "
                      f"{proto.size}")
    return dtype, shape, entry_slices(path, key, proto.slices, shape)


def check_region(path, key, proto, data_path, data_size):
    """Checks that the entry's bytes [offset, offset + size) lie inside its data file."""
    if proto.offset + proto.size > data_size:
        raise errors.DataLossError(
            None, None, f"Truncated data file {data_path}: tensor {key_for_message(key)} "
            f"needs bytes [{proto.offset}, {proto.offset + proto.size}) but the file holds "
            f"{data_size} (fields offset/size of its entry in {path})")


def check_numeric_size(path, key, proto, dtype, shape, itemsize):
    """A numeric entry's size must be its element count times the dtype's item size."""
    expected = num_elements(shape) * itemsize
    if proto.size != expected:
        raise corrupt(path, key, "size", f"Invalid size in bundle entry: key "
                      f"{key_for_message(key)}; stored size {proto.size}; expected size "
                      f"{expected} ({dtype.name} {list(shape)})")


def check_string_size(path, key, proto, shape):
    """A string entry holds a varint length per element and a 4-byte checksum at least."""
    count = num_elements(shape)
    if count and proto.size < count + 4:
        raise corrupt(path, key, "size", f"Invalid size in bundle entry: key "
                      f"{key_for_message(key)}; stored size {proto.size} cannot hold "
                      f"{count} strings")


def union_length(intervals):
    """Total length of the union of [start, end) intervals."""
    total = 0
    reach = None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total
