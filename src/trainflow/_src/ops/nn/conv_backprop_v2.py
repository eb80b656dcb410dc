"""Conv2DBackpropInputV2 and Conv2DBackpropFilterV2 (`tf.conv2d_backprop_input_v2`,
`tf.conv2d_backprop_filter_v2`): the Conv2D backprops with the other operand given as a
tensor, whose shape stands for the `input_sizes` / `filter_sizes` of the V1 ops. As in
TF, neither has a gradient."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.ops.nn import conv_kernels
from trainflow._src.ops.nn.conv import _CONV_ATTRS

__all__ = ["conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"]


def _input_v2_kernel(input, filter, out_backprop, *, strides, padding,  # noqa: A002
                     explicit_paddings, data_format, dilations):
    sizes = np.asarray(np.shape(input), np.int32)
    return conv_kernels.conv2d_backprop_input_kernel(
        sizes, filter, out_backprop, strides=strides, padding=padding,
        explicit_paddings=explicit_paddings, data_format=data_format, dilations=dilations)


def _filter_v2_kernel(input, filter, out_backprop, *, strides, padding,  # noqa: A002
                      explicit_paddings, data_format, dilations):
    sizes = np.asarray(np.shape(filter), np.int32)
    return conv_kernels.conv2d_backprop_filter_kernel(
        input, sizes, out_backprop, strides=strides, padding=padding,
        explicit_paddings=explicit_paddings, data_format=data_format, dilations=dilations)


def _shape_of_input(index):
    return lambda op: [op.inputs[index].get_shape().with_rank(4)]


register_op("Conv2DBackpropInputV2", inputs=["input: T", "filter: T", "out_backprop: T"],
            outputs=["output: T"],
            attrs=["T: {half, bfloat16, float, double, int32}"] + _CONV_ATTRS,
            shape_fn=_shape_of_input(0), kernel=_input_v2_kernel)
register_op("Conv2DBackpropFilterV2", inputs=["input: T", "filter: T", "out_backprop: T"],
            outputs=["output: T"], attrs=["T: {half, bfloat16, float, double}"] + _CONV_ATTRS,
            shape_fn=_shape_of_input(1), kernel=_filter_v2_kernel)


def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                             use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                             dilations=(1, 1, 1, 1), name=None):
    """The gradient of conv2d with respect to `input` (only its shape is read)."""
    return apply_op("Conv2DBackpropInputV2", input=input, filter=filter,
                    out_backprop=out_backprop, strides=list(strides), padding=padding,
                    use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=list(explicit_paddings), data_format=data_format,
                    dilations=list(dilations), name=name).outputs[0]


def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                              use_cudnn_on_gpu=True, explicit_paddings=(),
                              data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of conv2d with respect to `filter` (only its shape is read)."""
    return apply_op("Conv2DBackpropFilterV2", input=input, filter=filter,
                    out_backprop=out_backprop, strides=list(strides), padding=padding,
                    use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=list(explicit_paddings), data_format=data_format,
                    dilations=list(dilations), name=name).outputs[0]
