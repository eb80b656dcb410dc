"""The `tf.nn` convolutions built from the core conv ops, named as TF1 names them:
conv1d (ExpandDims + Conv2D + Squeeze), conv2d_transpose (Conv2DBackpropInput),
depthwise_conv2d, separable_conv2d (depthwise then a 1x1 Conv2D), atrous_conv2d
and `tf.nn.convolution` for 1-D and 2-D inputs.

Dilated (atrous) variants use the ops' `dilations` attr directly where TF1's
Python builds SpaceToBatchND/BatchToSpaceND around an undilated op; the results
are the same.
"""
from trainflow._src.ops.array import shape
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.nn.conv import conv2d, convert_padding, get_sequence, lookup_alias

__all__ = ["conv1d", "conv2d_transpose", "depthwise_conv2d", "separable_conv2d",
           "atrous_conv2d", "convolution"]


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _op(op_type, name=None, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None):  # noqa: A002
    """1-D convolution (`tf.nn.conv1d`): ExpandDims, Conv2D and Squeeze under "conv1d".

    Args:
      value: [batch, width, channels] ("NWC") or [batch, channels, width] ("NCW");
        `input` is an alias.
      filters: [filter_width, in_channels, out_channels].
      stride: an int or a list of 1 or 3 ints.
      padding: "SAME", "VALID" or a list of 3 [before, after] pairs.
      data_format: "NWC"/"NHWC" (default) or "NCW"/"NCHW".
      dilations: an int or a list of 1 or 3 ints.

    Raises:
      ValueError: for an unknown data_format or malformed strides.
    """
    value = lookup_alias("input", input, "value", value)
    with name_scope(name, "conv1d", [value, filters]) as scope:
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, spatial_start, channel_index = "NHWC", -3, 2
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start, channel_index = "NCHW", -2, 1
        else:
            raise ValueError("`data_format` must be 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        strides = [1] + get_sequence(stride, 1, channel_index, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel_index, "dilations")
        if isinstance(padding, (list, tuple)):
            padding = [[0, 0]] + [list(p) for p in padding]
        value = shape.expand_dims(value, spatial_start)
        filters = shape.expand_dims(filters, 0)
        result = conv2d(value, filters, strides, padding,
                        use_cudnn_on_gpu=True if use_cudnn_on_gpu is None else use_cudnn_on_gpu,
                        data_format=data_format, dilations=dilations, name=scope)
        return shape.squeeze(result, [spatial_start])


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None,
                     input=None, filters=None,  # noqa: A002 - TF's argument name
                     dilations=None):
    """Transposed 2-D convolution (`tf.nn.conv2d_transpose`): the gradient of conv2d
    with respect to its input, as a Conv2DBackpropInput op named "conv2d_transpose".

    Args:
      value: the 4-D input (`input` is an alias).
      filter: [height, width, output_channels, in_channels] (`filters` is an alias).
      output_shape: the 4-element output shape (list or int32 tensor).
      strides, dilations: an int or a list of 1, 2 or 4 ints.
      padding: "SAME", "VALID" or a list of 4 pairs.
    """
    value = lookup_alias("input", input, "value", value)
    filter = lookup_alias("filters", filters, "filter", filter)
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        data_format = "NHWC" if data_format is None else _text(data_format)
        ci = 1 if data_format.startswith("NC") else 3
        padding, explicit = convert_padding(padding)
        return _op("Conv2DBackpropInput", name=scope, input_sizes=output_shape, filter=filter,
                   out_backprop=value, strides=get_sequence(strides, 2, ci, "strides"),
                   padding=padding, explicit_paddings=explicit, data_format=data_format,
                   dilations=get_sequence(dilations, 2, ci, "dilations"))


def _rate_dilations(rate, data_format):
    rate = [1, 1] if rate is None else [int(r) for r in
                                         ([rate] * 2 if isinstance(rate, int) else rate)]
    if len(rate) != 2:
        raise ValueError(f"rate must be a list of 2 ints. Received: rate={rate}")
    if any(r < 1 for r in rate):
        raise ValueError(f"rate must be positive. Received: rate={rate}")
    if data_format is not None and _text(data_format).startswith("NC"):
        return [1, 1] + rate
    return [1] + rate + [1]


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """Depthwise 2-D convolution (`tf.nn.depthwise_conv2d`): one DepthwiseConv2dNative
    op named "depthwise", with `rate` as its dilations.

    Args:
      input: a 4-D tensor in `data_format` (default NHWC).
      filter: [height, width, in_channels, channel_multiplier].
      strides: 4 ints; padding: "SAME", "VALID" or a list of 4 pairs.
      rate: the dilation (1 or 2 ints; `dilations` is an alias).
    """
    rate = lookup_alias("dilations", dilations, "rate", rate)
    with name_scope(name, "depthwise", [input, filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        filter = convert_to_tensor(filter, name="filter_in")
        data_format = "NHWC" if data_format is None else _text(data_format)
        padding, explicit = convert_padding(padding)
        return _op("DepthwiseConv2dNative", name=scope, input=input, filter=filter,
                   strides=list(strides), padding=padding, explicit_paddings=explicit,
                   data_format=data_format, dilations=_rate_dilations(rate, data_format))


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     rate=None, name=None, data_format=None, dilations=None):
    """Depthwise convolution followed by a 1x1 convolution (`tf.nn.separable_conv2d`).

    Args:
      depthwise_filter: [height, width, in_channels, channel_multiplier].
      pointwise_filter: [1, 1, in_channels * channel_multiplier, out_channels].

    Raises:
      ValueError: if pointwise_filter is not 4-D with 1x1 spatial size.
    """
    rate = lookup_alias("dilations", dilations, "rate", rate)
    with name_scope(name, "separable_conv2d",
                    [input, depthwise_filter, pointwise_filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pw_shape = pointwise_filter.get_shape().with_rank(4)
        pw_shape.dims[0].assert_is_compatible_with(1)
        pw_shape.dims[1].assert_is_compatible_with(1)
        data_format = "NHWC" if data_format is None else _text(data_format)
        padding, explicit = convert_padding(padding)
        depthwise = _op("DepthwiseConv2dNative", name="depthwise", input=input,
                        filter=depthwise_filter, strides=list(strides), padding=padding,
                        explicit_paddings=explicit, data_format=data_format,
                        dilations=_rate_dilations(rate, data_format))
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], padding="VALID",
                      data_format=data_format, name=scope)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """Atrous (dilated) 2-D convolution (`tf.nn.atrous_conv2d`) with an int `rate`.

    Raises:
      ValueError: if rate < 1.
    """
    if int(rate) < 1:
        raise ValueError(f"rate {rate} should be greater than or equal to 1.")
    return convolution(value, filters, padding, dilation_rate=[int(rate)] * 2, name=name)


def convolution(input, filter, padding, strides=None, dilation_rate=None,  # noqa: A002
                name=None, data_format=None, filters=None, dilations=None):
    """N-D convolution for N = 1 or 2 (`tf.nn.convolution`), named "convolution".

    Args:
      input: [batch] + spatial + [channels] (or channels first when data_format
        starts with "NC").
      filter: spatial + [in_channels, out_channels] (`filters` is an alias).
      padding: "SAME" or "VALID".
      strides, dilation_rate: N ints (`dilations` is an alias of dilation_rate).

    Raises:
      ValueError: when the rank is unknown, N is not 1 or 2, or arguments are malformed.
    """
    filter = lookup_alias("filters", filters, "filter", filter)
    dilation_rate = lookup_alias("dilations", dilations, "dilation_rate", dilation_rate)
    with name_scope(name, "convolution", [input, filter]) as scope:
        filter = convert_to_tensor(filter, name="filters")
        input = convert_to_tensor(input, name="input")
        f_rank, in_rank = filter.get_shape().ndims, input.get_shape().ndims
        if f_rank:
            n = f_rank - 2
        elif in_rank:
            n = in_rank - 2
        else:
            raise ValueError("When `num_spatial_dims` is not set, one of `input.shape.rank` or "
                             "`filters.shape.rank` must be known. Received: "
                             f"input.shape={input.get_shape()} of rank {in_rank} and "
                             f"filters.shape={filter.get_shape()} of rank {f_rank}")
        if n not in (1, 2):
            raise ValueError(f"`num_spatial_dims` must be 1 or 2 in trainflow. Received: "
                             f"num_spatial_dims={n}.")
        channels_first = data_format is not None and _text(data_format).startswith("NC")
        ci = 1 if channels_first else n + 1
        strides = get_sequence(strides, n, ci, "strides")
        dilations = get_sequence(dilation_rate, n, ci, "dilations")
        if n == 1:
            spatial = slice(2, 3) if channels_first else slice(1, 2)
            return conv1d(input, filter, strides[spatial], padding,
                          data_format="NCW" if channels_first else "NWC",
                          dilations=dilations[spatial], name=scope)
        return conv2d(input, filter, strides, padding,
                      data_format="NCHW" if channels_first else "NHWC", dilations=dilations,
                      name=scope)
