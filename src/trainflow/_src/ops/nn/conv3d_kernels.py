"""NumPy kernels of the 3-D convolution and pooling ops (Conv3D and its two backprops,
MaxPool3D, AvgPool3D and their gradients), on NDHWC tensors.

Windows are walked tap by tap (one strided slice of the padded input per filter
cell, each a whole-tensor NumPy operation). SAME padding puts the odd cell after,
as TensorFlow does; padded cells never win a max and never count in an average.
A max-pool gradient goes to every cell equal to its window's maximum (TF's CPU
kernel). Half types compute in float32.
"""
import itertools

import numpy as np

from trainflow._src.framework import errors


def invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def text(value):
    return value.decode() if isinstance(value, bytes) else value


def check_ndhwc(data_format, what):
    if text(data_format) != "NDHWC":
        raise errors.UnimplementedError(
            None, None, f"{what} on the CPU supports only the NDHWC tensor format, got "
                        f"{text(data_format)}")


class Window:
    """Output sizes and padding of one 3-D sliding window over an NDHWC shape."""

    def __init__(self, in_shape, ksize, strides, dilations, padding):
        self.k = tuple(ksize)
        self.s = tuple(strides)
        self.d = tuple(dilations)
        self.out = []
        self.pad = []
        for n, k, s, d in zip(in_shape[1:4], self.k, self.s, self.d):
            span = (k - 1) * d + 1
            if text(padding) == "VALID":
                o = max(0, -(-(n - span + 1) // s))
                before = 0
            else:
                o = -(-n // s)
                total = max((o - 1) * s + span - n, 0)
                before = total // 2
            if o <= 0 and text(padding) == "VALID" and n < span:
                raise invalid(f"Computed output size would be negative: {n - span + 1} "
                              f"[input_size: {n}, effective_filter_size: {span}, stride: {s}]")
            self.out.append(o)
            after = max((o - 1) * s + span - n - before, 0)
            self.pad.append((before, after))
        self.out = tuple(self.out)

    def padded(self, x, fill=0):
        pads = [(0, 0)] + list(self.pad) + [(0, 0)]
        if not any(p for pair in self.pad for p in pair):
            return x
        return np.pad(x, pads, constant_values=fill)

    def taps(self):
        """(tap index, slices of the padded input that the tap sees, per output cell)."""
        for tap in itertools.product(*(range(k) for k in self.k)):
            sl = tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                       for t, d, o, s in zip(tap, self.d, self.out, self.s))
            yield tap, (slice(None),) + sl

    def crop(self, xp, in_shape):
        sl = tuple(slice(b, b + n) for (b, _), n in zip(self.pad, in_shape[1:4]))
        return xp[(slice(None),) + sl]


def _wide(x):
    x = np.asarray(x)
    return (x.astype(np.float32), x.dtype) if x.dtype.itemsize <= 2 else (x, x.dtype)


def _spatial(values, label):
    v = [int(a) for a in values]
    if len(v) != 5:
        raise invalid(f"{label} must have 5 elements, got {len(v)}")
    if v[0] != 1 or v[4] != 1:
        raise invalid(f"Current implementation does not yet support {label} in the batch "
                      f"and depth dimensions.")
    return v[1:4]


def _check5(x, what):
    if np.ndim(x) != 5:
        raise invalid(f"{what} must be 5-dimensional, got shape {list(np.shape(x))}")


# -- convolution ----------------------------------------------------------------------------
def _conv_window(in_shape, filter_shape, strides, dilations, padding):
    return Window(in_shape, filter_shape[:3], _spatial(strides, "strides"),
                  _spatial(dilations, "dilations"), padding)


def conv3d_kernel(input, filter, *, strides, padding, data_format, dilations):  # noqa: A002
    check_ndhwc(data_format, "Conv3D")
    x, dt = _wide(input)
    w = np.asarray(filter).astype(x.dtype)
    _check5(x, "input")
    _check5(w, "filter")
    if x.shape[4] != w.shape[3]:
        raise invalid(f"Input depth must be evenly divisible by filter depth: {x.shape[4]} "
                      f"vs {w.shape[3]}")
    win = _conv_window(x.shape, w.shape, strides, dilations, padding)
    xp = win.padded(x)
    out = np.zeros((x.shape[0],) + win.out + (w.shape[4],), dtype=x.dtype)
    for tap, sl in win.taps():
        out += np.tensordot(xp[sl], w[tap], axes=([4], [0]))
    return out.astype(dt, copy=False)


def conv3d_backprop_input_kernel(input_sizes, filter, out_backprop, *, strides,  # noqa: A002
                                 padding, data_format, dilations):
    check_ndhwc(data_format, "Conv3DBackpropInputV2")
    shape = tuple(int(v) for v in np.asarray(input_sizes).reshape(-1))
    if len(shape) != 5:
        raise invalid(f"input_sizes must have 5 elements, got {list(shape)}")
    dy, dt = _wide(out_backprop)
    w = np.asarray(filter).astype(dy.dtype)
    win = _conv_window(shape, w.shape, strides, dilations, padding)
    if tuple(dy.shape[1:4]) != win.out:
        raise invalid(f"Conv3DBackpropInputV2: out_backprop shape {list(dy.shape)} does not "
                      f"match the computed output {list(win.out)}")
    padded_shape = (shape[0],) + tuple(n + b + a for n, (b, a) in zip(shape[1:4], win.pad)) \
        + (shape[4],)
    dxp = np.zeros(padded_shape, dtype=dy.dtype)
    for tap, sl in win.taps():
        dxp[sl] += np.tensordot(dy, w[tap], axes=([4], [1]))
    return win.crop(dxp, shape).astype(dt, copy=False)


def conv3d_backprop_filter_kernel(input, filter_sizes, out_backprop, *, strides,  # noqa: A002
                                  padding, data_format, dilations):
    check_ndhwc(data_format, "Conv3DBackpropFilterV2")
    fshape = tuple(int(v) for v in np.asarray(filter_sizes).reshape(-1))
    x, dt = _wide(input)
    dy = np.asarray(out_backprop).astype(x.dtype)
    win = _conv_window(x.shape, fshape, strides, dilations, padding)
    xp = win.padded(x)
    dw = np.zeros(fshape, dtype=x.dtype)
    for tap, sl in win.taps():
        dw[tap] = np.tensordot(xp[sl], dy, axes=([0, 1, 2, 3], [0, 1, 2, 3]))
    return dw.astype(dt, copy=False)


# -- pooling -------------------------------------------------------------------------------
def _pool_window(shape, ksize, strides, padding):
    return Window(shape, _spatial(ksize, "ksize"), _spatial(strides, "strides"), (1, 1, 1),
                  padding)


def max_pool3d_kernel(input, *, ksize, strides, padding, data_format):  # noqa: A002
    check_ndhwc(data_format, "MaxPool3D")
    x, dt = _wide(input)
    _check5(x, "tensor_in")
    win = _pool_window(x.shape, ksize, strides, padding)
    xp = win.padded(x, -np.inf)
    out = None
    for _, sl in win.taps():
        out = xp[sl].copy() if out is None else np.maximum(out, xp[sl], out=out)
    return out.astype(dt, copy=False)


def max_pool3d_grad_kernel(orig_input, orig_output, grad, *, ksize, strides, padding,
                           data_format):
    check_ndhwc(data_format, "MaxPool3DGrad")
    x, _ = _wide(orig_input)
    y = np.asarray(orig_output).astype(x.dtype)
    dy, dt = _wide(grad)
    win = _pool_window(x.shape, ksize, strides, padding)
    xp = win.padded(x, -np.inf)
    dxp = np.zeros(xp.shape, dtype=dy.dtype)
    for _, sl in win.taps():
        dxp[sl] += np.where(xp[sl] == y, dy, 0)
    return win.crop(dxp, x.shape).astype(dt, copy=False)


def max_pool3d_grad_grad_kernel(orig_input, orig_output, grad, *, ksize, strides, padding,
                                data_format):
    check_ndhwc(data_format, "MaxPool3DGradGrad")
    x, dt = _wide(orig_input)
    y = np.asarray(orig_output).astype(x.dtype)
    ddx = np.asarray(grad).astype(x.dtype)
    win = _pool_window(x.shape, ksize, strides, padding)
    xp = win.padded(x, -np.inf)
    ddxp = win.padded(ddx)
    out = np.zeros(y.shape, dtype=x.dtype)
    for _, sl in win.taps():
        out += np.where(xp[sl] == y, ddxp[sl], 0)
    return out.astype(dt, copy=False)


def _counts(win, shape, dtype):
    ones = win.padded(np.ones((1,) + tuple(shape[1:4]) + (1,), dtype))
    total = None
    for _, sl in win.taps():
        total = ones[sl].copy() if total is None else total + ones[sl]
    return total


def avg_pool3d_kernel(input, *, ksize, strides, padding, data_format):  # noqa: A002
    check_ndhwc(data_format, "AvgPool3D")
    x, dt = _wide(input)
    _check5(x, "tensor_in")
    win = _pool_window(x.shape, ksize, strides, padding)
    xp = win.padded(x)
    total = np.zeros((x.shape[0],) + win.out + (x.shape[4],), dtype=x.dtype)
    for _, sl in win.taps():
        total += xp[sl]
    return (total / _counts(win, x.shape, x.dtype)).astype(dt, copy=False)


def avg_pool3d_grad_kernel(orig_input_shape, grad, *, ksize, strides, padding, data_format):
    check_ndhwc(data_format, "AvgPool3DGrad")
    shape = tuple(int(v) for v in np.asarray(orig_input_shape).reshape(-1))
    dy, dt = _wide(grad)
    win = _pool_window(shape, ksize, strides, padding)
    share = dy / _counts(win, shape, dy.dtype)
    padded_shape = (shape[0],) + tuple(n + b + a for n, (b, a) in zip(shape[1:4], win.pad)) \
        + (shape[4],)
    dxp = np.zeros(padded_shape, dtype=dy.dtype)
    for _, sl in win.taps():
        dxp[sl] += share
    return win.crop(dxp, shape).astype(dt, copy=False)
