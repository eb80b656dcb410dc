"""The generic `Conv` op (`tf.conv`): a 2-D or 3-D channels-last convolution with any
number of leading batch dims, run on the Conv2D / Conv3D kernels. As TF's CPU kernel,
it rejects groups > 1 and CHANNELS_FIRST at run time, and has no gradient."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.nn import conv3d_kernels, conv_kernels
from trainflow._src.ops.nn.morphology_kernels import geometry

__all__ = ["conv"]


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _unimplemented(message):
    return errors.UnimplementedError(None, None, message)


def _spatial_rank(op_or_rank, batch_dims):
    rank = op_or_rank - batch_dims + 1
    if rank not in (4, 5):
        raise ValueError("Input tensor must be rank 4 or 5, excluding extra batch dimensions, "
                         f"but got: {rank}")
    return rank


def _conv_shape(op):
    x, w = op.inputs[0].get_shape(), op.inputs[1].get_shape()
    if x.ndims is None:
        return [TensorShape(None)]
    batch_dims = op.get_attr("batch_dims")
    rank = _spatial_rank(x.ndims, batch_dims)
    strides = list(op.get_attr("strides"))
    if len(strides) != rank:
        raise ValueError(f"Stride attribute should contain {rank} values, but got: "
                         f"{len(strides)}")
    dilations = list(op.get_attr("dilations")) or [1] * rank
    dims = x.as_list()
    w = w.with_rank(rank).as_list()
    n = rank - 2
    out = dims[:batch_dims]
    padding = _text(op.get_attr("padding"))
    explicit = list(op.get_attr("explicit_paddings"))
    for i in range(n):
        size, k = dims[batch_dims + i], w[i]
        s, d = strides[1 + i], dilations[1 + i]
        if size is None or k is None:
            out.append(None)
        elif padding == "EXPLICIT":
            before, after = explicit[2 * (1 + i)], explicit[2 * (1 + i) + 1]
            out.append((size + before + after - (k - 1) * d - 1) // s + 1)
        else:
            out.append(geometry(size, k, s, d, padding)[0])
    out.append(w[-1])
    return [TensorShape(out)]


def _conv_kernel(input, filter, *, strides, padding, explicit_paddings, data_format,  # noqa
                 dilations, batch_dims, groups):
    if groups != 1:
        raise _unimplemented("Grouped/Depthwise Convolutions are not supported yet.")
    padding = _text(padding)
    if _text(data_format) != "CHANNELS_LAST":
        raise _unimplemented("The Conv op only supports CHANNELS_LAST on the CPU.")
    x = np.asarray(input)
    rank = _spatial_rank(x.ndim, batch_dims)
    lead = x.shape[:batch_dims]
    flat = x.reshape((-1,) + x.shape[batch_dims:])
    dilations = list(dilations) or [1] * rank
    if rank == 4:
        out = conv_kernels.conv2d_kernel(flat, filter, strides=list(strides), padding=padding,
                                         explicit_paddings=list(explicit_paddings),
                                         data_format="NHWC", dilations=dilations)
    else:
        if padding == "EXPLICIT":
            raise _unimplemented("EXPLICIT padding is not supported for 3-D convolutions.")
        out = conv3d_kernels.conv3d_kernel(flat, filter, strides=list(strides),
                                           padding=padding, data_format="NDHWC",
                                           dilations=dilations)
    return out.reshape(lead + out.shape[1:])


register_op("Conv", inputs=["input: T", "filter: T"], outputs=["output: T"],
            attrs=["T: {half, bfloat16, float, double, int32}", "strides: list(int)",
                   "padding: {'SAME', 'VALID', 'EXPLICIT'}",
                   "explicit_paddings: list(int) = []",
                   "data_format: {'CHANNELS_FIRST', 'CHANNELS_LAST'} = 'CHANNELS_LAST'",
                   "dilations: list(int) = []", "batch_dims: int = 1", "groups: int = 1"],
            shape_fn=_conv_shape, kernel=_conv_kernel)


def conv(input, filter, strides, padding, explicit_paddings=(),  # noqa: A002 - TF's names
         data_format="CHANNELS_LAST", dilations=(), batch_dims=1, groups=1, name=None):
    """N-D convolution (the `Conv` op): input [*batch, *spatial, in_channels] with
    `batch_dims` batch dims and 2 or 3 spatial ones, filter [*spatial, in_channels,
    out_channels]; strides / dilations have one value per non-extra-batch dim."""
    return apply_op("Conv", input=input, filter=filter, strides=list(strides),
                    padding=padding, explicit_paddings=list(explicit_paddings),
                    data_format=data_format, dilations=list(dilations), batch_dims=batch_dims,
                    groups=groups, name=name).outputs[0]
