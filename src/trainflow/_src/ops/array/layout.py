"""Rearranging: Tile, Pad, PadV2, MirrorPad (and MirrorPadGrad), Transpose,
ConjugateTranspose, ReverseV2 and ReverseSequence, with their gradients."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, as_index_list, dims_of, fmt_dims, invalid_argument, merge_dim,
    partial_shape_value, shape_of, static_value, with_rank)
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.gather import invert_permutation
from trainflow._src.ops.array.join import concat, stack
from trainflow._src.ops.array.shape import (
    _deprecated_lookup, rank, rank as tf_rank, reshape, shape, size)
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.math.arith import mod
from trainflow._src.ops.math.reductions import reduce_sum
from trainflow._src.ops.math.segment import unsorted_segment_sum

__all__ = ["tile", "pad", "transpose", "reverse", "reverse_v2", "reverse_sequence"]


# -- Tile ------------------------------------------------------------------------------
def _tile_shape(op):
    src = dims_of(op.inputs[0])
    with_rank(dims_of(op.inputs[1]), 1)
    mult = partial_shape_value(op.inputs[1])
    if src is not None:
        mult = with_rank(mult, len(src))
        merge_dim(dims_of(op.inputs[1])[0], len(src))
    if mult is None:
        return [UNKNOWN]
    src = with_rank(src, len(mult))
    out = []
    for d, m in zip(src, mult):
        if d == 0 or m == 0:
            out.append(0)
        elif d is None or m is None:
            out.append(None)
        else:
            out.append(d * m)
    return [shape_of(out)]


def _tile_kernel(x, multiples):
    reps = as_index_list(multiples)
    if multiples.ndim != 1 or len(reps) != x.ndim:
        raise invalid_argument(f"Expected multiples argument to be a vector of length {x.ndim} "
                               f"but got length {len(reps)}")
    for i, m in enumerate(reps):
        if m < 0:
            raise invalid_argument(f"Expected multiples[{i}] >= 0, but got {m}")
    return np.tile(x, reps)


register_op("Tile", inputs=["input: T", "multiples: Tmultiples"], outputs=["output: T"],
            attrs=["T: type", "Tmultiples: {int32, int64} = DT_INT32"], shape_fn=_tile_shape,
            kernel=_tile_kernel)


@RegisterGradient("Tile")
def _tile_grad(op, grad):
    """Sums the gradient over the copies: reshape to [m0, d0, m1, d1, ...] (multiples
    interleaved with the input sizes) and reduce the even axes."""
    input_shape = shape(op.inputs[0], out_type=op.inputs[1].dtype.base_dtype)
    split_shape = reshape(transpose(stack([op.inputs[1], input_shape])), [-1])
    axes = range_(0, size(split_shape), 2)
    if isinstance(grad, IndexedSlices):
        # Fold the rows of the sparse gradient onto the input's first dimension first.
        rows = cast(input_shape[0], grad.indices.dtype.base_dtype)
        grad = unsorted_segment_sum(grad.values, mod(grad.indices, rows, name="mod"), rows)
        split_shape = concat([[1], split_shape[1:]], axis=0)
    input_grad = reduce_sum(reshape(grad, split_shape), axes)
    input_grad.set_shape(op.inputs[0].shape)
    return input_grad, None


def tile(input, multiples, name=None):  # noqa: A002
    """Repeats `input` `multiples[i]` times along dimension i (`tf.tile`)."""
    return apply_op("Tile", input=input, multiples=multiples, name=name).outputs[0]


# -- Pad / PadV2 / MirrorPad ------------------------------------------------------------
def _pad_shape(op):
    src = dims_of(op.inputs[0])
    pads = with_rank(dims_of(op.inputs[1]), 2)
    merge_dim(pads[1], 2)
    n = pads[0]
    if n is not None:
        src = with_rank(src, n)
    elif src is not None:
        n = len(src)
    value = static_value(op.inputs[1])
    if value is None:
        return [shape_of(None if n is None else (None,) * n)]
    src = with_rank(src, value.shape[0])
    out = []
    for d, (before, after) in zip(src, value.tolist()):
        if before < 0 or after < 0:
            raise ValueError("Paddings must be non-negative")
        out.append(None if d is None else d + before + after)
    return [shape_of(out)]


def _check_paddings(x, paddings):
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise invalid_argument(f"paddings must be a matrix with 2 columns: "
                               f"{fmt_dims(paddings.shape)}")
    if paddings.shape[0] != x.ndim:
        raise invalid_argument(f"The first dimension of paddings must be the rank of inputs"
                               f"{fmt_dims(paddings.shape)} {fmt_dims(x.shape)}")
    pads = paddings.tolist()
    for before, after in pads:
        if before < 0 or after < 0:
            raise invalid_argument(f"Paddings must be non-negative: {before} {after}")
    return pads


def _pad_kernel(x, paddings):
    pads = _check_paddings(x, paddings)
    fill = b"" if x.dtype == object else 0
    return np.pad(x, pads, mode="constant", constant_values=fill)


def _pad_v2_kernel(x, paddings, constant_values):
    pads = _check_paddings(x, paddings)
    if np.ndim(constant_values) != 0:
        raise invalid_argument(f"constant_values must be a scalar. Found: "
                               f"{fmt_dims(np.shape(constant_values))}")
    return np.pad(x, pads, mode="constant", constant_values=constant_values)


def _mirror_pad_kernel(x, paddings, *, mode):
    pads = _check_paddings(x, paddings)
    reflect = mode == b"REFLECT"
    for (before, after), dim in zip(pads, x.shape):
        if reflect and (before >= dim or after >= dim):
            raise invalid_argument(f"paddings must be less than the dimension size: {before}, "
                                   f"{after} not less than {dim}")
        if not reflect and (before > dim or after > dim):
            raise invalid_argument(f"paddings must be no greater than the dimension size: "
                                   f"{before}, {after} greater than {dim}")
    return np.pad(x, pads, mode="reflect" if reflect else "symmetric")


register_op("Pad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
            attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"], shape_fn=_pad_shape,
            kernel=_pad_kernel)
register_op("PadV2", inputs=["input: T", "paddings: Tpaddings", "constant_values: T"],
            outputs=["output: T"], attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"],
            shape_fn=_pad_shape, kernel=_pad_v2_kernel)
register_op("MirrorPad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
            attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32",
                   "mode: {'REFLECT', 'SYMMETRIC'}"],
            shape_fn=_pad_shape, kernel=_mirror_pad_kernel)


def _pad_grad(op, grad):
    """The gradient of the unpadded region: a Slice at the leading paddings."""
    x, paddings = op.inputs[0], op.inputs[1]
    pad_before = slice_(paddings, [0, 0], stack([rank(x), 1]))
    begin = reshape(pad_before, [-1])
    sizes = shape(x, out_type=begin.dtype.base_dtype)
    x_grad = slice_(grad, begin, sizes)
    return (x_grad, None, None) if len(op.inputs) == 3 else (x_grad, None)


RegisterGradient("Pad")(_pad_grad)
RegisterGradient("PadV2")(_pad_grad)


def _mirror_pad_grad_shape(op):
    src = dims_of(op.inputs[0])
    pads = with_rank(dims_of(op.inputs[1]), 2)
    merge_dim(pads[1], 2)
    if pads[0] is not None:
        src = with_rank(src, pads[0])
    value = static_value(op.inputs[1])
    if src is None:
        return [UNKNOWN]
    if value is None:
        return [shape_of((None,) * len(src))]
    src = with_rank(src, value.shape[0])
    out = []
    for d, (before, after) in zip(src, value.tolist()):
        if before < 0 or after < 0:
            raise ValueError("Paddings must be non-negative")
        if d is not None and d < before + after:
            raise ValueError(f"Paddings must be less than the input dimension size: "
                             f"{before}, {after} vs. {d}")
        out.append(None if d is None else d - before - after)
    return [shape_of(out)]


def _mirror_pad_grad_kernel(input, paddings, *, mode):  # noqa: A002 - TF's name
    """Folds each mirrored border back onto the cells it copied, one dimension at a time."""
    pads = _check_paddings(input, paddings)
    edge = 1 if mode == b"REFLECT" else 0  # REFLECT does not repeat the border cell
    out = input
    for axis, (before, after) in enumerate(pads):
        n = out.shape[axis] - before - after
        if n < 0 or before + edge > n or after + edge > n:
            raise invalid_argument(f"paddings must be less than the dimension size: {before}, "
                                   f"{after} not less than {max(n, 0)}")
        moved = np.moveaxis(out, axis, 0)
        core = moved[before:before + n].copy()
        if before:
            core[edge:edge + before] += moved[before - 1::-1][:before]
        if after:
            core[n - edge - after:n - edge] += moved[:before + n - 1:-1][:after]
        out = np.moveaxis(core, 0, axis)
    return np.ascontiguousarray(out)


register_op("MirrorPadGrad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
            attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32",
                   "mode: {'REFLECT', 'SYMMETRIC'}"],
            shape_fn=_mirror_pad_grad_shape, kernel=_mirror_pad_grad_kernel)


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    return apply_op("MirrorPadGrad", input=grad, paddings=op.inputs[1],
                    mode=op._attrs["mode"]).outputs[0], None


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, grad):
    return apply_op("MirrorPad", input=grad, paddings=op.inputs[1],
                    mode=op._attrs["mode"]).outputs[0], None


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads `tensor` (`tf.pad`): mode CONSTANT (Pad, or PadV2 for a non-zero
    constant_values), REFLECT or SYMMETRIC (MirrorPad); case-insensitive.

    Raises:
      ValueError: for an unknown mode.
    """
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and \
                constant_values == np.zeros_like(constant_values):
            return apply_op("Pad", input=tensor, paddings=paddings, name=name).outputs[0]
        return apply_op("PadV2", input=tensor, paddings=paddings,
                        constant_values=constant_values, name=name).outputs[0]
    if mode in ("REFLECT", "SYMMETRIC"):
        return apply_op("MirrorPad", input=tensor, paddings=paddings, mode=mode,
                        name=name).outputs[0]
    raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
                     f'"SYMMETRIC". Received `mode` = {mode}')


# -- Transpose -----------------------------------------------------------------------------
def _transpose_shape(op):
    src = dims_of(op.inputs[0])
    perm_dims = dims_of(op.inputs[1])
    perm_elems = None if perm_dims is None or len(perm_dims) != 1 else perm_dims[0]
    perm = static_value(op.inputs[1])
    if src is None and perm_elems is None:
        return [UNKNOWN]
    rank = len(src) if src is not None else perm_elems
    if src is None and rank < 2:
        return [UNKNOWN]
    src = with_rank(src, rank)
    with_rank(perm_dims, 1)
    merge_dim(perm_elems, rank)
    if perm is None:
        return [shape_of((None,) * rank)]
    out = []
    for i in perm.reshape(-1).tolist():
        if i >= rank or i < -rank:
            raise ValueError(f"perm dim {i} is out of range of input rank {rank}")
        out.append(src[i])
    return [shape_of(out)]


def _check_perm(x, perm):
    p = as_index_list(perm)
    n = x.ndim
    if perm.ndim != 1 or len(p) != n:
        raise invalid_argument(f"transpose expects a vector of size {n}. But input(1) is a "
                               f"vector of size {len(p)}")
    seen = [False] * n
    for d in p:
        if not 0 <= d < n:
            raise invalid_argument(f"{d} is out of range [0 .. {n})")
        seen[d] = True
    for i, s in enumerate(seen):
        if not s:
            raise invalid_argument(f"{i} is missing from {{{','.join(map(str, p))}}}.")
    return p


def _transpose_kernel(x, perm):
    try:
        return x.transpose(perm.tolist())
    except (ValueError, TypeError):
        _check_perm(x, perm)
        raise


def _conjugate_transpose_kernel(x, perm):
    return np.conj(np.transpose(x, _check_perm(x, perm)))


register_op("Transpose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
            attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"], shape_fn=_transpose_shape,
            kernel=_transpose_kernel, output_aliases_input=True)
register_op("ConjugateTranspose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
            attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"], shape_fn=_transpose_shape,
            kernel=_conjugate_transpose_kernel)


@RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    """Transposes the gradient by the inverse permutation."""
    return transpose(grad, invert_permutation(op.inputs[1])), None


@RegisterGradient("ConjugateTranspose")
def _conjugate_transpose_grad(op, grad):
    return transpose(grad, invert_permutation(op.inputs[1]), conjugate=True), None


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of `a` (`tf.transpose`); the default perm reverses them.

    Args:
      a: a tensor.
      perm: a permutation of the dimensions, or None.
      name: op name.
      conjugate: also conjugate complex values (a ConjugateTranspose op).
    """
    with name_scope(name, "transpose", [a]) as scope:
        if not isinstance(a, Tensor):
            a = convert_to_tensor(a, name="a")
        op_type = "ConjugateTranspose" if conjugate and a.dtype.is_complex else "Transpose"
        if perm is None:
            rank = a.shape.rank
            if rank is None:
                perm = apply_op("Range", start=tf_rank(a) - 1, limit=-1, delta=-1).outputs[0]
            else:
                perm = np.arange(rank - 1, -1, -1, dtype=np.int32)
        return apply_op(op_type, x=a, perm=perm, name=scope).outputs[0]


# -- ReverseV2 / ReverseSequence ----------------------------------------------------------
def _reverse_kernel(tensor, axis):
    axes = as_index_list(axis)
    rank = tensor.ndim
    seen = set()
    for i, a in enumerate(axes):
        if not -rank <= a < rank:
            raise invalid_argument(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}")
        a = a + rank if a < 0 else a
        if a in seen:
            raise invalid_argument(f"axis {a} specified more than once.")
        seen.add(a)
    return np.flip(tensor, axis=tuple(seen)) if seen else tensor


register_op("ReverseV2", inputs=["tensor: T", "axis: Tidx"], outputs=["output: T"],
            attrs=["Tidx: {int32, int64} = DT_INT32",
                   "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, "
                   "bfloat16, half, float, double, complex64, complex128, string}"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_reverse_kernel,
            output_aliases_input=True)


def reverse(tensor, axis, name=None):
    """Reverses the listed dimensions of `tensor` (`tf.reverse`, a ReverseV2 op)."""
    return apply_op("ReverseV2", tensor=tensor, axis=axis, name=name).outputs[0]


reverse_v2 = reverse


@RegisterGradient("ReverseV2")
def _reverse_grad(op, grad):
    return reverse(grad, op.inputs[1]), None


def _reverse_sequence_shape(op):
    src = dims_of(op.inputs[0])
    lens = with_rank(dims_of(op.inputs[1]), 1)
    if src is None:
        return [UNKNOWN]
    seq_dim, batch_dim = op._attrs["seq_dim"], op._attrs["batch_dim"]
    rank = len(src)
    if not 0 <= batch_dim < rank:
        raise ValueError(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if not 0 <= seq_dim < rank:
        raise ValueError(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    if seq_dim == batch_dim:
        raise ValueError(f"batch_dim == seq_dim == {seq_dim}")
    batch = merge_dim(src[batch_dim], lens[0])
    return [shape_of(src[:batch_dim] + (batch,) + src[batch_dim + 1:])]


def _reverse_sequence_kernel(x, seq_lengths, *, seq_dim, batch_dim):
    lens = as_index_list(seq_lengths)
    if len(lens) != x.shape[batch_dim]:
        raise invalid_argument(f"Length of seq_lengths != input.dims({batch_dim}), ({len(lens)} "
                               f"vs. {x.shape[batch_dim]})")
    out = x.copy()
    axis = seq_dim - (seq_dim > batch_dim)  # seq_dim once the batch dim is indexed away
    for b, n in enumerate(lens):
        if n < 0:
            raise invalid_argument(f"seq_lens({b}) < 0")
        if n > x.shape[seq_dim]:
            raise invalid_argument(f"seq_lens({b}) > input.dims({seq_dim})")
        index = [slice(None)] * x.ndim
        index[batch_dim] = b
        index[seq_dim] = slice(0, n)
        index = tuple(index)
        out[index] = np.flip(x[index], axis=axis)
    return out


register_op("ReverseSequence", inputs=["input: T", "seq_lengths: Tlen"], outputs=["output: T"],
            attrs=["seq_dim: int", "batch_dim: int = 0", "T: type",
                   "Tlen: {int32, int64} = DT_INT64"],
            shape_fn=_reverse_sequence_shape, kernel=_reverse_sequence_kernel)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,  # noqa: A002
                     seq_dim=None, batch_dim=None):
    """Reverses the first `seq_lengths[b]` elements along `seq_axis` of each batch entry b
    (`tf.reverse_sequence`; `seq_dim`/`batch_dim` are TF1's old names)."""
    seq_axis = _deprecated_lookup("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _deprecated_lookup("batch_axis", batch_axis, "batch_dim", batch_dim)
    kwargs = {} if batch_axis is None else {"batch_dim": batch_axis}
    if seq_axis is not None:
        kwargs["seq_dim"] = seq_axis
    return apply_op("ReverseSequence", input=input, seq_lengths=seq_lengths, name=name,
                    **kwargs).outputs[0]


@RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    """Reversing the same prefixes again puts the gradient back in place."""
    return reverse_sequence(grad, op.inputs[1], seq_axis=op._attrs["seq_dim"],
                            batch_axis=op._attrs["batch_dim"]), None
