"""V1 checkpoints: TensorFlow's single-file SavedTensorSlices format (reader and writer).

A V1 checkpoint is one LevelDB-format table per shard (a file pattern such as
`model.ckpt-?????-of-00002` names all shards). The empty key holds a SavedTensorSlices
whose `meta` lists every tensor (name, shape, dtype, the slices saved); every other key is
`encode_tensor_name_slice(name, slice)` and holds a SavedTensorSlices whose `data` is a
SavedSlice with the slice's values in the typed `*_val` field of a TensorProto.
"""
import glob
import os

import numpy as np

from trainflow._src.formats import atomic
from trainflow._src.formats import leveldb_table
from trainflow._src.formats import tensor_bundle_checks as checks
from trainflow._src.formats.tensor_bundle import as_tensor_value, key_str
from trainflow._src.formats.tensor_bundle_reader import dtype_name, shape_string
from trainflow._src.formats.tensor_bundle_slices import (
    TensorSlice, assemble, encode_tensor_name_slice)
from trainflow._src.framework import dtypes
from trainflow._src.framework import errors
from trainflow._src.protos import saved_tensor_slice_pb2

CHECKPOINT_VERSION = 1  # TF_CHECKPOINT_VERSION
MIN_CONSUMER = 0

# dtype enum -> (TensorProto field, NumPy dtype of that field's values)
_INT_VAL = ("int_val", np.int32)
_FIELDS = {
    1: ("float_val", np.float32), 2: ("double_val", np.float64), 3: _INT_VAL, 4: _INT_VAL,
    5: _INT_VAL, 6: _INT_VAL, 7: ("string_val", None), 8: ("scomplex_val", np.float32),
    9: ("int64_val", np.int64), 10: ("bool_val", np.bool_), 11: _INT_VAL, 12: _INT_VAL,
    13: _INT_VAL, 14: ("half_val", np.int32), 15: _INT_VAL, 16: _INT_VAL, 17: _INT_VAL,
    18: ("dcomplex_val", np.float64), 19: ("half_val", np.int32),
    22: ("uint32_val", np.uint32), 23: ("uint64_val", np.uint64),
}


def _values_from_proto(proto, dtype, shape, where):
    """Decodes a SavedSlice's TensorProto (values in the typed field) into an array."""
    enum = dtype.as_datatype_enum
    if enum not in _FIELDS:
        raise errors.UnimplementedError(None, None, f"{where}: dtype {dtype.name} is not "
                                        "supported in V1 checkpoints")
    field, field_dtype = _FIELDS[enum]
    count = checks.num_elements(shape)
    values = getattr(proto, field)
    expected = count * (2 if dtype.is_complex else 1)
    if proto.tensor_content and not len(values):
        np_dtype = np.dtype(dtype.as_numpy_dtype)
        if field_dtype is None or len(proto.tensor_content) != count * np_dtype.itemsize:
            raise errors.DataLossError(None, None, f"{where}: {len(proto.tensor_content)} "
                                       f"bytes of tensor_content for {dtype.name} shape "
                                       f"{list(shape)}")
        flat = np.frombuffer(proto.tensor_content, dtype=np_dtype.newbyteorder("<")
                             if enum != 14 else np_dtype)
        if flat.size != count:
            raise errors.DataLossError(None, None, f"{where}: {flat.size} values for shape "
                                       f"{list(shape)}")
        return flat.astype(dtype.as_numpy_dtype).reshape(shape)
    if len(values) != expected:
        raise errors.DataLossError(None, None, f"{where}: {len(values)} values in {field} for "
                                   f"{dtype.name} shape {list(shape)}")
    if field_dtype is None:
        out = np.empty(count, dtype=object)
        out[:] = list(values)
        return out.reshape(shape)
    raw = np.array(values, dtype=field_dtype)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if field == "half_val":
        return raw.astype(np.uint16).view(np_dtype).reshape(shape)
    if dtype.is_complex:
        return raw.view(np_dtype).reshape(shape)
    if np_dtype.names:  # quantized types are structured NumPy dtypes
        out = np.empty(count, dtype=np_dtype)
        out[np_dtype.names[0]] = raw
        return out.reshape(shape)
    return raw.astype(np_dtype).reshape(shape)


def _fill_proto(proto, arr, dtype):
    """Stores `arr`'s values in the typed field of TensorProto `proto`, as TF's V1 writer."""
    enum = dtype.as_datatype_enum
    if enum not in _FIELDS:
        raise TypeError(f"dtype {dtype.name} cannot be saved in a V1 checkpoint")
    field, _ = _FIELDS[enum]
    flat = arr.reshape(-1)
    if field == "string_val":
        values = flat.tolist()
    elif field == "half_val":
        values = flat.view(np.uint16).astype(np.int32).tolist()
    elif dtype.is_complex:
        values = flat.view(flat.real.dtype).tolist()
    elif flat.dtype.names:
        values = flat[flat.dtype.names[0]].tolist()
    else:
        values = flat.tolist()
    getattr(proto, field).extend(values)


class V1CheckpointReader:
    """Reads a V1 checkpoint file or file pattern (all shards).

    Args:
      filepattern: a V1 checkpoint file, or a glob pattern matching its shards.

    Raises:
      NotFoundError: nothing matches the pattern.
      DataLossError: a file is not a table.
      InternalError: a file lacks the SavedTensorSlices metadata.
    """

    def __init__(self, filepattern):
        self._pb = saved_tensor_slice_pb2
        self.filepattern = os.fspath(filepattern)
        if os.path.exists(self.filepattern):
            files = [self.filepattern]
        else:
            files = sorted(glob.glob(self.filepattern))
        if not files:
            raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: "
                                       f"Failed to find any matching files for "
                                       f"{self.filepattern}")
        self.files = files
        self._tables = {}
        # name -> [dtype, shape, [(TensorSlice, filename)]], in the order met
        self._tensors = {}
        for fname in files:
            self._load(fname)

    def _load(self, fname):
        try:
            table = leveldb_table.TableReader(fname)
        except errors.OpError as e:
            raise errors.DataLossError(
                None, None, f"Unable to open table file {fname}: {e.message}: perhaps your "
                "file is in a different file format and you need to use a different restore "
                "operator?") from None
        self._tables[fname] = table
        value = table.get(b"")
        try:
            sts = self._pb.SavedTensorSlices.FromString(value) if value is not None else None
        except Exception:  # noqa: BLE001 - protobuf DecodeError
            sts = None
        if sts is None or not sts.HasField("meta"):
            raise errors.InternalError(None, None, "Failed to find the saved tensor slices at "
                                       f"the beginning of the checkpoint file: {fname}")
        versions = sts.meta.versions
        if versions.min_consumer > CHECKPOINT_VERSION or \
                CHECKPOINT_VERSION in versions.bad_consumers:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {fname} needs a newer reader (min consumer "
                f"{versions.min_consumer})")
        for meta in sts.meta.tensor:
            shape = checks.entry_shape(fname, meta.name, meta.shape)
            dtype = checks.entry_dtype(fname, meta.name, meta.type)
            slices = checks.entry_slices(fname, meta.name, meta.slice, shape)
            record = self._tensors.setdefault(meta.name, [dtype, shape, []])
            if record[0] != dtype or record[1] != shape:
                raise errors.InvalidArgumentError(
                    None, None, f"Incompatible tensor {meta.name} in {fname}: {dtype.name} "
                    f"{list(shape)} vs. {record[0].name} {list(record[1])} in another shard")
            for sl in slices:
                record[2].append((sl, fname))

    def keys(self):
        """Names of the saved tensors, sorted."""
        return sorted(self._tensors)

    def has_tensor(self, name):
        """True if the checkpoint holds a tensor called `name`."""
        return key_str(name) in self._tensors

    def _record(self, name):
        name = key_str(name)
        record = self._tensors.get(name)
        if record is None:
            raise errors.NotFoundError(None, None, f"{name} not found in checkpoint file")
        return name, record

    def dtype(self, name):
        """The trainflow DType of tensor `name`."""
        return self._record(name)[1][0]

    def shape(self, name):
        """The full shape (tuple) of tensor `name`."""
        return self._record(name)[1][1]

    def slices(self, name):
        """The saved slices (TensorSlice list) of tensor `name`."""
        return [s for s, _ in self._record(name)[1][2]]

    def _load_slice(self, name, dtype, full_shape, sl, fname):
        key = encode_tensor_name_slice(name, sl)
        where = f"slice {sl} of tensor {name} in {fname}"
        value = self._tables[fname].get(key)
        if value is None:
            raise errors.NotFoundError(None, None, f"{where}: not found in the file")
        try:
            saved = self._pb.SavedTensorSlices.FromString(value).data
        except Exception:  # noqa: BLE001 - protobuf DecodeError
            raise errors.DataLossError(None, None, f"{where}: unparseable SavedSlice") from None
        return _values_from_proto(saved.data, dtype, sl.shape(full_shape), where)

    def get_tensor(self, name):
        """Returns tensor `name` as an ndarray, assembled from its slices.

        Raises:
          NotFoundError: no such tensor.
          InvalidArgumentError: its slices do not cover the tensor.
        """
        return self.get_slice(name, None)

    def get_slice(self, name, slice_spec):
        """Returns slice `slice_spec` (TensorSlice, string, or None for all) of tensor `name`."""
        name, (dtype, shape, pieces) = self._record(name)
        wanted = slice_spec
        if isinstance(slice_spec, (str, bytes)):
            wanted = TensorSlice.parse(slice_spec)
        np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
        if wanted is None:
            wanted = TensorSlice.full(len(shape))
        try:
            wanted.resolved(shape)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"Slice {wanted} of tensor {name}: "
                                              f"{e}") from None
        # The slices are decoded (their size bounded by the files) before the result is
        # allocated, and must hold at least as many values as it.
        loaded = {}
        for sl, f in pieces:
            if sl not in loaded and sl.intersect(wanted, shape) is not None:
                loaded[sl] = self._load_slice(name, dtype, shape, sl, f)
        if checks.num_elements(wanted.shape(shape)) > sum(a.size for a in loaded.values()):
            raise errors.InvalidArgumentError(
                None, None, f"Does not have sufficient slices for partitioned tensor {name} "
                f"to restore in slice_spec: {wanted} (checkpoint {self.filepattern})")
        loaders = [(sl, (lambda a=a: a)) for sl, a in loaded.items()]
        return assemble(shape, np_dtype, loaders, wanted=wanted, name=name,
                        where=self.filepattern)

    def debug_string(self):
        """`name (DT_X) [shape]` per tensor, with `, N slices` for partitioned ones (bytes)."""
        lines = []
        for name in self.keys():
            dtype, shape, pieces = self._tensors[name]
            line = f"{name} ({dtype_name(dtype.as_datatype_enum)}) {shape_string(shape)}"
            if len(pieces) > 1:
                line += f", {len(pieces)} slices"
            lines.append(line + "\n")
        return "".join(lines).encode("utf-8", "surrogateescape")


class V1CheckpointWriter:
    """Writes one V1 checkpoint file, byte-for-byte as TF's TensorSliceWriter.

    Args:
      filename: the checkpoint file to write (replaced atomically by `finish`).
    """

    def __init__(self, filename):
        self._pb = saved_tensor_slice_pb2
        self.filename = os.fspath(filename)
        self._meta = saved_tensor_slice_pb2.SavedTensorSlices()
        self._meta.meta.versions.producer = CHECKPOINT_VERSION
        self._meta.meta.versions.min_consumer = MIN_CONSUMER
        self._index = {}
        self._data = {}

    def add(self, name, value, dtype=None):
        """Saves tensor `value` whole under `name`."""
        arr, dt = as_tensor_value(value, dtype)
        self.add_slice(name, arr.shape, TensorSlice.full(arr.ndim), arr, dt)

    def add_slice(self, name, full_shape, slice_spec, value, dtype=None):
        """Saves one slice (TensorSlice or "0,4:-") of tensor `name` of shape `full_shape`.

        Raises:
          ValueError: the slice does not fit, repeats, or the value has the wrong shape.
          TypeError: the dtype differs from earlier slices or cannot be saved in V1.
        """
        name = key_str(name)
        full_shape = tuple(int(d) for d in full_shape)
        sl = slice_spec if isinstance(slice_spec, TensorSlice) else TensorSlice.parse(slice_spec)
        arr, dt = as_tensor_value(value, dtype)
        if arr.shape != sl.shape(full_shape):
            raise ValueError(f"slice {sl} of {name} {list(full_shape)} needs shape "
                             f"{list(sl.shape(full_shape))}, got {list(arr.shape)}")
        key = encode_tensor_name_slice(name, sl)
        if key in self._data:
            raise ValueError(f"slice {sl} of tensor {name} was already added")
        meta = self._index.get(name)
        if meta is None:
            meta = self._meta.meta.tensor.add()
            meta.name = name
            meta.shape.SetInParent()
            for d in full_shape:
                meta.shape.dim.add().size = d
            meta.type = dt.as_datatype_enum
            self._index[name] = meta
        elif meta.type != dt.as_datatype_enum or \
                tuple(d.size for d in meta.shape.dim) != full_shape:
            raise TypeError(f"slice of {name} is {dt.name} {list(full_shape)}, earlier slices "
                            f"{dtypes.as_dtype(meta.type).name} "
                            f"{[d.size for d in meta.shape.dim]}")
        sl.to_proto(meta.slice.add())
        record = self._pb.SavedTensorSlices()
        record.data.name = name
        record.data.slice.SetInParent()  # present even for a scalar's empty slice
        sl.to_proto(record.data.slice)
        record.data.data.SetInParent()
        _fill_proto(record.data.data, arr, dt)
        self._data[key] = record.SerializeToString()

    def finish(self):
        """Writes the table through a temporary file and renames it into place."""
        items = [(b"", self._meta.SerializeToString())]
        items += sorted(self._data.items())

        def write(f):
            writer = leveldb_table.TableWriter(f)
            for k, v in items:
                writer.add(k, v)
            writer.finish()
        directory = os.path.dirname(self.filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        atomic.write_file(self.filename, write, marker=atomic.CHECKPOINT_MARKER)
        return self.filename
