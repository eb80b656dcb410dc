"""TF2's transposed convolutions `conv1d_transpose` and `conv_transpose` (rank chosen by
`output_shape`), and `atrous_conv2d_transpose` built as TF builds it: SpaceToBatch,
a VALID Conv2DBackpropInput, BatchToSpace."""
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array import join, shape
from trainflow._src.ops.array.space_batch import batch_to_space, space_to_batch
from trainflow._src.ops.nn.conv import get_sequence
from trainflow._src.ops.nn.conv3d import conv3d_transpose
from trainflow._src.ops.nn.conv_composite import conv2d_transpose

__all__ = ["atrous_conv2d_transpose", "conv1d_transpose", "conv_transpose"]


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """The transpose of conv1d: a Conv2DBackpropInput named "conv1d_transpose" on
    inputs with an added axis of size 1, squeezed after.

    Args:
      input: [batch, width, in_channels] (NWC) or [batch, in_channels, width] (NCW).
      filters: [width, out_channels, in_channels].
      output_shape: the 3-element output shape.
      strides, dilations: an int or a list of 1 or 3 ints.

    Raises:
      ValueError: for a data_format other than NWC / NCW.
    """
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as scope:
        if data_format is None or data_format == "NWC":
            fmt, start, channel = "NHWC", 1, 2
        elif data_format == "NCW":
            fmt, start, channel = "NCHW", 2, 1
        else:
            raise ValueError("`data_format` must be 'NWC' or 'NCW'. "
                             f"Received: data_format={data_format}")
        strides = [1] + get_sequence(strides, 1, channel, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel, "dilations")
        input = shape.expand_dims(input, start)
        filters = shape.expand_dims(filters, 0)
        if not isinstance(output_shape, Tensor):
            output_shape = list(output_shape)
        output_shape = join.concat([output_shape[:start], [1], output_shape[start:]], 0)
        result = apply_op("Conv2DBackpropInput", input_sizes=output_shape, filter=filters,
                          out_backprop=input, strides=strides, padding=padding,
                          data_format=fmt, dilations=dilations, name=scope).outputs[0]
        return shape.squeeze(result, [start])


def _conv2d_transpose(input, filters, output_shape, strides, padding, data_format,  # noqa: A002
                      dilations, name):
    return conv2d_transpose(input, filters, output_shape, strides, padding=padding,
                            data_format="NHWC" if data_format is None else data_format,
                            dilations=dilations, name=name)


def _conv3d_transpose(input, filters, output_shape, strides, padding, data_format,  # noqa: A002
                      dilations, name):
    data_format = "NDHWC" if data_format is None else data_format
    channel = 1 if data_format.startswith("NC") else 4
    return conv3d_transpose(input, filters, output_shape,
                            strides=get_sequence(strides, 3, channel, "strides"),
                            padding=padding, data_format=data_format,
                            dilations=get_sequence(dilations, 3, channel, "dilations"),
                            name=name)


def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None):
    """The transpose of `convolution` for 1, 2 or 3 spatial dims, as many as
    `output_shape` has elements beyond batch and channels; named "conv_transpose".

    Raises:
      ValueError: when output_shape is not sized or does not have 3, 4 or 5 elements.
    """
    with name_scope(name, "conv_transpose", [input, filters, output_shape]) as scope:
        if isinstance(output_shape, Tensor):
            n = output_shape.shape[0]
            n = None if n is None else int(n) - 2
        elif hasattr(output_shape, "__len__"):
            n = len(output_shape) - 2
        else:
            raise ValueError("`output_shape` must be a tensor or sized collection. "
                             f"Received: output_shape={output_shape}")
        if n is None or not 1 <= n <= 3:
            length = None if n is None else n + 2
            raise ValueError("`output_shape` must be of length 3, 4 or 5. Received: "
                             f"output_shape={output_shape} of length {length}.")
        op = (conv1d_transpose, _conv2d_transpose, _conv3d_transpose)[n - 1]
        return op(input, filters, output_shape, strides, padding=padding,
                  data_format=data_format, dilations=dilations, name=scope)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d (NHWC): the input is split into rate x rate
    phases (SpaceToBatch), each transposed-convolved with the undilated filters
    [height, width, out_channels, in_channels], then woven back and cropped.

    Raises:
      ValueError: for rate < 1, padding other than SAME/VALID, or mismatched channels.
    """
    with name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]) as scope:
        value = convert_to_tensor(value, name="value")
        filters = convert_to_tensor(filters, name="filters")
        if not value.shape.dims[3].is_compatible_with(filters.shape[3]):
            raise ValueError(
                "`value` channel count must be compatible with `filters` input channel "
                f"count. Received: value.shape={value.shape} with channel count "
                f"{value.shape[3]} and filters.shape={filters.shape} with input channel "
                f"count {filters.shape[3]}.")
        if rate < 1:
            raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
        if rate == 1:
            return conv2d_transpose(value, filters, output_shape, strides=[1, 1, 1, 1],
                                    padding=padding, data_format="NHWC", name=scope)
        shape_tensor = convert_to_tensor(output_shape, name="output_shape")
        if not shape_tensor.shape.is_compatible_with(TensorShape([4])):
            raise ValueError("`output_shape` must have shape (4,). "
                             f"Received: output_shape={shape_tensor.shape}")
        if isinstance(output_shape, tuple):
            output_shape = list(output_shape)
        if isinstance(output_shape, list) and \
                not filters.shape.dims[2].is_compatible_with(output_shape[3]):
            raise ValueError(
                "`output_shape` channel count must be compatible with `filters` output "
                f"channel count. Received: output_shape={output_shape} with channel count "
                f"{output_shape[3]} and filters.shape={filters.shape} with output channel "
                f"count {filters.shape[3]}.")
        if padding == "SAME":
            if filters.shape.is_fully_defined():
                filter_shape = filters.shape.as_list()
            else:
                filter_shape = shape.shape(filters)
            pad_h = (filter_shape[0] + (filter_shape[0] - 1) * (rate - 1)) - 1
            pad_w = (filter_shape[1] + (filter_shape[1] - 1) * (rate - 1)) - 1
            pad_top, pad_left = pad_h // 2, pad_w // 2
            pad_bottom, pad_right = pad_h - pad_top, pad_w - pad_left
        elif padding == "VALID":
            pad_top = pad_bottom = pad_left = pad_right = 0
        else:
            raise ValueError("`padding` must be either 'VALID' or 'SAME'. "
                             f"Received: padding={padding}")
        if not isinstance(output_shape, list):
            output_shape = shape_tensor
        in_h = output_shape[1] + pad_top + pad_bottom
        in_w = output_shape[2] + pad_left + pad_right
        extra_bottom = (rate - in_h % rate) % rate
        extra_right = (rate - in_w % rate) % rate
        value = space_to_batch(value, [[0, extra_bottom], [0, extra_right]], block_size=rate)
        input_sizes = [rate * rate * output_shape[0], (in_h + extra_bottom) // rate,
                       (in_w + extra_right) // rate, output_shape[3]]
        value = apply_op("Conv2DBackpropInput", input_sizes=input_sizes, filter=filters,
                         out_backprop=value, strides=[1, 1, 1, 1], padding="VALID",
                         data_format="NHWC").outputs[0]
        crops = [[pad_top, pad_bottom + extra_bottom], [pad_left, pad_right + extra_right]]
        return batch_to_space(value, crops, block_size=rate)
