"""NumPy kernels of grayscale morphological dilation (Dilation2D) and its two backprops:
out[b, y, x, c] = max over the (dilated) window of input + filter, padded cells left
out; each backprop routes an output's gradient to the first maximum in scan order."""
import numpy as np

from trainflow._src.framework import errors


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def geometry(in_size, k, stride, rate, padding):
    """(output size, padding before) along one axis, the filter dilated by `rate`."""
    span = k + (k - 1) * (rate - 1)
    if _text(padding) == "VALID":
        return max(-(-(in_size - span + 1) // stride), 0), 0
    out = -(-in_size // stride)
    return out, max((out - 1) * stride + span - in_size, 0) // 2


def _check(x, w, strides, rates):
    if np.ndim(x) != 4:
        raise _invalid(f"input must be 4-dimensional{list(np.shape(x))}")
    if np.ndim(w) != 3:
        raise _invalid(f"filter must be 3-dimensional: {list(np.shape(w))}")
    if np.shape(x)[3] != np.shape(w)[2]:
        raise _invalid("input and filter must have the same depth: "
                       f"{np.shape(x)[3]} vs {np.shape(w)[2]}")
    if len(strides) != 4 or strides[0] != 1 or strides[3] != 1:
        raise _invalid("Current implementation does not yet support strides in the batch "
                       "and depth dimensions.")
    if len(rates) != 4 or rates[0] != 1 or rates[3] != 1:
        raise _invalid("Current implementation does not yet support rates in the batch and "
                       "depth dimensions.")


def _scan(x, w, strides, rates, padding):
    """(max values, index of the winning filter offset or -1, geometry per axis)."""
    x, w = np.asarray(x), np.asarray(w)
    _check(x, w, strides, rates)
    (oh, top), (ow, left) = (geometry(x.shape[1 + i], w.shape[i], strides[1 + i],
                                      rates[1 + i], padding) for i in range(2))
    best = np.full((x.shape[0], oh, ow, x.shape[3]), _lowest(x.dtype), x.dtype)
    where = np.full(best.shape, -1, np.int64)
    rows = np.arange(oh) * strides[1] - top
    cols = np.arange(ow) * strides[2] - left
    for j, (dh, dw) in enumerate(np.ndindex(w.shape[0], w.shape[1])):
        r, c = rows + dh * rates[1], cols + dw * rates[2]
        r_ok = (r >= 0) & (r < x.shape[1])
        c_ok = (c >= 0) & (c < x.shape[2])
        cand = x[:, np.clip(r, 0, x.shape[1] - 1)][:, :, np.clip(c, 0, x.shape[2] - 1)]
        cand = cand + w[dh, dw]
        better = (cand > best) & r_ok[None, :, None, None] & c_ok[None, None, :, None]
        best = np.where(better, cand, best)
        where = np.where(better, j, where)
    return best, where, (rows, cols, top, left)


def _lowest(dtype):
    return np.finfo(dtype).min if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def dilation2d_kernel(input, filter, *, strides, rates, padding):  # noqa: A002
    """Dilation2D."""
    return _scan(input, filter, strides, rates, padding)[0]


def _winners(input, filter, out_backprop, strides, rates, padding):  # noqa: A002
    best, where, (rows, cols, _, _) = _scan(input, filter, strides, rates, padding)
    if np.shape(out_backprop) != best.shape:
        raise _invalid(f"out_backprop has incompatible size: {list(np.shape(out_backprop))} "
                       f"vs {list(best.shape)}")
    kw = np.shape(filter)[1]
    dh, dw = np.maximum(where, 0) // kw, np.maximum(where, 0) % kw
    b, y, x, c = np.indices(best.shape)
    return where, dh, dw, b, y, x, c, rows, cols


def dilation2d_backprop_input_kernel(input, filter, out_backprop, *, strides,  # noqa: A002
                                     rates, padding):
    """Dilation2DBackpropInput: each output's gradient added at its winning input cell
    (at the window's first in-range cell when no cell was in range)."""
    where, dh, dw, b, y, x, c, rows, cols = _winners(input, filter, out_backprop, strides,
                                                     rates, padding)
    row = np.where(where >= 0, rows[y] + dh * rates[1], np.maximum(rows[y], 0))
    col = np.where(where >= 0, cols[x] + dw * rates[2], np.maximum(cols[x], 0))
    grad = np.zeros(np.shape(input), np.asarray(out_backprop).dtype)
    np.add.at(grad, (b, row, col, c), np.asarray(out_backprop))
    return grad


def dilation2d_backprop_filter_kernel(input, filter, out_backprop, *, strides,  # noqa: A002
                                      rates, padding):
    """Dilation2DBackpropFilter: each output's gradient added at its winning filter
    offset (offset 0 when no cell was in range)."""
    where, dh, dw, _, _, _, c, _, _ = _winners(input, filter, out_backprop, strides, rates,
                                               padding)
    grad = np.zeros(np.shape(filter), np.asarray(out_backprop).dtype)
    np.add.at(grad, (dh, dw, c), np.asarray(out_backprop))
    return grad
