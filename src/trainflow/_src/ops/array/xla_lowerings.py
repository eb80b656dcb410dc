"""XLA lowerings of the array ops (shapes, layout, joins, slices, gathers, creation),
registered with the registry's "xla" backend; imported only when XLA is on.

Shape-like inputs (a Reshape's shape, a Transpose's perm, slice bounds, axes) must be
known while tracing; they are when they come from constants or static shapes (the
segment computes such ops with their NumPy kernels). Otherwise the lowering raises
and the segment runs on NumPy.
"""
import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework.registry import register_kernel
from trainflow._src.ops.array.slicing import _plan_for_kernel
from trainflow._src.ops.array.slicing_grad import _grad_plan

XLA = "xla"


def _static(x):
    """A trace-time constant as a NumPy array (raises for traced values)."""
    if isinstance(x, (np.ndarray, np.generic, int, float, list, tuple)):
        return np.asarray(x)
    if isinstance(x, jax.core.Tracer):
        raise TypeError("a static shape argument is computed in the step, not known at "
                        "trace time")
    return np.asarray(x)


def _ints(x):
    return [int(v) for v in _static(x).reshape(-1)]


def _reshape(tensor, shape):
    return jnp.reshape(tensor, _ints(shape))


def _transpose(x, perm):
    return jnp.transpose(x, _ints(perm))


def _concat(values, axis):
    return jnp.concatenate(values, axis=int(_static(axis)))


def _pack(values, *, axis):
    return jnp.stack(values, axis=axis)


def _unpack(value, *, num, axis):
    if jnp.shape(value)[axis] != num:
        raise ValueError("Unpack: num does not match the dimension (NumPy raises TF's error)")
    return tuple(jnp.moveaxis(value, axis, 0)[i] for i in range(num))


def _slice(x, begin, size):
    b = _ints(begin)
    s = [jnp.shape(x)[i] - b[i] if n == -1 else n for i, n in enumerate(_ints(size))]
    return jax.lax.slice(x, b, [bi + si for bi, si in zip(b, s)])


def _strided_slice(x, begin, end, strides, *, begin_mask, end_mask, ellipsis_mask,
                   new_axis_mask, shrink_axis_mask):
    x = jnp.asarray(x)
    final, index = _plan_for_kernel(x, _static(begin), _static(end), _static(strides),
                                    begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                    shrink_axis_mask)
    return jnp.reshape(x[index], final)


def _strided_slice_grad(shape, begin, end, strides, dy, *, begin_mask, end_mask,
                        ellipsis_mask, new_axis_mask, shrink_axis_mask):
    dims = tuple(_ints(shape))
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    final, index = _grad_plan(dims, _static(begin), _static(end), _static(strides), masks)
    out = jnp.zeros(dims, dtype=jnp.result_type(dy))
    target = out[index]
    return out.at[index].set(jnp.reshape(dy, jnp.shape(target)))


def _gather(params, indices, axis=0, batch_dims=0, check=None):
    ax = int(_static(axis)) % jnp.ndim(params)
    if batch_dims < 0:
        batch_dims += jnp.ndim(indices)
    n = jnp.shape(params)[ax]
    if check is not None:
        check(jnp.any((indices < 0) | (indices >= n)), "indices out of range")
    if batch_dims:
        fn = lambda p, i: jnp.take(p, i, axis=ax - batch_dims, mode="clip")  # noqa: E731
        for _ in range(batch_dims):
            fn = jax.vmap(fn)
        return fn(params, indices)
    return jnp.take(params, indices, axis=ax, mode="clip")


def _gather_v2(params, indices, axis, *, batch_dims, check):
    return _gather(params, indices, axis, batch_dims, check)


def _gather_v1(params, indices, *, check):
    return _gather(params, indices, 0, 0, check)


def _fill(dims, value):
    return jnp.full(_ints(dims), value, dtype=jnp.result_type(value))


def _one_hot(indices, depth, on_value, off_value, *, axis):
    d = int(_static(depth))
    hot = jax.nn.one_hot(indices, d, axis=axis, dtype=jnp.bool_)
    return jnp.where(hot, on_value, off_value).astype(jnp.result_type(on_value))


def _tile(x, multiples):
    return jnp.tile(x, _ints(multiples))


def _pad(x, paddings, constant_values=0):
    p = _static(paddings).reshape(-1, 2)
    return jnp.pad(x, [tuple(int(v) for v in row) for row in p],
                   constant_values=jnp.asarray(constant_values, jnp.result_type(x)))


def _expand_dims(x, dim):
    d = int(_static(dim))
    return jnp.expand_dims(x, d if d >= 0 else jnp.ndim(x) + 1 + d)


def _squeeze(x, *, squeeze_dims):
    if squeeze_dims:
        return jnp.squeeze(x, tuple(d % jnp.ndim(x) for d in squeeze_dims))
    return jnp.squeeze(x, tuple(i for i, s in enumerate(jnp.shape(x)) if s == 1))


def _shape_of(out_type):
    return out_type.as_numpy_dtype


def _shape(x, *, out_type):
    return np.asarray(jnp.shape(x), dtype=_shape_of(out_type))


def _shape_n(input, *, out_type):  # noqa: A002 - TF's arg name
    return tuple(_shape(x, out_type=out_type) for x in input)


def _size(x, *, out_type):
    return np.asarray(int(np.prod(jnp.shape(x), dtype=np.int64)), dtype=_shape_of(out_type))


def _broadcast_to(x, shape):
    return jnp.broadcast_to(x, _ints(shape))


def _needs_static(*args, **kwargs):
    """Ops that are only ever shape arithmetic: the segment computes them with their NumPy
    kernel when their inputs are known while tracing; otherwise the segment runs on NumPy."""
    raise TypeError("a shape-arithmetic op needs inputs known while tracing")


def _reverse(tensor, axis):
    return jnp.flip(tensor, tuple(a % jnp.ndim(tensor) for a in _ints(axis)))


def _identity(x):
    return x


def _roll(input, shift, axis):  # noqa: A002 - TF's arg name
    axes = tuple(_ints(axis))
    if not axes:
        return input
    shifts = shift if jnp.ndim(shift) == 0 else tuple(shift[i] for i in range(len(axes)))
    return jnp.roll(input, shifts if axes else 0, axes if jnp.ndim(axis) else axes[0])


def _space_to_batch_nd(input, block_shape, paddings):  # noqa: A002
    block, pads = _ints(block_shape), np.asarray(_static(paddings)).reshape(-1, 2).tolist()
    m = len(block)
    x = jnp.pad(input, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (input.ndim - 1 - m))
    batch, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    outer = [s // b for s, b in zip(spatial, block)]
    y = x.reshape([batch] + [v for pair in zip(outer, block) for v in pair] + list(rest))
    perm = ([2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
            + list(range(1 + 2 * m, y.ndim)))
    return y.transpose(perm).reshape([batch * int(np.prod(block))] + outer + list(rest))


def _batch_to_space_nd(input, block_shape, crops):  # noqa: A002
    block, crops = _ints(block_shape), np.asarray(_static(crops)).reshape(-1, 2).tolist()
    m = len(block)
    batch = input.shape[0] // int(np.prod(block))
    spatial, rest = input.shape[1:1 + m], input.shape[1 + m:]
    y = input.reshape(list(block) + [batch] + list(spatial) + list(rest))
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, y.ndim))
    y = y.transpose(perm).reshape([batch] + [s * b for s, b in zip(spatial, block)]
                                  + list(rest))
    index = (slice(None),) + tuple(slice(lo, s - hi) for s, (lo, hi) in
                                   zip(y.shape[1:], crops))
    return y[index]


def _tensor_scatter(method):
    def lower(tensor, indices, updates):
        depth = indices.shape[-1]
        rows = indices.reshape(-1, depth)
        upd = updates.reshape((rows.shape[0],) + tensor.shape[depth:])
        where = tuple(rows[:, i] for i in range(depth))
        return getattr(tensor.at[where], method)(upd, mode="drop")
    return lower


def _bound(side):
    def lower(sorted_inputs, values, *, out_type):
        search = jax.vmap(lambda a, v: jnp.searchsorted(a, v, side=side))
        return search(sorted_inputs, values).astype(out_type.as_numpy_dtype)
    return lower


def register_all():
    """Registers the lowerings of this module (idempotent)."""
    table = {
        "Reshape": _reshape, "Transpose": _transpose, "ConcatV2": _concat,
        "Concat": lambda concat_dim, values: _concat(values, concat_dim),
        "Pack": _pack, "Unpack": _unpack, "Slice": _slice, "StridedSlice": _strided_slice,
        "StridedSliceGrad": _strided_slice_grad, "GatherV2": _gather_v2,
        "Gather": _gather_v1, "Fill": _fill, "OneHot": _one_hot, "Tile": _tile,
        "Pad": _pad, "PadV2": _pad, "ExpandDims": _expand_dims, "Squeeze": _squeeze,
        "Shape": _shape, "ShapeN": _shape_n, "Size": _size,
        "Rank": lambda input: np.asarray(jnp.ndim(input), np.int32),  # noqa: A006
        "Identity": _identity, "StopGradient": _identity, "PreventGradient": _identity,
        "Snapshot": _identity, "IdentityN": lambda input: tuple(input),  # noqa: A006
        "ZerosLike": jnp.zeros_like, "OnesLike": jnp.ones_like,
        "BroadcastTo": _broadcast_to, "BroadcastGradientArgs": _needs_static,
        "BroadcastArgs": _needs_static,
        "Range": _needs_static, "ConcatOffset": _needs_static,
        "InvertPermutation": _needs_static, "ListDiff": _needs_static,
        "ReverseV2": _reverse, "Const": None, "NoOp": lambda: None,
        "Roll": _roll, "SpaceToBatchND": _space_to_batch_nd,
        "BatchToSpaceND": _batch_to_space_nd,
        "TensorScatterUpdate": _tensor_scatter("set"), "TensorScatterAdd": _tensor_scatter("add"),
        "TensorScatterSub": lambda tensor, indices, updates: _tensor_scatter("add")(
            tensor, indices, -updates),
        "TensorScatterMin": _tensor_scatter("min"), "TensorScatterMax": _tensor_scatter("max"),
        "LowerBound": _bound("left"), "UpperBound": _bound("right"),
        "EnsureShape": lambda input, *, shape: input,  # noqa: A006,ARG005 - static shapes
        "GuaranteeConst": _identity,
        "Bitcast": lambda input, *, type, T: jax.lax.bitcast_convert_type(  # noqa: A006,ARG005
            input, type.as_numpy_dtype),
    }
    for name, fn in table.items():
        if name == "Const":
            fn = _const
        register_kernel(name, fn, backend=XLA)


def _const(*, value):
    return value


register_all()
