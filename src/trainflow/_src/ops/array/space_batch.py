"""Rearrangements between batch and space, rolls and index unravelling: SpaceToBatchND and
BatchToSpaceND (each the other's gradient) with TF1's `space_to_batch` / `batch_to_space`,
Roll (`tf.roll`, `tf.manip.roll`) and UnravelIndex (`tf.unravel_index`; no gradient in
TensorFlow)."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, invalid_argument, shape_of, static_value, with_rank,
    with_rank_at_least)

__all__ = ["batch_to_space", "batch_to_space_nd", "roll", "space_to_batch",
           "space_to_batch_nd", "unravel_index"]

_INT = "{int32, int64} = DT_INT32"


# -- SpaceToBatchND / BatchToSpaceND ---------------------------------------------------------
def _block_and_pads(input, block_shape, pads, what):  # noqa: A002 - TF's names
    x = np.asarray(input)
    block = np.asarray(block_shape).reshape(-1).astype(np.int64)
    pads = np.asarray(pads).astype(np.int64)
    m = block.size
    if pads.shape != (m, 2):
        raise invalid_argument(f"{what} should have shape [{m}, 2] instead of "
                               f"{list(pads.shape)}")
    if x.ndim < 1 + m:
        raise invalid_argument(f"input rank should be >= {1 + m} instead of {x.ndim}")
    if (block < 1).any():
        raise invalid_argument(f"block_shape must be positive, got {block.tolist()}")
    if (pads < 0).any():
        raise invalid_argument(f"{what} must be non-negative, got {pads.tolist()}")
    return x, block, pads, m


def _space_to_batch_nd(input, block_shape, paddings):  # noqa: A002
    x, block, pads, m = _block_and_pads(input, block_shape, paddings, "paddings")
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    batch, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    for i, (size, b) in enumerate(zip(spatial, block)):
        if size % b:
            raise invalid_argument(f"padded_shape[{i}]={size} is not divisible by "
                                   f"block_shape[{i}]={b}")
    outer = [s // b for s, b in zip(spatial, block)]
    split = [batch] + [v for pair in zip(outer, block) for v in pair] + list(rest)
    y = x.reshape(split)
    perm = ([2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
            + list(range(1 + 2 * m, y.ndim)))
    return np.ascontiguousarray(y.transpose(perm)).reshape(
        [batch * int(np.prod(block))] + outer + list(rest))


def _batch_to_space_nd(input, block_shape, crops):  # noqa: A002
    x, block, crops, m = _block_and_pads(input, block_shape, crops, "crops")
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise invalid_argument(f"Input batch dimension ({x.shape[0]}) is not divisible by "
                               f"product of block sizes ({prod})")
    batch, spatial, rest = x.shape[0] // prod, x.shape[1:1 + m], x.shape[1 + m:]
    y = x.reshape(list(block) + [batch] + list(spatial) + list(rest))
    perm = ([m] + [v for i in range(m) for v in (m + 1 + i, i)]
            + list(range(2 * m + 1, y.ndim)))
    y = y.transpose(perm).reshape([batch] + [s * b for s, b in zip(spatial, block)]
                                  + list(rest))
    index = [slice(None)]
    for s, (lo, hi) in zip(y.shape[1:], crops):
        if lo + hi > s:
            raise invalid_argument(f"Cropped size must be non-negative: start: {lo} end: "
                                   f"{hi} size {s}")
        index.append(slice(lo, s - hi))
    return np.ascontiguousarray(y[tuple(index)])


def _space_batch_shape(to_batch):
    def shape_fn(op):
        dims = dims_of(op.inputs[0])
        block = static_value(op.inputs[1])
        pads = static_value(op.inputs[2])
        if dims is None or block is None:
            return [UNKNOWN]
        block = block.reshape(-1).tolist()
        m = len(block)
        dims = with_rank_at_least(dims, m + 1)
        prod = int(np.prod(block))
        batch, spatial, rest = dims[0], dims[1:1 + m], list(dims[1 + m:])
        if pads is None:
            return [shape_of([None if batch is None else
                              (batch * prod if to_batch else batch // prod)]
                             + [None] * m + rest)]
        out = []
        for i, (size, b, (lo, hi)) in enumerate(zip(spatial, block, pads.tolist())):
            if size is None:
                out.append(None)
            elif to_batch:
                if (size + lo + hi) % b:
                    raise ValueError(f"Dimension size must be evenly divisible by {b} but "
                                     f"is {size + lo + hi} for 'SpaceToBatchND' "
                                     f"(padded_shape[{i}])")
                out.append((size + lo + hi) // b)
            else:
                out.append(size * b - lo - hi)
        if batch is not None:
            if not to_batch and batch % prod:
                raise ValueError(f"Dimension size must be evenly divisible by {prod} but is "
                                 f"{batch} for 'BatchToSpaceND'")
            batch = batch * prod if to_batch else batch // prod
        return [shape_of([batch] + out + rest)]
    return shape_fn


register_op("SpaceToBatchND", inputs=["input: T", "block_shape: Tblock_shape",
                                      "paddings: Tpaddings"],
            outputs=["output: T"],
            attrs=["T: type", f"Tblock_shape: {_INT}", f"Tpaddings: {_INT}"],
            shape_fn=_space_batch_shape(True), kernel=_space_to_batch_nd)
register_op("BatchToSpaceND", inputs=["input: T", "block_shape: Tblock_shape",
                                      "crops: Tcrops"],
            outputs=["output: T"],
            attrs=["T: type", f"Tblock_shape: {_INT}", f"Tcrops: {_INT}"],
            shape_fn=_space_batch_shape(False), kernel=_batch_to_space_nd)


@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op, grad):
    return [batch_to_space_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op, grad):
    return [space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None]


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Zero-pads the M spatial dims of `input`, then moves `block_shape` blocks of them
    into the batch dimension (`SpaceToBatchND`)."""
    return apply_op("SpaceToBatchND", input=input, block_shape=block_shape,
                    paddings=paddings, name=name).outputs[0]


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of `space_to_batch_nd`: moves batch blocks back into the M spatial
    dims, then crops them (`BatchToSpaceND`)."""
    return apply_op("BatchToSpaceND", input=input, block_shape=block_shape, crops=crops,
                    name=name).outputs[0]


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's `tf.space_to_batch`: `space_to_batch_nd` with a square block over the two
    spatial dims of a 4-D input (`block_shape` is `block_size`'s newer name).

    Raises:
      ValueError: if both or neither of block_size and block_shape are given.
    """
    block_size = _one_of(block_size, block_shape)
    return space_to_batch_nd(input, np.array([block_size, block_size], np.int64), paddings,
                             name=name)


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """TF1's `tf.batch_to_space`: `batch_to_space_nd` with a square block.

    Raises:
      ValueError: if both or neither of block_size and block_shape are given.
    """
    block_size = _one_of(block_size, block_shape)
    return batch_to_space_nd(input, np.array([block_size, block_size], np.int64), crops,
                             name=name)


def _one_of(block_size, block_shape):
    if (block_size is None) == (block_shape is None):
        raise ValueError("Cannot specify both 'block_shape' and 'block_size'."
                         if block_size is not None else
                         "Must specify exactly one of 'block_shape' and 'block_size'.")
    return block_size if block_size is not None else block_shape


# -- Roll ------------------------------------------------------------------------------------
def _roll(input, shift, axis):  # noqa: A002
    x = np.asarray(input)
    shift, axis = np.asarray(shift), np.asarray(axis)
    if shift.ndim > 1:
        raise invalid_argument(f"shift must be a scalar or a 1-D vector. Found: "
                               f"{list(shift.shape)}")
    if axis.ndim > 1:
        raise invalid_argument(f"axis must be a scalar or a 1-D vector. Found: "
                               f"{list(axis.shape)}")
    if shift.shape != axis.shape:
        raise invalid_argument(f"shift and axis must have the same size. Found "
                               f"{shift.size} and {axis.size}")
    if x.ndim == 0:
        raise invalid_argument("input must be 1-D or higher")
    shifts, axes = shift.reshape(-1).tolist(), axis.reshape(-1).tolist()
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise invalid_argument(f"axis {a} is out of range")
    return np.roll(x, shifts, axes) if axes else x.copy()


def _roll_shape(op):
    for t in op.inputs[1:]:
        dims = dims_of(t)
        if dims is not None and len(dims) > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {len(dims)} for "
                             f"'{op.name}'")
    return [op.inputs[0].shape]


register_op("Roll", inputs=["input: T", "shift: Tshift", "axis: Taxis"], outputs=["output: T"],
            attrs=["T: type", "Tshift: {int32, int64}", "Taxis: {int32, int64}"],
            shape_fn=_roll_shape, kernel=_roll)


@RegisterGradient("Roll")
def _roll_grad(op, grad):
    return [roll(grad, -op.inputs[1], op.inputs[2]), None, None]


def roll(input, shift, axis, name=None):  # noqa: A002
    """Rolls the elements of `input` by `shift` along `axis` (both scalars or equal-length
    vectors; a repeated axis adds its shifts), wrapping around (`Roll`)."""
    return apply_op("Roll", input=input, shift=shift, axis=axis, name=name).outputs[0]


# -- UnravelIndex ----------------------------------------------------------------------------
def _unravel_index(indices, dims):
    idx, dims = np.asarray(indices), np.asarray(dims)
    if idx.ndim > 1:
        raise invalid_argument(f"The indices can only be scalar or vector, got "
                               f"\"{list(idx.shape)}\"")
    if dims.ndim != 1:
        raise invalid_argument(f"The indices can only be 1-D, got \"{list(dims.shape)}\"")
    if (dims <= 0).any():
        raise invalid_argument("Input dims must be a positive value.")
    size = int(np.prod(dims))
    if ((idx < 0) | (idx >= size)).any():
        raise invalid_argument(f"index out of bounds for dims {dims.tolist()}")
    out = np.stack(np.unravel_index(idx.reshape(-1), dims.tolist())).astype(dims.dtype)
    return out.reshape(-1) if idx.ndim == 0 else out


def _unravel_index_shape(op):
    dims = with_rank(dims_of(op.inputs[1]), 1) if dims_of(op.inputs[1]) is not None \
        else (None,)
    idx = dims_of(op.inputs[0])
    if idx is None:
        return [UNKNOWN]
    if len(idx) == 0:
        return [shape_of([dims[0]])]
    return [shape_of([dims[0], idx[0]])]


register_op("UnravelIndex", inputs=["indices: Tidx", "dims: Tidx"], outputs=["output: Tidx"],
            attrs=["Tidx: {int32, int64} = DT_INT32"], shape_fn=_unravel_index_shape,
            kernel=_unravel_index)


def unravel_index(indices, dims, name=None):
    """The coordinates, in an array of shape `dims`, of flat `indices` (`UnravelIndex`):
    shape [len(dims)] for a scalar index, [len(dims), n] for n indices."""
    return apply_op("UnravelIndex", indices=indices, dims=dims, name=name).outputs[0]
