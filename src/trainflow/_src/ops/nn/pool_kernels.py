"""NumPy kernels of the pooling ops (MaxPool, AvgPool, their gradients, the argmax
variants) and of local response normalization (LRN, LRNGrad): argument checks and
layouts here, the window loops (and TF's tie and NaN rules) in `pool_loops`.
"""
import numpy as np

from trainflow._src.ops.nn import pool_loops
from trainflow._src.ops.nn.conv_geometry import (
    Geometry, compute_dtype, explicit_pairs, fmt_shape, from_nhwc, invalid, shape_to_nhwc, text,
    to_nhwc, unimplemented)


def _nhwc_attr(values, data_format):
    v = [int(x) for x in values]
    if len(v) != 4:
        raise invalid(f"Sliding window ksize and strides must have 4 elements, got {len(v)}")
    return (v[0], v[2], v[3], v[1]) if text(data_format).startswith("NC") else tuple(v)


class _Pool:
    """The checked parameters of one pooling call over an NHWC input shape."""

    __slots__ = ("depth", "geo", "depth_window")

    def __init__(self, shape, ksize, strides, padding, explicit_paddings, data_format,
                 allow_depth):
        fmt = text(data_format)
        if fmt not in ("NHWC", "NCHW"):
            raise invalid(f"Unsupported data format {fmt} for pooling on the CPU")
        k = _nhwc_attr(ksize, fmt)
        s = _nhwc_attr(strides, fmt)
        if min(k) <= 0:
            raise invalid(f"Sliding window ksize must be positive in every dimension, got "
                          f"{list(ksize)}")
        if min(s) <= 0:
            raise invalid(f"Sliding window strides must be positive in every dimension, got "
                          f"{list(strides)}")
        if k[0] != 1 or s[0] != 1:
            raise unimplemented("Pooling is not yet supported on the batch dimension.")
        self.depth = k[3] != 1 or s[3] != 1
        if self.depth:
            if not allow_depth:
                raise unimplemented("Non-spatial pooling is not yet supported. Volunteers? :)")
            if k[1] != 1 or k[2] != 1 or s[1] != 1 or s[2] != 1:
                raise unimplemented("MaxPooling supports exactly one of pooling across depth "
                                    "or pooling across width/height.")
            if shape[3] % k[3]:
                raise unimplemented("Depthwise max pooling requires the depth window to evenly "
                                    "divide the input depth")
            if k[3] != s[3]:
                raise unimplemented("Depthwise max pooling requires the depth window to equal "
                                    "the depth stride")
            self.depth_window = k[3]
            self.geo = Geometry(1, k[3], 1, k[3], (1, k[3]), (1, 1), "VALID")
            return
        explicit = None
        if text(padding) == "EXPLICIT":
            explicit = explicit_pairs(explicit_paddings, fmt)
            for side, pad, win in (("Top", explicit[0][0], k[1]), ("Bottom", explicit[0][1], k[1]),
                                   ("Left", explicit[1][0], k[2]), ("Right", explicit[1][1], k[2])):
                if pad >= win:
                    raise invalid(f"{side} padding {pad} needs to be smaller than the window size "
                                  f"{win}")
        self.geo = Geometry(shape[1], shape[2], k[1], k[2], (s[1], s[2]), (1, 1), padding,
                            explicit)

    def flatten(self, x):
        """Depth pooling runs as a 1 x k spatial pool over [N*H*W*C/k, 1, k, 1]."""
        if not self.depth:
            return x
        return x.reshape(-1, 1, self.depth_window, 1)

    def flatten_out(self, y):
        """An output-shaped array in the flattened layout of `flatten`."""
        return y.reshape(-1, 1, 1, 1) if self.depth else y

    def unflatten(self, y, shape):
        """A result of the flattened problem back in the layout of input `shape`."""
        if not self.depth:
            return y
        n, h, w, c = shape
        return y.reshape(n, h, w, c // self.depth_window)

    def out_shape(self, shape):
        """The NHWC output shape for NHWC input `shape`."""
        n, _, _, c = shape
        if self.depth:
            return (n, shape[1], shape[2], c // self.depth_window)
        return (n, self.geo.out_h, self.geo.out_w, c)


def check_pool(shape, ksize, strides, padding, explicit_paddings, data_format, allow_depth):
    """Raises the kernels' errors for a pooling call over NHWC input `shape` (the XLA
    lowerings check their arguments with it)."""
    _Pool(shape, ksize, strides, padding, explicit_paddings, data_format, allow_depth)


# -- kernels ---------------------------------------------------------------------------------------
def _check_rank4(arr, what="tensor_in"):
    if arr.ndim != 4:
        raise invalid(f"{what} must be 4-dimensional, got shape {fmt_shape(arr.shape)}")


def _widen(arr):
    ct = compute_dtype(arr.dtype)
    return arr.astype(ct, copy=False)


def max_pool_kernel(input, *, ksize, strides, padding, data_format,  # noqa: A002
                    explicit_paddings=()):
    """MaxPool."""
    _check_rank4(input)
    x = to_nhwc(input, data_format)
    pool = _Pool(x.shape, ksize, strides, padding, explicit_paddings, data_format, True)
    y = pool_loops.max_forward(pool.flatten(_widen(x)), pool.geo,
                               pool_loops.lowest(input.dtype))
    y = pool.unflatten(y, x.shape).astype(input.dtype, copy=False)
    return from_nhwc(y, data_format)


def max_pool_grad_kernel(orig_input, orig_output, grad, *, ksize, strides, padding,
                         data_format, explicit_paddings=()):
    """MaxPoolGrad: `grad` routed to each window's pick in `orig_input` (the first cell, or a
    later one strictly greater; see pool_loops)."""
    _check_rank4(orig_input, "orig_input")
    _check_rank4(grad, "grad")
    x = to_nhwc(orig_input, data_format)
    dy = to_nhwc(grad, data_format)
    pool = _Pool(x.shape, ksize, strides, padding, explicit_paddings, data_format, True)
    if dy.shape != pool.out_shape(x.shape):
        raise invalid(f"Expected grad shape to be {fmt_shape(pool.out_shape(x.shape))}, but got "
                      f"{fmt_shape(dy.shape)}")
    dx = pool_loops.max_backward(pool.flatten(_widen(x)), pool.flatten_out(_widen(dy)),
                                 pool.geo)
    dx = dx.reshape(x.shape) if pool.depth else dx
    return from_nhwc(dx.astype(grad.dtype, copy=False), data_format)


def max_pool_grad_grad_kernel(orig_input, orig_output, grad, *, ksize, strides, padding,
                              data_format):
    """MaxPoolGradGrad: `grad` (input-shaped) read, per window, at the first in-bounds cell
    equal to `orig_output` (0 where none is)."""
    _check_rank4(orig_input, "orig_input")
    x = to_nhwc(orig_input, data_format)
    g = to_nhwc(grad, data_format)
    if g.shape != x.shape:
        raise invalid(f"grad must have the shape of orig_input {fmt_shape(orig_input.shape)}, "
                      f"got {fmt_shape(grad.shape)}")
    pool = _Pool(x.shape, ksize, strides, padding, (), data_format, True)
    y = to_nhwc(orig_output, data_format)
    if y.shape != pool.out_shape(x.shape):
        raise invalid(f"orig_output must have the pooled shape "
                      f"{fmt_shape(pool.out_shape(x.shape))}, got {fmt_shape(y.shape)}")
    out = pool_loops.max_gradgrad(pool.flatten(_widen(x)), pool.flatten_out(_widen(y)),
                                  pool.flatten(_widen(g)), pool.geo)
    out = pool.unflatten(out, x.shape).astype(grad.dtype, copy=False)
    return from_nhwc(out, data_format)


def avg_pool_kernel(value, *, ksize, strides, padding, data_format):
    """AvgPool: the mean of the unpadded cells of each window."""
    _check_rank4(value, "value")
    x = to_nhwc(value, data_format)
    pool = _Pool(x.shape, ksize, strides, padding, (), data_format, False)
    y = pool_loops.avg_forward(_widen(x), pool.geo)
    return from_nhwc(y.astype(value.dtype, copy=False), data_format)


def avg_pool_grad_kernel(orig_input_shape, grad, *, ksize, strides, padding, data_format):
    """AvgPoolGrad: each output gradient spread evenly over its window's unpadded cells."""
    sizes = [int(v) for v in np.asarray(orig_input_shape).reshape(-1)]
    if len(sizes) != 4:
        raise invalid(f"orig_input_shape must have 4 elements, got {len(sizes)}")
    _check_rank4(grad, "grad")
    shape = shape_to_nhwc(sizes, data_format)
    dy = to_nhwc(grad, data_format)
    pool = _Pool(shape, ksize, strides, padding, (), data_format, False)
    expected = (shape[0], pool.geo.out_h, pool.geo.out_w, shape[3])
    if dy.shape != expected:
        raise invalid(f"out_backprop shape {fmt_shape(dy.shape)} does not match the pooled "
                      f"shape {fmt_shape(expected)} of orig_input_shape {fmt_shape(sizes)}")
    dx = pool_loops.avg_backward(shape, _widen(dy), pool.geo)
    return from_nhwc(dx.astype(grad.dtype, copy=False), data_format)


def _flat_argmax(idx, pool, shape, include_batch_in_index):
    n, h, w, c = shape
    geo = pool.geo
    kw = geo.ksize[1]
    rows = np.arange(geo.out_h)[:, None, None] * geo.strides[0] - geo.pads[0][0] + idx // kw
    cols = np.arange(geo.out_w)[None, :, None] * geo.strides[1] - geo.pads[1][0] + idx % kw
    flat = (rows.astype(np.int64) * w + cols) * c + np.arange(c)
    if include_batch_in_index:
        flat = flat + np.arange(n, dtype=np.int64)[:, None, None, None] * (h * w * c)
    return flat


def max_pool_with_argmax_kernel(input, *, ksize, strides, padding, Targmax,  # noqa: A002,N803
                                include_batch_in_index):
    """MaxPoolWithArgmax: the max and its flat index ((b*H + y)*W + x)*C + c."""
    _check_rank4(input, "input")
    pool = _Pool(input.shape, ksize, strides, padding, (), "NHWC", False)
    best, idx = pool_loops.max_argmax(_widen(input), pool.geo)
    flat = _flat_argmax(idx, pool, input.shape, include_batch_in_index)
    return best.astype(input.dtype, copy=False), flat.astype(Targmax.as_numpy_dtype)


def _batch_offsets(argmax, shape, include_batch_in_index):
    flat = argmax.astype(np.int64)
    per_batch = int(np.prod(shape[1:]))
    if not include_batch_in_index:
        flat = flat + np.arange(shape[0], dtype=np.int64).reshape(-1, 1, 1, 1) * per_batch
    total = int(np.prod(shape))
    if flat.size and (flat.min() < 0 or flat.max() >= total):
        limit = total if include_batch_in_index else per_batch
        raise invalid(f"Invalid argmax: every index must be in [0, {limit})")
    return flat


def max_pool_grad_with_argmax_kernel(input, grad, argmax, *, ksize, strides,  # noqa: A002
                                     padding, include_batch_in_index):
    """MaxPoolGradWithArgmax: grad scattered (summed) at the argmax positions."""
    _check_rank4(input, "input")
    if grad.shape != argmax.shape:
        raise invalid(f"Expected grad shape {fmt_shape(argmax.shape)} (the argmax shape), got "
                      f"{fmt_shape(grad.shape)}")
    flat = _batch_offsets(argmax, input.shape, include_batch_in_index)
    summed = np.bincount(flat.reshape(-1), weights=grad.reshape(-1).astype(np.float64),
                         minlength=input.size)
    return summed.reshape(input.shape).astype(grad.dtype)


def max_pool_grad_grad_with_argmax_kernel(input, grad, argmax, *, ksize, strides,  # noqa: A002
                                          padding, include_batch_in_index):
    """MaxPoolGradGradWithArgmax: input-shaped `grad` read at the argmax positions."""
    _check_rank4(input, "input")
    if grad.shape != input.shape:
        raise invalid(f"grad must have the shape of input {fmt_shape(input.shape)}, got "
                      f"{fmt_shape(grad.shape)}")
    flat = _batch_offsets(argmax, input.shape, include_batch_in_index)
    return grad.reshape(-1)[flat]


# -- local response normalization ---------------------------------------------------------------
def _band(depth, radius, dtype):
    """[depth, depth] 0/1 matrix: 1 where |i - j| <= radius (the LRN window)."""
    i = np.arange(depth)
    return (np.abs(i[:, None] - i[None, :]) <= radius).astype(dtype)


def _lrn_norm(x, depth_radius, bias, alpha):
    ct = x.dtype.type
    depth = x.shape[-1]
    sq = np.matmul((x * x).reshape(-1, depth), _band(depth, depth_radius, x.dtype))
    return (ct(bias) + ct(alpha) * sq).reshape(x.shape)


def _pow_neg(norm, beta):
    """norm ** -beta with TF's special cases for beta 1 and 0.5."""
    one = norm.dtype.type(1)
    if beta == 1:
        return one / norm
    if beta == 0.5:
        return one / np.sqrt(norm)
    return np.power(norm, norm.dtype.type(-beta))


def lrn_kernel(input, *, depth_radius, bias, alpha, beta):  # noqa: A002
    """LRN: input / (bias + alpha * sum of squares over the depth window) ** beta."""
    if input.ndim != 4:
        raise invalid("in must be 4-dimensional")
    x = _widen(input)
    y = x * _pow_neg(_lrn_norm(x, depth_radius, bias, alpha), beta)
    return y.astype(input.dtype, copy=False)


def lrn_grad_kernel(input_grads, input_image, output_image, *, depth_radius, bias, alpha,
                    beta):
    """LRNGrad: dx_k = dy_k N_k^-beta - 2 alpha beta x_k sum_{j near k} dy_j y_j / N_j."""
    if input_grads.ndim != 4 or input_image.ndim != 4 or output_image.ndim != 4:
        raise invalid("inputs must be 4-dimensional")
    if not input_grads.shape == input_image.shape == output_image.shape:
        raise invalid("input_grads, input_image, and out_image should have the same shape")
    dy, x, y = _widen(input_grads), _widen(input_image), _widen(output_image)
    ct = x.dtype.type
    depth = x.shape[-1]
    norm = _lrn_norm(x, depth_radius, bias, alpha)
    spread = np.matmul((dy * y / norm).reshape(-1, depth), _band(depth, depth_radius, x.dtype))
    dx = dy * _pow_neg(norm, beta) - ct(2 * alpha * beta) * x * spread.reshape(x.shape)
    return dx.astype(input_grads.dtype, copy=False)
