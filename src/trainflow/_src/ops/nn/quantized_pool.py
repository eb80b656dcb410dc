"""`tf.nn.quantized_avg_pool` / `quantized_max_pool`: the QuantizedAvgPool and
QuantizedMaxPool ops, pooling a quantized (quint8 / qint8) NHWC tensor's integers
(averages truncated toward zero, as TF's integer mean does) and passing its float range
through. TF 2.21 has no kernels for the other quantized dtypes. No gradients, as in TF."""
import collections

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.nn import pool_kernels
from trainflow._src.ops.nn.pool import _pooled_shape

__all__ = ["quantized_avg_pool", "quantized_max_pool"]

_BASES = {dtypes.quint8: np.uint8, dtypes.qint8: np.int8}
_Avg = collections.namedtuple("QuantizedAvgPool", ["output", "min_output", "max_output"])
_Max = collections.namedtuple("QuantizedMaxPool", ["output", "min_output", "max_output"])


def _kernel(op_type):
    def kernel(input, min_input, max_input, *, T, ksize, strides, padding):  # noqa: A002, N803
        if T not in _BASES:
            raise errors.InvalidArgumentError(
                None, None, f"No OpKernel was registered to support Op '{op_type}' with "
                f"these attrs: [T=DT_{T.name.upper()}]")
        if np.ndim(min_input) != 0 or np.ndim(max_input) != 0:
            raise errors.InvalidArgumentError(None, None, "min_input and max_input must be "
                                              "scalars")
        x = np.asarray(input)
        base = _BASES[T]
        raw = np.ascontiguousarray(x).view(base).astype(np.float64)
        if op_type == "QuantizedAvgPool":
            y = np.trunc(pool_kernels.avg_pool_kernel(raw, ksize=ksize, strides=strides,
                                                      padding=padding, data_format="NHWC"))
        else:
            y = pool_kernels.max_pool_kernel(raw, ksize=ksize, strides=strides,
                                             padding=padding, data_format="NHWC")
        out = y.astype(base).view(x.dtype)
        return out, np.float32(min_input), np.float32(max_input)
    return kernel


def _shape_fn(label):
    def shape_fn(op):
        op._inputs[1]._shape.with_rank(0)
        op._inputs[2]._shape.with_rank(0)
        return [_pooled_shape(op, label, False), TensorShape([]), TensorShape([])]
    return shape_fn


for _op_type, _label in (("QuantizedAvgPool", "AvgPool"), ("QuantizedMaxPool", "MaxPool")):
    register_op(_op_type, inputs=["input: T", "min_input: float", "max_input: float"],
                outputs=["output: T", "min_output: float", "max_output: float"],
                attrs=["T: {qint8, quint8, qint32, qint16, quint16}", "ksize: list(int)",
                       "strides: list(int)",
                       "padding: {'SAME', 'VALID'}"],
                shape_fn=_shape_fn(_label), kernel=_kernel(_op_type))


def quantized_avg_pool(input, min_input, max_input, ksize, strides, padding,  # noqa: A002
                       name=None):
    """(output, min_output, max_output): average pooling of a quantized NHWC tensor."""
    return _Avg(*apply_op("QuantizedAvgPool", input=input, min_input=min_input,
                          max_input=max_input, ksize=ksize, strides=strides,
                          padding=padding, name=name).outputs)


def quantized_max_pool(input, min_input, max_input, ksize, strides, padding,  # noqa: A002
                       name=None):
    """(output, min_output, max_output): max pooling of a quantized NHWC tensor."""
    return _Max(*apply_op("QuantizedMaxPool", input=input, min_input=min_input,
                          max_input=max_input, ksize=ksize, strides=strides,
                          padding=padding, name=name).outputs)
