"""XLA lowerings of the 2-D window ops: Conv2D and its backprops, MaxPool, AvgPool and
their gradients, LRN. Registered by `xla_lowerings` (over which `xla_conv_cpu` puts its
XLA:CPU formulations of Conv2DBackpropFilter and MaxPool).

The attribute checks of the NumPy kernels run first, at trace time, on the static
shapes: an argument they reject (a batch or depth stride, a padding as wide as the
window) makes the lowering raise `NumpyRejects`, so the segment runs on NumPy, whose
kernel raises TF's own error naming the node.

MaxPoolGrad is formulated for XLA:CPU's speed rather than as a `jax.vjp`: it picks each
window's cell with NumPy's (and TF's CPU) rule, tap by tap on output-sized arrays, then
adds the routed gradients into the input one stride phase at a time and interleaves the
phases (a select_and_scatter runs several times slower).
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.nn import pool_kernels
from trainflow._src.ops.nn.conv_kernels import check_conv_attrs
from trainflow._src.ops.nn.conv_geometry import explicit_pairs, shape_to_nhwc
from trainflow._src.ops.nn.pool_loops import lowest


class NumpyRejects(ValueError):
    """A NumPy kernel's check failed at trace time: the segment runs on NumPy, which
    raises the op's own error."""


def static(x, what="a shape argument"):
    """A trace-time constant as a NumPy array (raises NumpyRejects for a traced value)."""
    if isinstance(x, jax.core.Tracer):
        raise NumpyRejects(f"{what} is computed in the step, not known at trace time")
    return np.asarray(x)


def _sizes(x):
    return tuple(int(v) for v in static(x).reshape(-1))


def numpy_check(check, *args):
    """check(*args), its OpError raised as NumpyRejects."""
    try:
        return check(*args)
    except errors.OpError as e:
        raise NumpyRejects(e.message) from None


# -- convolutions ----------------------------------------------------------------------------
def _spatial(values, data_format):
    return list(values[2:4]) if data_format.startswith("NC") else list(values[1:3])


def _padding(padding, explicit_paddings, data_format):
    if padding != "EXPLICIT":
        return padding
    return [tuple(p) for p in explicit_pairs(explicit_paddings, data_format)]


def _dims(data_format):
    fmt = "NCHW" if data_format.startswith("NC") else "NHWC"
    return (fmt, "HWIO", fmt)


def check_conv(strides, dilations, data_format):
    """The NumPy kernel's checks of a convolution's strides and dilations."""
    numpy_check(check_conv_attrs, strides, dilations, data_format)


def conv(input, filter, *, strides, padding, explicit_paddings=(),  # noqa: A002
         data_format="NHWC", dilations=(1, 1, 1, 1)):
    """Conv2D (grouped where the input is a multiple of the filter's depth)."""
    check_conv(strides, dilations, data_format)
    depth = jnp.shape(input)[1 if data_format.startswith("NC") else 3]
    per_group = jnp.shape(filter)[2]
    if per_group <= 0 or depth % per_group or jnp.shape(filter)[3] % (depth // per_group):
        raise NumpyRejects("the input depth is not a multiple of the filter's")
    return jax.lax.conv_general_dilated(
        input, filter, _spatial(strides, data_format),
        _padding(padding, explicit_paddings, data_format),
        rhs_dilation=_spatial(dilations, data_format),
        dimension_numbers=_dims(data_format), feature_group_count=depth // per_group,
        preferred_element_type=jnp.result_type(input))


def conv_backprop_input(input_sizes, filter, out_backprop, **attrs):  # noqa: A002
    """Conv2DBackpropInput: the vector-Jacobian product of `conv` (input_sizes may hold
    the 2 spatial sizes only)."""
    check_conv(attrs["strides"], attrs.get("dilations", (1, 1, 1, 1)),
                attrs.get("data_format", "NHWC"))
    sizes = _sizes(input_sizes)
    if len(sizes) == 2:
        fmt = attrs.get("data_format", "NHWC")
        n, c = jnp.shape(out_backprop)[0], jnp.shape(filter)[2]
        sizes = (n, c) + sizes if fmt.startswith("NC") else (n,) + sizes + (c,)
    x = jnp.zeros(sizes, jnp.result_type(filter))
    _, vjp = jax.vjp(lambda v: conv(v, filter, **attrs), x)
    return vjp(out_backprop)[0]


def conv_backprop_filter(input, filter_sizes, out_backprop, **attrs):  # noqa: A002
    """Conv2DBackpropFilter: the vector-Jacobian product of `conv`."""
    check_conv(attrs["strides"], attrs.get("dilations", (1, 1, 1, 1)),
               attrs.get("data_format", "NHWC"))
    w = jnp.zeros(_sizes(filter_sizes), jnp.result_type(input))
    _, vjp = jax.vjp(lambda f: conv(input, f, **attrs), w)
    return vjp(out_backprop)[0]


# -- pooling ---------------------------------------------------------------------------------
def pool_window(shape, ksize, strides, padding, data_format, explicit_paddings=(),
                 allow_depth=True):
    """(window, strides, per-dimension padding pairs) in the tensor's order, after the
    NumPy kernel's checks."""
    if len(shape) != 4:
        raise NumpyRejects("pooling needs a 4-dimensional input")
    nhwc = shape_to_nhwc(shape, data_format)
    numpy_check(pool_kernels.check_pool, nhwc, ksize, strides, padding, explicit_paddings,
                 data_format, allow_depth)
    ksize, strides = tuple(int(k) for k in ksize), tuple(int(s) for s in strides)
    if padding == "EXPLICIT":
        pads = [tuple(int(v) for v in explicit_paddings[i:i + 2]) for i in range(0, 8, 2)]
    else:
        pads = jax.lax.padtype_to_pads(shape, ksize, strides, padding)
    return ksize, strides, [tuple(p) for p in pads]


def lowest_value(dtype):
    """The dtype's lowest finite value, as a NumPy scalar array."""
    return np.array(lowest(dtype), dtype)


def max_pool(input, *, ksize, strides, padding, data_format="NHWC",  # noqa: A002
             explicit_paddings=()):
    """MaxPool as the NumPy kernel: each window's largest non-NaN value, and never less
    than the dtype's lowest finite value."""
    dims, strd, pad = pool_window(jnp.shape(input), ksize, strides, padding, data_format,
                                   explicit_paddings)
    dt = np.dtype(jnp.result_type(input))
    if jnp.issubdtype(dt, jnp.floating):
        floor = lowest_value(dt)
        x = jnp.where(jnp.isnan(input), floor, input)
        y = jax.lax.reduce_window(x, np.array(-np.inf, dt), jax.lax.max, dims, strd, pad)
        return jnp.maximum(y, floor)
    return jax.lax.reduce_window(input, lowest_value(dt), jax.lax.max, dims, strd, pad)


def _tap_valid(off, out, strides, pads, shape):
    """Static mask over the output (broadcastable to it): where tap `off` reads an
    unpadded input cell."""
    valid = np.ones([1] * len(out), bool)
    for d in range(len(out)):
        pos = np.arange(out[d]) * strides[d] + off[d] - pads[d][0]
        dims = [1] * len(out)
        dims[d] = out[d]
        valid = valid & ((pos >= 0) & (pos < shape[d])).reshape(dims)
    return valid


def _picks(x, out, dims, strd, pad):
    """Per window, the index of its tap holding the NumPy kernel's pick: the first
    unpadded cell in row-major order, moved to a later cell only if strictly greater."""
    xp = jax.lax.pad(x, jnp.array(0, x.dtype), [(lo, hi, 0) for lo, hi in pad])
    best = idx = have = None
    for t, off in enumerate(np.ndindex(*dims)):
        cell = jax.lax.slice(xp, off, [o + (n - 1) * s + 1 for o, n, s in zip(off, out, strd)],
                             strd)
        valid = _tap_valid(off, out, strd, pad, jnp.shape(x))
        if best is None:
            best, idx, have = cell, jnp.zeros(out, jnp.int32), valid
            continue
        take = cell > best
        if not (valid.all() and have.all()):
            take = jnp.asarray(valid) & (jnp.asarray(~have) | take)
        best = jnp.where(take, cell, best)
        idx = jnp.where(take, jnp.int32(t), idx)
        have = have | valid
    return idx


def max_pool_grad(orig_input, orig_output, grad, *, ksize, strides, padding,
                  data_format="NHWC", explicit_paddings=()):
    """MaxPoolGrad: `grad` routed to each window's pick in `orig_input` (orig_output is
    not read, as in the NumPy kernel)."""
    shape = jnp.shape(orig_input)
    dims, strd, pad = pool_window(shape, ksize, strides, padding, data_format,
                                   explicit_paddings)
    out = jnp.shape(grad)
    if 0 in out or 0 in shape:
        return jnp.zeros(shape, jnp.result_type(grad))
    idx = _picks(orig_input, out, dims, strd, pad)
    # A conditional XLA cannot resolve (idx is never negative) keeps the picks from
    # being fused into the scatter below, which would recompute them for every input
    # cell (ten times slower on XLA:CPU).
    return jax.lax.cond(idx.reshape(-1)[0] >= 0,
                        functools.partial(_route, shape=shape, dims=dims, strd=strd, pad=pad),
                        lambda i, g: jnp.zeros(shape, g.dtype), idx, grad)


def _route(idx, grad, *, shape, dims, strd, pad):
    """The input-shaped sum of `grad` routed to the tap each window picked: per stride
    phase of the padded input, the shifted gradients of the taps in that phase, then
    the phases interleaved."""
    out = jnp.shape(grad)
    grid = [-(-(shape[d] + pad[d][0] + pad[d][1]) // strd[d]) for d in range(4)]
    zero = jnp.array(0, jnp.result_type(grad))
    phases = []
    for phase in np.ndindex(*strd):
        total = None
        for t, off in enumerate(np.ndindex(*dims)):
            if any(o % s != p for o, s, p in zip(off, strd, phase)):
                continue
            g = jax.lax.pad(jnp.where(idx == t, grad, zero), zero,
                            [(o // s, size - n - o // s, 0)
                             for o, s, n, size in zip(off, strd, out, grid)])
            total = g if total is None else total + g
        phases.append(jnp.zeros(grid, zero.dtype) if total is None else total)
    # phases[(p0..p3)][g0..g3] is the padded input cell (g0*s0 + p0, ..., g3*s3 + p3).
    full = jnp.stack(phases).reshape(tuple(strd) + tuple(grid))
    full = jnp.transpose(full, [a for d in range(4) for a in (4 + d, d)])
    full = full.reshape([g * s for g, s in zip(grid, strd)])
    return jax.lax.slice(full, [lo for lo, _ in pad], [lo + n for (lo, _), n in zip(pad, shape)])


def avg_pool(value, *, ksize, strides, padding, data_format="NHWC"):
    """AvgPool: the mean of each window's unpadded cells."""
    dims, strd, pad = pool_window(jnp.shape(value), ksize, strides, padding, data_format,
                                   allow_depth=False)
    zero = np.array(0, jnp.result_type(value))
    total = jax.lax.reduce_window(value, zero, jax.lax.add, dims, strd, pad)
    if padding == "VALID":
        return total / np.prod(dims)
    ones = jnp.ones(jnp.shape(value), jnp.result_type(value))
    count = jax.lax.reduce_window(ones, zero, jax.lax.add, dims, strd, pad)
    return total / count


def avg_pool_grad(orig_input_shape, grad, **attrs):
    """AvgPoolGrad: the vector-Jacobian product of `avg_pool`."""
    x = jnp.zeros(_sizes(orig_input_shape), jnp.result_type(grad))
    _, vjp = jax.vjp(lambda v: avg_pool(v, **attrs), x)
    return vjp(grad)[0]


def lrn(input, *, depth_radius, bias, alpha, beta):  # noqa: A002 - TF's arg name
    """LRN over the last dimension."""
    sq = jnp.square(input)
    r = depth_radius
    window = jax.lax.reduce_window(sq, np.array(0, sq.dtype), jax.lax.add,
                                   (1,) * (sq.ndim - 1) + (2 * r + 1,), (1,) * sq.ndim,
                                   [(0, 0)] * (sq.ndim - 1) + [(r, r)])
    return input / jnp.power(bias + alpha * window, beta)


def lrn_grad(input_grads, input_image, output_image, **attrs):
    """LRNGrad: the vector-Jacobian product of `lrn`."""
    _, vjp = jax.vjp(lambda x: lrn(x, **attrs), input_image)
    return vjp(input_grads)[0]


TABLE = {"Conv2D": conv, "Conv2DBackpropInput": conv_backprop_input,
         "Conv2DBackpropFilter": conv_backprop_filter,
         "MaxPool": max_pool, "MaxPoolGrad": max_pool_grad,
         "AvgPool": avg_pool, "AvgPoolGrad": avg_pool_grad, "LRN": lrn, "LRNGrad": lrn_grad}
