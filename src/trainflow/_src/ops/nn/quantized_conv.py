"""`tf.nn.quantized_conv2d`: the QuantizedConv2D op, an NHWC convolution of quantized
integers (each side's zero point removed, SAME padding contributing zero) accumulated
in qint32, with the range TF's QuantizationRangeForMultiplication gives it. TF 2.21
has kernels for quint8 inputs and filters only. No gradient, as in TF."""
import collections

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_shape import TensorShape

__all__ = ["quantized_conv2d"]

_F = np.float32
_QTYPES = "{qint8, quint8, qint32, qint16, quint16}"
_Result = collections.namedtuple("QuantizedConv2D", ["output", "min_output", "max_output"])


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _zero_point(lo, hi, bits, lowest):
    """quantization_utils' FloatToQuantizedUnclamped(0.0, lo, hi) (double arithmetic)."""
    if lo == hi:
        return lowest
    steps = float(1 << bits)
    scale = steps / ((float(hi) - float(lo)) * (steps / (steps - 1.0)))
    away = np.sign(float(lo) * scale) * np.floor(abs(float(lo) * scale) + 0.5)
    return int(0 - away) + lowest


def _one_level(lo, hi, base):
    info = np.iinfo(base)
    return _F((_F(hi) - _F(lo)) / _F(int(info.max) - int(info.min)))


def _out_size(size, k, stride, padding):
    if padding == "VALID":
        out = (size - k + stride) // stride
        return out, 0
    out = (size + stride - 1) // stride
    return out, max((out - 1) * stride + k - size, 0) // 2


def _kernel(input, filter, min_input, max_input, min_filter, max_filter, *,  # noqa: A002
            Tinput, Tfilter, out_type, strides, padding, dilations):  # noqa: N803
    if (Tinput, Tfilter, out_type) != (dtypes.quint8, dtypes.quint8, dtypes.qint32):
        raise _invalid("No OpKernel was registered to support Op 'QuantizedConv2D' with "
                       f"these attrs: [Tinput=DT_{Tinput.name.upper()}, "
                       f"Tfilter=DT_{Tfilter.name.upper()}, "
                       f"out_type=DT_{out_type.name.upper()}]")
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if len(strides) != 4:
        raise _invalid("Sliding window strides field must specify 4 dimensions")
    if strides[0] != 1 or strides[3] != 1:
        raise _invalid("Current implementation does not yet support strides in the batch "
                       "and depth dimensions.")
    if list(dilations) != [1, 1, 1, 1]:
        raise _invalid("Current implementation does not support dilations")
    x = np.ascontiguousarray(input).view(np.uint8).astype(np.int64)
    w = np.ascontiguousarray(filter).view(np.uint8).astype(np.int64)
    if x.ndim != 4:
        raise _invalid(f"input must be 4-dimensional{list(x.shape)}")
    if w.ndim != 4:
        raise _invalid(f"filter must be 4-dimensional: {list(w.shape)}")
    if x.shape[3] != w.shape[2]:
        raise _invalid(f"input and filter must have the same depth: {x.shape[3]} vs "
                       f"{w.shape[2]}")
    lo_in, hi_in, lo_f, hi_f = (_F(np.ravel(v)[0]) for v in (min_input, max_input,
                                                             min_filter, max_filter))
    x = x - _zero_point(lo_in, hi_in, 8, 0)
    w = w - _zero_point(lo_f, hi_f, 8, 0)
    (n, h, wd, _), (kh, kw, _, oc) = x.shape, w.shape
    oh, pt = _out_size(h, kh, strides[1], padding)
    ow, pl = _out_size(wd, kw, strides[2], padding)
    padded = np.zeros((n, max(h, (oh - 1) * strides[1] + kh - pt) + pt,
                       max(wd, (ow - 1) * strides[2] + kw - pl) + pl, x.shape[3]), np.int64)
    padded[:, pt:pt + h, pl:pl + wd] = x
    out = np.zeros((n, oh, ow, oc), np.int64)
    for i in range(kh):
        for j in range(kw):
            window = padded[:, i:i + (oh - 1) * strides[1] + 1:strides[1],
                            j:j + (ow - 1) * strides[2] + 1:strides[2]]
            out += np.einsum("nhwc,co->nhwo", window, w[i, j])
    level = _F(_one_level(lo_in, hi_in, np.uint8) * _one_level(lo_f, hi_f, np.uint8))
    info = np.iinfo(np.int32)
    qdtype = np.dtype(dtypes.qint32.as_numpy_dtype)
    return (out.astype(np.int32).view(qdtype), _F(level * _F(int(info.min))),
            _F(level * _F(int(info.max))))


def _shape_fn(op):
    x = op._inputs[0]._shape.with_rank(4)
    w = op._inputs[1]._shape.with_rank(4)
    for t in op._inputs[2:]:
        t._shape.with_rank(0)
    strides = op._attrs["strides"]
    if len(strides) == 4 and strides[1] != strides[2]:
        # TF's shape function raises this at graph construction, as InvalidArgumentError.
        raise _invalid("Current implementation only supports equal length strides in the "
                       "row and column dimensions.")
    padding = op._attrs["padding"]
    padding = padding.decode() if isinstance(padding, bytes) else padding
    xd = x._dims or [None] * 4
    wd = w._dims or [None] * 4
    dims = [xd[0]]
    for k in (1, 2):
        if xd[k] is None or wd[k - 1] is None:
            dims.append(None)
        else:
            dims.append(_out_size(xd[k], wd[k - 1], strides[k], padding)[0])
    return [TensorShape(dims + [wd[3]]), TensorShape([]), TensorShape([])]


register_op("QuantizedConv2D",
            inputs=["input: Tinput", "filter: Tfilter", "min_input: float", "max_input: float",
                    "min_filter: float", "max_filter: float"],
            outputs=["output: out_type", "min_output: float", "max_output: float"],
            attrs=[f"Tinput: {_QTYPES}", f"Tfilter: {_QTYPES}",
                   f"out_type: {_QTYPES} = DT_QINT32", "strides: list(int)",
                   "padding: {'SAME', 'VALID'}", "dilations: list(int) = [1, 1, 1, 1]"],
            shape_fn=_shape_fn, kernel=_kernel)


def quantized_conv2d(input, filter, min_input, max_input, min_filter, max_filter,  # noqa: A002
                     strides, padding, out_type=dtypes.qint32, dilations=(1, 1, 1, 1),
                     name=None):
    """(output, min_output, max_output): a 2-D convolution of quantized NHWC input and
    HWIO filter, accumulated in out_type (the QuantizedConv2D op)."""
    return _Result(*apply_op("QuantizedConv2D", input=input, filter=filter,
                             min_input=min_input, max_input=max_input,
                             min_filter=min_filter, max_filter=max_filter, strides=strides,
                             padding=padding, out_type=out_type, dilations=list(dilations),
                             name=name).outputs)
