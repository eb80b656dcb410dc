"""XLA:CPU formulations of Conv2DBackpropFilter and MaxPool, chosen at trace time when
jax's default backend is the CPU (on a GPU the lowerings of `xla_window` run as they
are). Registered by `xla_lowerings` over `xla_window`'s entries.

Measured on XLA:CPU (benchmarks/xla_conv_ops.py), where both convolutions and products
run in YNNPACK:
- the filter gradient as XLA's own transposed convolution is fast when the filter
  covers much of the output (a 5x5 filter over a 16x16 output), but slow when the
  output has many more cells than the filter has taps: its window is the whole output
  image (2-6 times slower for 3x3 filters over 14x14-32x32 outputs, 1x1 filters and
  strided ones). There the gradient is a sum over taps instead: for each filter tap,
  one product of the input cells that tap reads with the output gradient;
- for a shallow input (few channels, as a network's first layer) the taps are stacked
  channel-major into one im2col matrix and multiplied once (5 times faster);
- either way the tap slices are copies of the input, one per tap: past TAPS_MAX_BYTES
  of them the gradient stays XLA's convolution;
- MaxPool of a small window is the largest of its strided tap slices, one fused loop,
  rather than a reduce_window (1.3-3 times faster).
"""
import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.ops.nn import xla_window
from trainflow._src.ops.nn.conv_geometry import Geometry, explicit_pairs, spatial_attrs

# Filter gradients of inputs at most this deep take one im2col product.
IM2COL_MAX_DEPTH = 16
# Filter gradients take the per-tap products when the output has at least this many
# cells per filter tap.
TAPS_MIN_CELLS_PER_TAP = 16
# Neither takes more than this many bytes of tap slices (all may be live at once); a
# larger gradient keeps XLA's own convolution, which copies nothing that large.
TAPS_MAX_BYTES = 1 << 30
# MaxPool windows of at most this many cells take the per-tap maximum.
POOL_MAX_TAPS = 16


def on_cpu():
    """Whether the step being traced runs on XLA:CPU."""
    return jax.default_backend() == "cpu"


# -- Conv2DBackpropFilter -------------------------------------------------------------------
def conv_backprop_filter(input, filter_sizes, out_backprop, **attrs):  # noqa: A002
    """Conv2DBackpropFilter: on the CPU, the im2col product for a shallow input or the sum
    over taps for an output much larger than the filter; else `xla_window`'s."""
    fmt = attrs.get("data_format", "NHWC")
    f_shape = xla_window.static(filter_sizes).reshape(-1)
    depth = jnp.shape(input)[1 if fmt.startswith("NC") else 3]
    if not on_cpu() or len(f_shape) != 4 or int(f_shape[2]) != depth:
        return xla_window.conv_backprop_filter(input, filter_sizes, out_backprop, **attrs)
    xla_window.check_conv(attrs["strides"], attrs.get("dilations", (1, 1, 1, 1)), fmt)
    f_shape = tuple(int(v) for v in f_shape)
    geo = _geometry(jnp.shape(input), f_shape, **attrs)
    taps = f_shape[0] * f_shape[1]
    tap_bytes = taps * jnp.shape(input)[0] * geo.out_h * geo.out_w * depth * \
        np.dtype(_compute_type(jnp.result_type(input))).itemsize
    if tap_bytes > TAPS_MAX_BYTES:
        return xla_window.conv_backprop_filter(input, filter_sizes, out_backprop, **attrs)
    if depth <= IM2COL_MAX_DEPTH:
        return _filter_grad_im2col(input, f_shape, out_backprop, geo, fmt)
    if geo.out_h * geo.out_w >= TAPS_MIN_CELLS_PER_TAP * taps:
        return _filter_grad_taps(input, f_shape, out_backprop, geo, fmt)
    return xla_window.conv_backprop_filter(input, filter_sizes, out_backprop, **attrs)


def _geometry(shape, f_shape, *, strides, padding, explicit_paddings=(), data_format="NHWC",
              dilations=(1, 1, 1, 1)):
    nchw = data_format.startswith("NC")
    in_h, in_w = shape[2:4] if nchw else shape[1:3]
    explicit = explicit_pairs(explicit_paddings, data_format) if padding == "EXPLICIT" \
        else None
    return xla_window.numpy_check(
        Geometry, in_h, in_w, f_shape[0], f_shape[1], spatial_attrs(strides, data_format),
        spatial_attrs(dilations, data_format), padding, explicit)


def _compute_type(dtype):
    """Half and bfloat16 multiply in float32, as the NumPy kernel does."""
    return jnp.float32 if dtype in (jnp.float16, jnp.bfloat16) else dtype


def _tap_slices(xp, geo, spatial):
    """For each filter tap (row-major), the cells of padded `xp` it reads: `xp` sliced
    along its two `spatial` axes."""
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    rank = len(jnp.shape(xp))
    out = []
    for i in range(geo.ksize[0]):
        for j in range(geo.ksize[1]):
            start, limit, step = [0] * rank, list(jnp.shape(xp)), [1] * rank
            for axis, off, s, n in ((spatial[0], i * dh, sh, geo.out_h),
                                    (spatial[1], j * dw, sw, geo.out_w)):
                start[axis], limit[axis], step[axis] = off, off + (n - 1) * s + 1, s
            out.append(jax.lax.slice(xp, start, limit, step))
    return out


def _padded(x, geo, spatial):
    """`x` zero-padded along its `spatial` axes to the extent the windows read."""
    in_h, in_w = (jnp.shape(x)[a] for a in spatial)
    rows, cols = geo.padded_extent(in_h, in_w)
    (pt, _), (pl, _) = geo.pads
    pads = [(0, 0, 0)] * len(jnp.shape(x))
    pads[spatial[0]] = (pt, rows - in_h - pt, 0)
    pads[spatial[1]] = (pl, cols - in_w - pl, 0)
    return jax.lax.pad(x, jnp.array(0, x.dtype), pads)


def _filter_grad_im2col(x, f_shape, dy, geo, data_format):
    """dW[i, j, c, o] = sum over (n, y, x) of the padded input at tap (i, j) times dy:
    the rows of the im2col matrix taken channel-major ((i, j, c), n*y*x)."""
    kh, kw, c, o = f_shape
    nchw = data_format.startswith("NC")
    ct = _compute_type(jnp.result_type(x))
    xt = jnp.transpose(x, (1, 0, 2, 3) if nchw else (3, 0, 1, 2))  # C N H W
    taps = _tap_slices(_padded(xt, geo, (2, 3)), geo, (2, 3))
    m = jnp.shape(x)[0] * geo.out_h * geo.out_w
    col_rows = jnp.stack(taps).reshape(kh * kw * c, m).astype(ct)
    dy2 = (jnp.transpose(dy, (0, 2, 3, 1)) if nchw else dy).reshape(m, o).astype(ct)
    dw = jnp.matmul(col_rows, dy2, preferred_element_type=ct)
    return dw.reshape(f_shape).astype(jnp.result_type(x))


def _filter_grad_taps(x, f_shape, dy, geo, data_format):
    """dW[i, j] = (input cells tap (i, j) reads)^T @ dy, one product per tap, contracting
    the batch and output cells in the tensors' own layout."""
    spatial = (2, 3) if data_format.startswith("NC") else (1, 2)
    channel = 1 if data_format.startswith("NC") else 3
    ct = _compute_type(jnp.result_type(x))
    summed = tuple(a for a in range(4) if a != channel)
    dims = ((summed, summed), ((), ()))
    dy = dy.astype(ct)
    grads = [jax.lax.dot_general(tap.astype(ct), dy, dims, preferred_element_type=ct)
             for tap in _tap_slices(_padded(x, geo, spatial), geo, spatial)]
    return jnp.stack(grads).reshape(f_shape).astype(jnp.result_type(x))


# -- MaxPool --------------------------------------------------------------------------------
def max_pool(input, *, ksize, strides, padding, data_format="NHWC",  # noqa: A002
             explicit_paddings=()):
    """MaxPool: on the CPU and for a window of at most POOL_MAX_TAPS cells, the largest of
    the window's strided tap slices (NaN counted as the dtype's lowest finite value,
    padding as that value too, as the NumPy kernel); else `xla_window`'s."""
    attrs = dict(ksize=ksize, strides=strides, padding=padding, data_format=data_format,
                 explicit_paddings=explicit_paddings)
    if not on_cpu() or int(np.prod([int(k) for k in ksize])) > POOL_MAX_TAPS:
        return xla_window.max_pool(input, **attrs)
    dims, strd, pad = xla_window.pool_window(jnp.shape(input), ksize, strides, padding,
                                             data_format, explicit_paddings)
    out = [(n + lo + hi - k) // s + 1
           for n, (lo, hi), k, s in zip(jnp.shape(input), pad, dims, strd)]
    if 0 in out or 0 in jnp.shape(input):
        return xla_window.max_pool(input, **attrs)
    dt = np.dtype(jnp.result_type(input))
    floor = xla_window.lowest_value(dt)
    x = jnp.where(jnp.isnan(input), floor, input) if jnp.issubdtype(dt, jnp.floating) \
        else input
    xp = jax.lax.pad(x, floor, [(lo, hi, 0) for lo, hi in pad])
    best = None
    for off in np.ndindex(*dims):
        cell = jax.lax.slice(xp, off, [o + (n - 1) * s + 1 for o, n, s in zip(off, out, strd)],
                             strd)
        best = cell if best is None else jnp.maximum(best, cell)
    return jnp.maximum(best, floor)


TABLE = {"Conv2DBackpropFilter": conv_backprop_filter, "MaxPool": max_pool}
