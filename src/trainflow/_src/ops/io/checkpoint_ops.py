"""Warm-starting ops: GenerateVocabRemapping (new vocabulary ids -> old ids) and
LoadAndRemapMatrix (a checkpointed matrix with rows/columns reordered, missing ones filled
from initializing values)."""
__all__ = ["generate_vocab_remapping", "load_and_remap_matrix"]

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape, scalar
from trainflow._src.ops.io.save_restore import _open_reader, _text
from trainflow._src.framework import dtypes


def _read_vocab(path, limit=-1):
    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if lines and lines[-1] == b"":
        lines.pop()
    return lines if limit < 0 else lines[:limit]


def _generate_vocab_remapping_kernel(new_vocab_file, old_vocab_file, *, new_vocab_offset,
                                     num_new_vocab, old_vocab_size):
    new_path, old_path = _text(new_vocab_file), _text(old_vocab_file)
    new_vocab = _read_vocab(new_path)
    if new_vocab_offset + num_new_vocab > len(new_vocab):
        raise errors.InvalidArgumentError(
            None, None, f"Trying to read {num_new_vocab} entries from offset "
            f"{new_vocab_offset} of the new vocabulary {new_path}, which has only "
            f"{len(new_vocab)} entries")
    old_vocab = _read_vocab(old_path, old_vocab_size)
    if 0 <= old_vocab_size != len(old_vocab):
        raise errors.InvalidArgumentError(
            None, None, f"old_vocab_size {old_vocab_size} is larger than the "
            f"{len(old_vocab)} entries of the old vocabulary {old_path}")
    old_ids = {}
    for i, token in enumerate(old_vocab):
        old_ids.setdefault(token, i)
    wanted = new_vocab[new_vocab_offset:new_vocab_offset + num_new_vocab]
    remapping = np.array([old_ids.get(t, -1) for t in wanted], dtype=np.int64)
    return remapping, np.int32((remapping >= 0).sum())


register_op("GenerateVocabRemapping", inputs=["new_vocab_file: string", "old_vocab_file: string"],
            outputs=["remapping: int64", "num_present: int32"],
            attrs=["new_vocab_offset: int >= 0", "num_new_vocab: int >= 0",
                   "old_vocab_size: int >= -1 = -1"],
            shape_fn=lambda op: [TensorShape([op._attrs["num_new_vocab"]]), scalar()],
            kernel=_generate_vocab_remapping_kernel, host_only=True)


def _load_and_remap_kernel(ckpt_path, old_tensor_name, row_remapping, col_remapping,
                           initializing_values, *, num_rows, num_cols, max_rows_in_memory):
    prefix, name = _text(ckpt_path), _text(old_tensor_name)
    rows = np.asarray(row_remapping, dtype=np.int64).reshape(-1)
    cols = np.asarray(col_remapping, dtype=np.int64).reshape(-1)
    if rows.size != num_rows:
        raise errors.InvalidArgumentError(
            None, None, f"Tensor row_remapping should have {num_rows} elements, but has "
            f"{rows.size}")
    if cols.size and cols.size != num_cols:
        raise errors.InvalidArgumentError(
            None, None, f"Tensor col_remapping is nonempty, so it should have {num_cols} "
            f"elements, but has {cols.size}")
    if not cols.size:
        cols = np.arange(num_cols, dtype=np.int64)
    reader, restore_one, close = _open_reader(prefix)
    try:
        old = np.asarray(restore_one(reader, prefix, name, "", dtypes.float32))
    finally:
        close()
    if old.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"Tensor {name} in {prefix} must be a matrix, has shape "
            f"{list(old.shape)}")
    for what, ids, bound in (("row", rows, old.shape[0]), ("column", cols, old.shape[1])):
        bad = ids[(ids >= bound) | (ids < -1)]
        if bad.size:
            raise errors.InvalidArgumentError(
                None, None, f"Old {what} id {int(bad[0])} is out of range for {name} of shape "
                f"{list(old.shape)}")
    present = (rows[:, None] >= 0) & (cols[None, :] >= 0)
    init = np.asarray(initializing_values, dtype=np.float32).reshape(-1)
    missing = int(present.size - present.sum())
    if init.size != missing:
        raise errors.InvalidArgumentError(
            None, None, f"Number of elements of initializing_values ({init.size}) must match "
            f"the number of entries not found in the checkpoint ({missing})")
    out = np.empty((num_rows, num_cols), dtype=np.float32)
    out[present] = old[np.ix_(np.maximum(rows, 0), np.maximum(cols, 0))][present]
    out[~present] = init
    return out


register_op("LoadAndRemapMatrix",
            inputs=["ckpt_path: string", "old_tensor_name: string", "row_remapping: int64",
                    "col_remapping: int64", "initializing_values: float"],
            outputs=["output_matrix: float"],
            attrs=["num_rows: int >= 0", "num_cols: int >= 1",
                   "max_rows_in_memory: int = -1"],
            shape_fn=lambda op: [TensorShape([op._attrs["num_rows"], op._attrs["num_cols"]])],
            kernel=_load_and_remap_kernel, stateful=True, host_only=True)
NotDifferentiable("GenerateVocabRemapping")
NotDifferentiable("LoadAndRemapMatrix")


def generate_vocab_remapping(new_vocab_file, old_vocab_file, new_vocab_offset, num_new_vocab,
                             old_vocab_size=-1, name=None):
    """(remapping, num_present): the old id of each of `num_new_vocab` new vocabulary
    entries from `new_vocab_offset` (-1 where absent), and how many were found."""
    op = apply_op("GenerateVocabRemapping", new_vocab_file=new_vocab_file,
                  old_vocab_file=old_vocab_file, new_vocab_offset=new_vocab_offset,
                  num_new_vocab=num_new_vocab, old_vocab_size=old_vocab_size, name=name)
    return op.outputs[0], op.outputs[1]


def load_and_remap_matrix(ckpt_path, old_tensor_name, row_remapping, col_remapping,
                          initializing_values, num_rows, num_cols, max_rows_in_memory=-1,
                          name=None):
    """A [num_rows, num_cols] float matrix: checkpoint tensor `old_tensor_name` with rows and
    columns picked by the remappings (-1: not in the checkpoint), the missing entries taken
    from `initializing_values` in row-major order."""
    return apply_op("LoadAndRemapMatrix", ckpt_path=ckpt_path, old_tensor_name=old_tensor_name,
                    row_remapping=row_remapping, col_remapping=col_remapping,
                    initializing_values=initializing_values, num_rows=num_rows,
                    num_cols=num_cols, max_rows_in_memory=max_rows_in_memory,
                    name=name).outputs[0]
