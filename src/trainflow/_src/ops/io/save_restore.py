"""Checkpoint ops of TensorFlow's Saver: SaveV2, RestoreV2, MergeV2Checkpoints,
ShardedFilename, ShardedFilespec, and the V1 ops SaveSlices, Save, RestoreSlice and Restore.

The kernels write and read through `formats/`: a V2 save is one `BundleWriter` (atomic:
temporary files, then renames), a V1 save one `V1CheckpointWriter`. RestoreV2 reads a tensor
bundle when `PREFIX.index` exists and falls back to the V1 reader otherwise, as TF does.
"""
import os
import numpy as np

from trainflow._src.framework import dtypes as _dtypes
from trainflow._src.formats import tensor_bundle
from trainflow._src.formats.checkpoint_v1 import V1CheckpointReader, V1CheckpointWriter
from trainflow._src.formats.tensor_bundle_reader import BundleReader
from trainflow._src.formats.tensor_bundle_slices import parse_shape_and_slice
from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.constant_op import dtype_string
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape, scalar, unknown_shape
from trainflow._src.framework.tensor_util import constant_value

__all__ = ["merge_v2_checkpoints", "restore", "restore_slice", "restore_v2", "save",
           "save_slices", "save_v2", "sharded_filename", "sharded_filespec"]


def _text(value):
    """A scalar string tensor value (bytes/str/0-d array) as str."""
    if isinstance(value, np.ndarray):
        value = value.reshape(-1)[0] if value.size == 1 else value[()]
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


def _texts(value, what, op_type):
    arr = np.asarray(value, dtype=object)
    if arr.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"{op_type}: {what} must be a vector, got shape {list(arr.shape)}")
    return [_text(x) for x in arr.tolist()]


def _check_sizes(op_type, names, slices, n):
    if len(names) != n or len(slices) != n:
        raise errors.InvalidArgumentError(
            None, None, f"{op_type}: expected tensor_names ({len(names)}) and shape_and_slices "
            f"({len(slices)}) to have {n} elements, one per tensor")


# -- SaveV2 ---------------------------------------------------------------------------------
def _save_v2_kernel(prefix, tensor_names, shape_and_slices, tensors, *, dtypes):  # noqa: A002
    prefix = _text(prefix)
    names = _texts(tensor_names, "tensor_names", "SaveV2")
    slices = _texts(shape_and_slices, "shape_and_slices", "SaveV2")
    _check_sizes("SaveV2", names, slices, len(tensors))
    with tensor_bundle.BundleWriter(prefix) as writer:
        for name, spec, value, dt in zip(names, slices, tensors, dtypes):
            if spec:
                full_shape, sl = parse_shape_and_slice(spec)
                writer.add_slice(name, full_shape, sl, value, dt)
            else:
                writer.add(name, value, dt)


register_op("SaveV2", inputs=["prefix: string", "tensor_names: string",
                              "shape_and_slices: string", "tensors: dtypes"],
            attrs=["dtypes: list(type) >= 1"], shape_fn=lambda op: [],
            kernel=_save_v2_kernel, stateful=True, host_only=True)


# -- RestoreV2 -------------------------------------------------------------------------------
def _not_found(key, prefix):
    return errors.NotFoundError(None, None, f"Key {key} not found in checkpoint {prefix}")


def _check_dtype(name, want, have):
    if want.base_dtype != have.base_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"tensor_name = {name}; expected dtype {dtype_string(want)} does not "
            f"equal original dtype {dtype_string(have)}")


def _check_full_shape(name, spec, full_shape, stored):
    if tuple(full_shape) != tuple(stored):
        raise errors.InvalidArgumentError(
            None, None, f"tensor_name = {name}; shape in shape_and_slice spec {spec!r} "
            f"[{','.join(map(str, full_shape))}] does not match the shape stored in checkpoint: "
            f"[{','.join(map(str, stored))}]")


def _restore_from_bundle(reader, prefix, name, spec, dt):
    try:
        entry = reader.entry(name)
    except errors.NotFoundError:
        raise _not_found(name, prefix) from None
    _check_dtype(name, dt, entry.dtype)
    if not spec:
        return reader.lookup(name)
    full_shape, sl = parse_shape_and_slice(spec)
    _check_full_shape(name, spec, full_shape, entry.shape)
    return reader.lookup_slice(name, sl)


def _restore_from_v1(reader, prefix, name, spec, dt):
    if not reader.has_tensor(name):
        raise _not_found(name, prefix)
    _check_dtype(name, dt, reader.dtype(name))
    if not spec:
        return reader.get_tensor(name)
    full_shape, sl = parse_shape_and_slice(spec)
    _check_full_shape(name, spec, full_shape, reader.shape(name))
    return reader.get_slice(name, sl)


def _open_reader(prefix):
    """(reader, restore function, closer) for a V2 prefix or a V1 file pattern."""
    if os.path.exists(tensor_bundle.index_filename(prefix)):
        reader = BundleReader(prefix)
        return reader, _restore_from_bundle, reader.close
    return V1CheckpointReader(prefix), _restore_from_v1, (lambda: None)


def _restore_v2_kernel(prefix, tensor_names, shape_and_slices, *, dtypes):  # noqa: A002
    prefix = _text(prefix)
    names = _texts(tensor_names, "tensor_names", "RestoreV2")
    slices = _texts(shape_and_slices, "shape_and_slices", "RestoreV2")
    _check_sizes("RestoreV2", names, slices, len(dtypes))
    reader, restore_one, close = _open_reader(prefix)
    try:
        out = tuple(np.asarray(restore_one(reader, prefix, n, s, dt))
                    for n, s, dt in zip(names, slices, dtypes))
    finally:
        close()
    # A single-output op returns its array itself, not a 1-tuple.
    return out[0] if len(out) == 1 else out


def _restore_shapes(op, slices_input, count):
    """Static shapes: a slice's shape when the shape_and_slices input is constant, else
    unknown (what TF's shape function infers)."""
    specs = constant_value(slices_input)
    if specs is None:
        return [unknown_shape()] * count
    shapes = []
    for spec in np.asarray(specs, dtype=object).reshape(-1).tolist():
        spec = _text(spec)
        if not spec:
            shapes.append(unknown_shape())
            continue
        full_shape, sl = parse_shape_and_slice(spec)
        shapes.append(TensorShape(list(sl.shape(full_shape))))
    return shapes if len(shapes) == count else [unknown_shape()] * count


register_op("RestoreV2", inputs=["prefix: string", "tensor_names: string",
                                 "shape_and_slices: string"],
            outputs=["tensors: dtypes"], attrs=["dtypes: list(type) >= 1"],
            shape_fn=lambda op: _restore_shapes(op, op._inputs[2], len(op._attrs["dtypes"])),
            kernel=_restore_v2_kernel, stateful=True, host_only=True)


# -- MergeV2Checkpoints ------------------------------------------------------------------------
def _merge_kernel(checkpoint_prefixes, destination_prefix, *, delete_old_dirs,
                  allow_missing_files):
    sources = _texts(np.asarray(checkpoint_prefixes, dtype=object).reshape(-1),
                     "checkpoint_prefixes", "MergeV2Checkpoints")
    dest = _text(destination_prefix)
    if allow_missing_files:
        sources = [p for p in sources if os.path.exists(tensor_bundle.index_filename(p))]
        if not sources:
            raise errors.InvalidArgumentError(
                None, None, "Expected at least one checkpoint file, but none found.")
    for p in sources:
        if not os.path.exists(tensor_bundle.index_filename(p)):
            raise errors.NotFoundError(
                None, None, f"{tensor_bundle.index_filename(p)}; No such file or directory")
    tensor_bundle.merge_bundles(sources, dest)
    if delete_old_dirs:
        merged_dir = os.path.dirname(dest)
        for p in sources:
            d = os.path.dirname(p)
            if d != merged_dir:
                try:
                    os.rmdir(d)
                except OSError:
                    pass  # not empty, or already gone: TF ignores this too


register_op("MergeV2Checkpoints", inputs=["checkpoint_prefixes: string",
                                          "destination_prefix: string"],
            attrs=["delete_old_dirs: bool = true", "allow_missing_files: bool = false"],
            shape_fn=lambda op: [], kernel=_merge_kernel, stateful=True, host_only=True)


# -- ShardedFilename / ShardedFilespec -----------------------------------------------------------
def _sharded_filename_kernel(basename, shard, num_shards):
    name = f"{_text(basename)}-{int(shard):05d}-of-{int(num_shards):05d}"
    return np.array(name.encode("utf-8", "surrogateescape"), dtype=object)


def _sharded_filespec_kernel(basename, num_shards):
    name = f"{_text(basename)}-?????-of-{int(num_shards):05d}"
    return np.array(name.encode("utf-8", "surrogateescape"), dtype=object)


register_op("ShardedFilename", inputs=["basename: string", "shard: int32",
                                       "num_shards: int32"],
            outputs=["filename: string"], shape_fn=lambda op: [scalar()],
            kernel=_sharded_filename_kernel)
register_op("ShardedFilespec", inputs=["basename: string", "num_shards: int32"],
            outputs=["filename: string"], shape_fn=lambda op: [scalar()],
            kernel=_sharded_filespec_kernel)


# -- V1: SaveSlices, Save, RestoreSlice, Restore --------------------------------------------
def _save_v1(filename, names, specs, data, types):
    writer = V1CheckpointWriter(filename)
    for name, spec, value, dt in zip(names, specs, data, types):
        if spec:
            full_shape, sl = parse_shape_and_slice(spec)
            writer.add_slice(name, full_shape, sl, value, dt)
        else:
            writer.add(name, value, dt)
    os.makedirs(os.path.dirname(filename) or ".", exist_ok=True)
    writer.finish()


def _save_slices_kernel(filename, tensor_names, shapes_and_slices, data, *, T):  # noqa: N803
    names = _texts(tensor_names, "tensor_names", "SaveSlices")
    specs = _texts(shapes_and_slices, "shapes_and_slices", "SaveSlices")
    _check_sizes("SaveSlices", names, specs, len(data))
    _save_v1(_text(filename), names, specs, data, T)


def _save_kernel(filename, tensor_names, data, *, T):  # noqa: N803
    names = _texts(tensor_names, "tensor_names", "Save")
    _check_sizes("Save", names, names, len(data))
    _save_v1(_text(filename), names, [""] * len(names), data, T)


register_op("SaveSlices", inputs=["filename: string", "tensor_names: string",
                                  "shapes_and_slices: string", "data: T"],
            attrs=["T: list(type) >= 1"], shape_fn=lambda op: [],
            kernel=_save_slices_kernel, stateful=True, host_only=True)
register_op("Save", inputs=["filename: string", "tensor_names: string", "data: T"],
            attrs=["T: list(type) >= 1"], shape_fn=lambda op: [],
            kernel=_save_kernel, stateful=True, host_only=True)


def _restore_slice_kernel(file_pattern, tensor_name, shape_and_slice, *, dt, preferred_shard):
    pattern = _text(file_pattern)
    name = _text(tensor_name)
    reader, restore_one, close = _open_reader(pattern)
    try:
        return np.asarray(restore_one(reader, pattern, name, _text(shape_and_slice), dt))
    finally:
        close()


def _restore_kernel(file_pattern, tensor_name, *, dt, preferred_shard):
    return _restore_slice_kernel(file_pattern, tensor_name, np.array(b"", dtype=object),
                                 dt=dt, preferred_shard=preferred_shard)


register_op("RestoreSlice", inputs=["file_pattern: string", "tensor_name: string",
                                    "shape_and_slice: string"],
            outputs=["tensor: dt"], attrs=["dt: type", "preferred_shard: int = -1"],
            shape_fn=lambda op: _restore_shapes(op, op._inputs[2], 1),
            kernel=_restore_slice_kernel, stateful=True, host_only=True)
register_op("Restore", inputs=["file_pattern: string", "tensor_name: string"],
            outputs=["tensor: dt"], attrs=["dt: type", "preferred_shard: int = -1"],
            shape_fn=lambda op: [unknown_shape()], kernel=_restore_kernel, stateful=True,
            host_only=True)

for _op_type in ("SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename",
                 "ShardedFilespec", "SaveSlices", "Save", "RestoreSlice", "Restore"):
    NotDifferentiable(_op_type)


# -- graph functions ---------------------------------------------------------------------------
def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """A SaveV2 op writing `tensors` as a V2 checkpoint at `prefix`."""
    return apply_op("SaveV2", prefix=prefix, tensor_names=tensor_names,
                    shape_and_slices=shape_and_slices, tensors=list(tensors), name=name)


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name=None):  # noqa: A002
    """A RestoreV2 op; returns its list of output tensors."""
    types = [_dtypes.as_dtype(d).base_dtype for d in dtypes]
    op = apply_op("RestoreV2", prefix=prefix, tensor_names=tensor_names,
                  shape_and_slices=shape_and_slices, dtypes=types, name=name)
    return list(op.outputs)


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=True,
                         allow_missing_files=False, name=None):
    """A MergeV2Checkpoints op merging sharded bundles into `destination_prefix`."""
    return apply_op("MergeV2Checkpoints", checkpoint_prefixes=checkpoint_prefixes,
                    destination_prefix=destination_prefix, delete_old_dirs=delete_old_dirs,
                    allow_missing_files=allow_missing_files, name=name)


def sharded_filename(basename, shard, num_shards, name=None):
    """`basename-SSSSS-of-NNNNN` as a string tensor (ShardedFilename)."""
    return apply_op("ShardedFilename", basename=basename, shard=shard,
                    num_shards=num_shards, name=name).outputs[0]


def sharded_filespec(basename, num_shards, name=None):
    """`basename-?????-of-NNNNN` as a string tensor (ShardedFilespec)."""
    return apply_op("ShardedFilespec", basename=basename, num_shards=num_shards,
                    name=name).outputs[0]


def save_slices(filename, tensor_names, shapes_and_slices, data, name=None):
    """A SaveSlices op writing a V1 checkpoint file."""
    return apply_op("SaveSlices", filename=filename, tensor_names=tensor_names,
                    shapes_and_slices=shapes_and_slices, data=list(data), name=name)


def save(filename, tensor_names, data, name=None):
    """A Save op writing whole tensors to a V1 checkpoint file."""
    return apply_op("Save", filename=filename, tensor_names=tensor_names, data=list(data),
                    name=name)


def restore_slice(file_pattern, tensor_name, shape_and_slice, dt, preferred_shard=-1,
                  name=None):
    """A RestoreSlice op reading one (slice of a) tensor."""
    return apply_op("RestoreSlice", file_pattern=file_pattern, tensor_name=tensor_name,
                    shape_and_slice=shape_and_slice, dt=dtypes.as_dtype(dt),
                    preferred_shard=preferred_shard, name=name).outputs[0]


def restore(file_pattern, tensor_name, dt, preferred_shard=-1, name=None):
    """A Restore op reading one whole tensor."""
    return apply_op("Restore", file_pattern=file_pattern, tensor_name=tensor_name,
                    dt=dtypes.as_dtype(dt), preferred_shard=preferred_shard,
                    name=name).outputs[0]
