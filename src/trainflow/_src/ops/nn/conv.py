"""2-D convolution ops: Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter and the
DepthwiseConv2dNative family, each registered with its shape function, NumPy
kernel and gradient, plus the TF1 `tf.nn` functions that build them.

The higher-level builders (conv1d, conv2d_transpose, separable/atrous
convolution, `tf.nn.convolution`) live in `conv_composite`.
"""
from trainflow._src.ops.array import shape
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.nn import conv_kernels as conv_kernels
from trainflow._src.ops.nn.conv_geometry import spatial_attrs
from trainflow._src.ops.array.shape_util import merge_dim, partial_shape_value, with_rank

__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter",
           "depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input",
           "depthwise_conv2d_native", "depthwise_conv2d_native_backprop_input",
           "depthwise_conv2d_native_backprop_filter"]

_CONV_TYPES = "{half, bfloat16, float, double, int32}"
_CONV_FILTER_TYPES = "{half, bfloat16, float, double}"
_CONV_ATTRS = ["strides: list(int)", "use_cudnn_on_gpu: bool = true",
               "padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []",
               "data_format: {'NHWC', 'NCHW'} = 'NHWC'", "dilations: list(int) = [1, 1, 1, 1]"]
_DEPTHWISE_ATTRS = [a for a in _CONV_ATTRS if not a.startswith("use_cudnn")]


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


# -- argument normalisation shared with the pooling ops ------------------------------------------
def get_sequence(value, n, channel_index, name):
    """A full-rank strides/dilations/ksize list from an int or a list of 1, n or n + 2 ints.

    Raises:
      ValueError: "strides should be of length 1, 2 or 4. Received: ..." for other lengths.
    """
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, int):
        value = [value]
    elif not isinstance(value, (list, tuple)):
        value = list(value) if hasattr(value, "__len__") else [value]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: "
                         f"{name}={value} of length {len(value)}")
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def convert_padding(padding, expected_length=4):
    """(padding string, explicit_paddings list) from "SAME"/"VALID" or a list of pairs.

    Raises:
      ValueError: for "EXPLICIT" given as a string or a malformed list, in TF's words.
    """
    explicit = []
    if padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit "
                         "padding, `padding` must be a list.")
    if isinstance(padding, (list, tuple)):
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise ValueError("When `padding` is a list, each element of `padding` must be "
                                 f"a list/tuple of size 2. Received: padding={padding} with "
                                 f"element at index {i} of type {type(pair)}")
            if len(pair) != 2:
                raise ValueError("When `padding` is a list, each element of `padding` must be "
                                 f"a list/tuple of size 2. Received: padding={padding} with "
                                 f"element at index {i} of size {len(pair)}")
            explicit.extend(int(p) for p in pair)
        if len(padding) != expected_length:
            raise ValueError(f"When padding is a list, it must be of size {expected_length}. "
                             f"Received: padding={padding} of size {len(padding)}")
        padding = "EXPLICIT"
    return padding, explicit


def lookup_alias(new_name, new_value, old_name, old_value):
    """The value of a renamed argument (TF's deprecated_argument_lookup).

    Raises:
      ValueError: "Cannot specify both 'old' and 'new'." when both are given.
    """
    if new_value is not None:
        if old_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return new_value
    return old_value


# -- shape-function helpers ----------------------------------------------------------------------
def format_parts(dims, data_format):
    """(N, H, W, C) of a rank-4 dims tuple in `data_format` order."""
    if _text(data_format).startswith("NC"):
        return dims[0], dims[2], dims[3], dims[1]
    return tuple(dims)


def from_parts(n, h, w, c, data_format):
    """A rank-4 TensorShape in `data_format` order from its (N, H, W, C) parts."""
    if _text(data_format).startswith("NC"):
        return TensorShape([n, c, h, w])
    return TensorShape([n, h, w, c])


def windowed_dim(size, ksize, dilation, stride, padding, pad_before=0, pad_after=0):
    """The static output size of one windowed dimension (None when unknown).

    Raises:
      ValueError: TF's "Stride must be > 0", "Dilation rate must be >= 1" and
        "Negative dimension size caused by subtracting K from N".
    """
    if stride <= 0:
        raise ValueError(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise ValueError(f"Dilation rate must be >= 1, but got {dilation}")
    padding = _text(padding)
    if size is None:
        return None
    if padding == "SAME":
        return (size + stride - 1) // stride
    if padding == "VALID":
        pad_before = pad_after = 0
    size += pad_before + pad_after
    if ksize is None:
        return None
    eff = (ksize - 1) * dilation + 1
    if size < eff:
        raise ValueError(f"Negative dimension size caused by subtracting {eff} from {size}")
    return (size - eff + stride) // stride


def check_valid_padding(padding, explicit_paddings, data_format):
    """Checks explicit_paddings against padding as TF's CheckValidPadding does.

    Returns:
      ((top, bottom), (left, right)) for EXPLICIT padding, else ((0, 0), (0, 0)).
    """
    p = [int(v) for v in explicit_paddings]
    if _text(padding) != "EXPLICIT":
        if p:
            raise ValueError("explicit_paddings attribute must be empty if the padding "
                             "attribute is not EXPLICIT")
        return (0, 0), (0, 0)
    if len(p) != 8:
        raise ValueError(f"explicit_paddings attribute must contain 8 values, but got: {len(p)}")
    if min(p) < 0:
        raise ValueError("All elements of explicit_paddings must be nonnegative")
    n, h, w, c = format_parts([(p[2 * i], p[2 * i + 1]) for i in range(4)], data_format)
    if any(n) or any(c):
        raise ValueError("Nonzero explicit padding in the batch or depth dimensions is not "
                         "supported")
    return h, w


def _check_lengths(op, label):
    strides, dilations = op._attrs["strides"], op._attrs["dilations"]
    if len(dilations) != 4:
        raise ValueError(f"{label} requires the dilation attribute to contain 4 values, but "
                         f"got: {len(dilations)}")
    if len(strides) != 4:
        where = f"{label} on data format {_text(op._attrs['data_format'])}" \
            if label == "Conv2D" else label
        raise ValueError(f"{where} requires the stride attribute to contain 4 values, but got: "
                         f"{len(strides)}")


def _output_spatial(op, h, w, kh, kw):
    a = op._attrs
    fmt = a["data_format"]
    (pt, pb), (pl, pr) = check_valid_padding(a["padding"], a.get("explicit_paddings", ()), fmt)
    sh, sw = spatial_attrs(a["strides"], fmt)
    dh, dw = spatial_attrs(a["dilations"], fmt)
    return (windowed_dim(h, kh, dh, sh, a["padding"], pt, pb),
            windowed_dim(w, kw, dw, sw, a["padding"], pl, pr))


def _conv2d_shape(op):
    fmt = op._attrs["data_format"]
    x = with_rank(op._inputs[0]._shape._dims, 4)
    kh, kw, ci, co = with_rank(op._inputs[1]._shape._dims, 4)
    _check_lengths(op, "Conv2D")
    n, h, w, c = format_parts(x, fmt)
    if c is not None and ci is not None and ci > 0:
        if c % ci:
            raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter "
                             f"({ci})")
        groups = c // ci
        if groups > 1 and co is not None and co % groups:
            raise ValueError(f"Depth of output ({co}) is not a multiple of the number of groups "
                             f"({groups})")
    oh, ow = _output_spatial(op, h, w, kh, kw)
    return [from_parts(n, oh, ow, co, fmt)]


def _backprop_input_shape(op):
    fmt = op._attrs["data_format"]
    dy = with_rank(op._inputs[2]._shape._dims, 4)
    filt = with_rank(op._inputs[1]._shape._dims, 4)
    n, _, _, dy_depth = format_parts(dy, fmt)
    merge_dim(dy_depth, filt[3])
    sizes = partial_shape_value(op._inputs[0])
    if sizes is None:
        sizes = (None,) * 4
    if len(sizes) == 4:
        given_n, h, w, c = format_parts(sizes, fmt)
        merge_dim(given_n, n)
    elif len(sizes) == 2:
        (h, w), c = sizes, filt[2]
    else:
        raise ValueError("Conv2DBackpropInput requires input_sizes to contain 4 values or 2 "
                         f"values, but got: {len(sizes)}")
    return [from_parts(n, h, w, c, fmt)]


def _shape_from_sizes_input(index):
    def shape_fn(op):
        sizes = partial_shape_value(op._inputs[index])
        return [TensorShape(with_rank(sizes, 4))]
    return shape_fn


def _depthwise_shape(op):
    fmt = op._attrs["data_format"]
    x = with_rank(op._inputs[0]._shape._dims, 4)
    kh, kw, ci, mult = with_rank(op._inputs[1]._shape._dims, 4)
    if len(op._attrs["strides"]) != 4:
        raise ValueError("DepthwiseConv2D requires the stride attribute to contain 4 values, "
                         f"but got: {len(op._attrs['strides'])}")
    if len(op._attrs["dilations"]) != 4:
        raise ValueError("DepthwiseConv2D requires the dilations attribute to contain 4 "
                         f"values, but got: {len(op._attrs['dilations'])}")
    n, h, w, c = format_parts(x, fmt)
    c = merge_dim(c, ci)
    out_c = None if c is None or mult is None else c * mult
    oh, ow = _output_spatial(op, h, w, kh, kw)
    return [from_parts(n, oh, ow, out_c, fmt)]


# -- registrations -------------------------------------------------------------------------------
register_op("Conv2D", inputs=["input: T", "filter: T"], outputs=["output: T"],
            attrs=[f"T: {_CONV_TYPES}"] + _CONV_ATTRS, shape_fn=_conv2d_shape,
            kernel=conv_kernels.conv2d_kernel)
register_op("Conv2DBackpropInput", inputs=["input_sizes: int32", "filter: T", "out_backprop: T"],
            outputs=["output: T"], attrs=[f"T: {_CONV_TYPES}"] + _CONV_ATTRS,
            shape_fn=_backprop_input_shape, kernel=conv_kernels.conv2d_backprop_input_kernel)
register_op("Conv2DBackpropFilter", inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
            outputs=["output: T"], attrs=[f"T: {_CONV_FILTER_TYPES}"] + _CONV_ATTRS,
            shape_fn=_shape_from_sizes_input(1),
            kernel=conv_kernels.conv2d_backprop_filter_kernel)
register_op("DepthwiseConv2dNative", inputs=["input: T", "filter: T"], outputs=["output: T"],
            attrs=[f"T: {_CONV_FILTER_TYPES}"] + _DEPTHWISE_ATTRS, shape_fn=_depthwise_shape,
            kernel=conv_kernels.depthwise_kernel)
register_op("DepthwiseConv2dNativeBackpropInput",
            inputs=["input_sizes: int32", "filter: T", "out_backprop: T"], outputs=["output: T"],
            attrs=[f"T: {_CONV_FILTER_TYPES}"] + _DEPTHWISE_ATTRS,
            shape_fn=_shape_from_sizes_input(0),
            kernel=conv_kernels.depthwise_backprop_input_kernel)
register_op("DepthwiseConv2dNativeBackpropFilter",
            inputs=["input: T", "filter_sizes: int32", "out_backprop: T"], outputs=["output: T"],
            attrs=[f"T: {_CONV_FILTER_TYPES}"] + _DEPTHWISE_ATTRS,
            shape_fn=_shape_from_sizes_input(1),
            kernel=conv_kernels.depthwise_backprop_filter_kernel)


# -- gradients -----------------------------------------------------------------------------------
def _op(op_type, name=None, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def _attrs_of(op, cudnn):
    a = op._attrs
    out = {k: a[k] for k in ("strides", "padding", "explicit_paddings", "data_format",
                             "dilations")}
    if cudnn:
        out["use_cudnn_on_gpu"] = a["use_cudnn_on_gpu"]
    return out


def _shape(t):
    return shape.shape(t)


@RegisterGradient("Conv2D")
def _conv2d_grad(op, grad):
    x, f = op.inputs
    attrs = _attrs_of(op, True)
    x_shape, f_shape = shape.shape_n([x, f])
    return [_op("Conv2DBackpropInput", input_sizes=x_shape, filter=f, out_backprop=grad, **attrs),
            _op("Conv2DBackpropFilter", input=x, filter_sizes=f_shape, out_backprop=grad,
                **attrs)]


@RegisterGradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op, grad):
    _, f, dy = op.inputs
    attrs = _attrs_of(op, True)
    return [None,
            _op("Conv2DBackpropFilter", input=grad, filter_sizes=_shape(f), out_backprop=dy,
                **attrs),
            _op("Conv2D", input=grad, filter=f, **attrs)]


@RegisterGradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    attrs = _attrs_of(op, True)
    return [_op("Conv2DBackpropInput", input_sizes=_shape(x), filter=grad, out_backprop=dy,
                **attrs),
            None,
            _op("Conv2D", input=x, filter=grad, **attrs)]


@RegisterGradient("DepthwiseConv2dNative")
def _depthwise_grad(op, grad):
    x, f = op.inputs
    attrs = _attrs_of(op, False)
    return [_op("DepthwiseConv2dNativeBackpropInput", input_sizes=_shape(x), filter=f,
                out_backprop=grad, **attrs),
            _op("DepthwiseConv2dNativeBackpropFilter", input=x, filter_sizes=_shape(f),
                out_backprop=grad, **attrs)]


@RegisterGradient("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input_grad(op, grad):
    _, f, dy = op.inputs
    attrs = _attrs_of(op, False)
    return [None,
            _op("DepthwiseConv2dNativeBackpropFilter", input=grad, filter_sizes=_shape(f),
                out_backprop=dy, **attrs),
            _op("DepthwiseConv2dNative", input=grad, filter=f, **attrs)]


@RegisterGradient("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    attrs = _attrs_of(op, False)
    return [_op("DepthwiseConv2dNativeBackpropInput", input_sizes=_shape(x), filter=grad,
                out_backprop=dy, **attrs),
            None,
            _op("DepthwiseConv2dNative", input=x, filter=grad, **attrs)]


# -- graph-building functions ----------------------------------------------------------------------
def _channel_index(data_format):
    return 1 if data_format.startswith("NC") else 3


def _conv_kwargs(strides, padding, data_format, dilations, n=2):
    """strides/dilations/padding attrs in the op's form (TF's _get_sequence/convert_padding)."""
    data_format = "NHWC" if data_format is None else _text(data_format)
    ci = _channel_index(data_format)
    padding, explicit = convert_padding(padding)
    return dict(strides=get_sequence(strides, n, ci, "strides"), padding=padding,
                explicit_paddings=explicit, data_format=data_format,
                dilations=get_sequence(dilations, n, ci, "dilations"))


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """2-D convolution (`tf.nn.conv2d`, TF1 signature; op "Conv2D").

    Args:
      input: a 4-D tensor, [batch, height, width, channels] (NHWC) or NCHW.
      filter: [filter_height, filter_width, in_channels, out_channels]; `in_channels`
        may divide the input depth (grouped convolution). `filters` is an alias.
      strides: an int or a list of 1, 2 or 4 ints.
      padding: "SAME", "VALID", or a list of 4 [before, after] pairs (explicit).
      use_cudnn_on_gpu: recorded in the op, no effect here.
      data_format: "NHWC" or "NCHW".
      dilations: an int or a list of 1, 2 or 4 ints.
      name: the op name.

    Returns:
      the convolution, of the input's dtype.

    Raises:
      ValueError / TypeError: for bad arguments or incompatible shapes.
    """
    filter = lookup_alias("filters", filters, "filter", filter)
    return _op("Conv2D", name=name, input=input, filter=filter, use_cudnn_on_gpu=use_cudnn_on_gpu,
               **_conv_kwargs(strides, padding, data_format, dilations))


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa: A002
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None, filters=None):
    """Gradient of conv2d with respect to its input (`tf.nn.conv2d_backprop_input`).

    Args:
      input_sizes: the input's shape (4 ints, or the 2 spatial sizes).
      filter: the convolution filter (`filters` is an alias).
      out_backprop: the gradient with respect to the convolution's output.
      strides, padding, data_format, dilations: as in the forward conv2d (strides given
        with 4 values).

    Returns:
      a tensor of shape `input_sizes`.
    """
    filter = lookup_alias("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    return _op("Conv2DBackpropInput", name=name, input_sizes=input_sizes, filter=filter,
               out_backprop=out_backprop, strides=strides, padding=padding,
               use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit,
               data_format=data_format, dilations=list(dilations))


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1),
                           name=None):
    """Gradient of conv2d with respect to its filter (`tf.nn.conv2d_backprop_filter`).

    Returns:
      a tensor of shape `filter_sizes` ([height, width, in_channels, out_channels]).
    """
    padding, explicit = convert_padding(padding)
    return _op("Conv2DBackpropFilter", name=name, input=input, filter_sizes=filter_sizes,
               out_backprop=out_backprop, strides=strides, padding=padding,
               use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit,
               data_format=data_format, dilations=list(dilations))


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=(1, 1, 1, 1), name=None):
    """Depthwise 2-D convolution (`tf.nn.depthwise_conv2d_native`).

    Args:
      input: a 4-D tensor in `data_format`.
      filter: [height, width, in_channels, channel_multiplier].
      strides: 4 ints; padding: "SAME", "VALID" or a list of 4 pairs.

    Returns:
      a tensor with in_channels * channel_multiplier channels; output channel
      k * channel_multiplier + q comes from input channel k and filter[:, :, k, q].
    """
    padding, explicit = convert_padding(padding)
    return _op("DepthwiseConv2dNative", name=name, input=input, filter=filter, strides=strides,
               padding=padding, explicit_paddings=explicit, data_format=data_format,
               dilations=list(dilations))


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides,  # noqa
                                           padding, data_format="NHWC",
                                           dilations=(1, 1, 1, 1), name=None):
    """Gradient of depthwise_conv2d_native with respect to its input."""
    padding, explicit = convert_padding(padding)
    return _op("DepthwiseConv2dNativeBackpropInput", name=name, input_sizes=input_sizes,
               filter=filter, out_backprop=out_backprop, strides=strides, padding=padding,
               explicit_paddings=explicit, data_format=data_format, dilations=list(dilations))


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop,  # noqa: A002
                                            strides, padding, data_format="NHWC",
                                            dilations=(1, 1, 1, 1), name=None):
    """Gradient of depthwise_conv2d_native with respect to its filter."""
    padding, explicit = convert_padding(padding)
    return _op("DepthwiseConv2dNativeBackpropFilter", name=name, input=input,
               filter_sizes=filter_sizes, out_backprop=out_backprop, strides=strides,
               padding=padding, explicit_paddings=explicit, data_format=data_format,
               dilations=list(dilations))


# TF1 exports the native backprops under these shorter names too.
depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter
