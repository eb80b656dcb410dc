"""Bitcast (`tf.bitcast`): the bytes of a tensor read as another type, the last dimension
splitting or merging when the sizes differ. TensorFlow defines no gradient for it."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.shape_util import invalid_argument

__all__ = ["bitcast"]

_TYPES = ("{bfloat16, float16, float32, float64, int64, int32, uint8, uint16, uint32, uint64, "
          "int8, int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32}")


def _sizes(op_or_dtypes):
    src, dst = (dtypes.as_dtype(t) for t in op_or_dtypes)
    return np.dtype(src.as_numpy_dtype).itemsize, np.dtype(dst.as_numpy_dtype).itemsize


def _bitcast_kernel(input, *, type, T):  # noqa: A002 - TF's names
    x = np.ascontiguousarray(input)
    src, dst = _sizes((T, type))
    if src < dst and (x.ndim == 0 or x.shape[-1] != dst // src):
        raise invalid_argument(f"Cannot bitcast from {dtypes.as_dtype(T).name} to "
                               f"{dtypes.as_dtype(type).name}: shape {list(x.shape)}")
    out = x.view(dtypes.as_dtype(type).as_numpy_dtype)
    if src > dst:
        return out.reshape(x.shape + (src // dst,))
    if src < dst:
        return out.reshape(x.shape[:-1])
    return out.reshape(x.shape)


def _bitcast_shape(op):
    shape = op.inputs[0].shape
    src, dst = _sizes((op._attrs["T"], op._attrs["type"]))
    if shape.rank is None:
        return [TensorShape(None)]
    dims = shape.as_list()
    if src > dst:
        return [TensorShape(dims + [src // dst])]
    if src < dst:
        if not dims:
            raise ValueError(f"Cannot bitcast from a scalar to a larger type for '{op.name}'")
        if dims[-1] is not None and dims[-1] != dst // src:
            raise ValueError(f"Cannot bitcast due to shape. {dims[-1]} does not match "
                             f"{dst // src} for '{op.name}'")
        return [TensorShape(dims[:-1])]
    return [shape]


register_op("Bitcast", inputs=["input: T"], outputs=["output: type"],
            attrs=[f"T: {_TYPES}", f"type: {_TYPES}"], shape_fn=_bitcast_shape,
            kernel=_bitcast_kernel)


def bitcast(input, type, name=None):  # noqa: A002 - TF's names
    """The bytes of `input` read as `type`: a smaller type adds a last dimension, a larger
    one consumes it (its size must be the size ratio)."""
    return apply_op("Bitcast", input=input, type=dtypes.as_dtype(type), name=name).outputs[0]
