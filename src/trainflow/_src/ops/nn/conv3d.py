"""3-D convolution and pooling (Conv3D, Conv3DBackpropInputV2/FilterV2, MaxPool3D,
AvgPool3D and their gradient ops), the 1-D pools built on the 2-D ones
(`max_pool1d`, `avg_pool1d`) and TF2's rank-dispatching pools (`max_pool_v2`,
`avg_pool_v2`). Kernels: `conv3d_kernels`.
"""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, partial_shape_value, shape_of, with_rank)
from trainflow._src.ops.nn import conv3d_kernels as k
from trainflow._src.ops.nn.conv import get_sequence
from trainflow._src.ops.array.create import zeros_like
from trainflow._src.ops.array.shape import expand_dims, shape, squeeze
from trainflow._src.ops.nn.pool import avg_pool, max_pool, max_pool2d

__all__ = ["avg_pool1d", "avg_pool3d", "avg_pool_v2", "conv3d", "conv3d_backprop_filter",
           "conv3d_backprop_filter_v2",
           "conv3d_transpose", "max_pool1d", "max_pool3d", "max_pool_v2"]

_FLOATS = "{float16, bfloat16, float32, float64}"
_POOL_MAX_T = "{float16, bfloat16, float32}"
_PADDING = 'padding: {"SAME", "VALID"}'
_FORMAT = 'data_format: {"NDHWC", "NCDHW"} = "NDHWC"'
_DILATIONS = "dilations: list(int) = [1, 1, 1, 1, 1]"


def _layout(data_format):
    """(channel axis, spatial axes) of a 5-D layout."""
    return (1, (2, 3, 4)) if k.text(data_format) == "NCDHW" else (4, (1, 2, 3))


def _out_dim(n, ksize, stride, dilation, padding):
    if n is None or ksize is None:
        return None
    span = (ksize - 1) * dilation + 1
    if k.text(padding) == "VALID":
        if n < span:
            raise ValueError(f"Negative dimension size caused by subtracting {span} from {n}")
        return -(-(n - span + 1) // stride)
    return -(-n // stride)


def _windowed_shape(op, in_dims, kernel_spatial, out_channels, dilated=True):
    fmt = op._attrs.get("data_format", "NDHWC")
    c_axis, sp = _layout(fmt)
    strides = list(op._attrs["strides"])
    dil = list(op._attrs.get("dilations", [1] * 5)) if dilated else [1] * 5
    dims = with_rank(in_dims, 5)
    out = list(dims)
    for axis, kk in zip(sp, kernel_spatial):
        out[axis] = _out_dim(dims[axis], kk, strides[axis], dil[axis], op._attrs["padding"])
    out[c_axis] = out_channels
    return [shape_of(tuple(out))]


def _conv3d_shape(op):
    x, w = dims_of(op.inputs[0]), dims_of(op.inputs[1])
    if x is None:
        return [UNKNOWN]
    c_axis, _ = _layout(op._attrs.get("data_format", "NDHWC"))
    w = with_rank(w, 5)
    x = with_rank(x, 5)
    if x[c_axis] is not None and w[3] is not None and x[c_axis] % w[3]:
        raise ValueError(f"Depth of input ({x[c_axis]}) is not a multiple of input depth of "
                         f"filter ({w[3]})")
    return _windowed_shape(op, x, w[:3], w[4])


def _shape_input(index):
    def shape_fn(op):
        return [shape_of(partial_shape_value(op.inputs[index]))]
    return shape_fn


def _pool_shape(op):
    x = dims_of(op.inputs[0])
    if x is None:
        return [UNKNOWN]
    c_axis, sp = _layout(op._attrs.get("data_format", "NDHWC"))
    ksize = list(op._attrs["ksize"])
    return _windowed_shape(op, x, [ksize[a] for a in sp], with_rank(x, 5)[c_axis],
                           dilated=False)


def _same_as(index):
    return lambda op: [op.inputs[index].shape]


_CONV_ATTRS = [f"T: {_FLOATS}", "strides: list(int) >= 5", _PADDING, _FORMAT, _DILATIONS]
register_op("Conv3D", inputs=["input: T", "filter: T"], outputs=["output: T"],
            attrs=_CONV_ATTRS, shape_fn=_conv3d_shape, kernel=k.conv3d_kernel)
register_op("Conv3DBackpropInputV2",
            inputs=["input_sizes: Tshape", "filter: T", "out_backprop: T"],
            outputs=["output: T"], attrs=_CONV_ATTRS + ["Tshape: {int32, int64} = DT_INT32"],
            shape_fn=_shape_input(0), kernel=k.conv3d_backprop_input_kernel)
register_op("Conv3DBackpropFilterV2",
            inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
            outputs=["output: T"], attrs=_CONV_ATTRS,
            shape_fn=_shape_input(1), kernel=k.conv3d_backprop_filter_kernel)

_POOL_ATTRS = ["ksize: list(int) >= 5", "strides: list(int) >= 5", _PADDING, _FORMAT]
register_op("MaxPool3D", inputs=["input: T"], outputs=["output: T"],
            attrs=_POOL_ATTRS + [f"T: {_POOL_MAX_T}"], shape_fn=_pool_shape,
            kernel=k.max_pool3d_kernel)
register_op("MaxPool3DGrad", inputs=["orig_input: TInput", "orig_output: TInput", "grad: T"],
            outputs=["output: T"],
            attrs=_POOL_ATTRS + [f"T: {_POOL_MAX_T} = DT_FLOAT",
                                 f"TInput: {_POOL_MAX_T} = DT_FLOAT"],
            shape_fn=_same_as(0), kernel=k.max_pool3d_grad_kernel)
register_op("MaxPool3DGradGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
            outputs=["output: T"],
            attrs=_POOL_ATTRS + ["T: {float32, float64, int32, uint8, int16, int8, int64, "
                                 "bfloat16, uint16, float16, uint32, uint64}"],
            shape_fn=_same_as(1), kernel=k.max_pool3d_grad_grad_kernel)
register_op("AvgPool3D", inputs=["input: T"], outputs=["output: T"],
            attrs=_POOL_ATTRS + [f"T: {_FLOATS}"], shape_fn=_pool_shape,
            kernel=k.avg_pool3d_kernel)
register_op("AvgPool3DGrad", inputs=["orig_input_shape: int32", "grad: T"],
            outputs=["output: T"], attrs=_POOL_ATTRS + [f"T: {_FLOATS}"],
            shape_fn=_shape_input(0), kernel=k.avg_pool3d_grad_kernel)


def _attrs(op, *names):
    return {n: op.get_attr(n) for n in names}


_CONV_NAMES = ("strides", "padding", "data_format", "dilations")
_POOL_NAMES = ("ksize", "strides", "padding", "data_format")


def _shape(t):
    return shape(t)


@RegisterGradient("Conv3D")
def _conv3d_grad(op, grad):
    x, w = op.inputs
    a = _attrs(op, *_CONV_NAMES)
    return (apply_op("Conv3DBackpropInputV2", input_sizes=_shape(x), filter=w,
                     out_backprop=grad, **a).outputs[0],
            apply_op("Conv3DBackpropFilterV2", input=x, filter_sizes=_shape(w),
                     out_backprop=grad, **a).outputs[0])


@RegisterGradient("Conv3DBackpropInputV2")
def _conv3d_backprop_input_grad(op, grad):
    _, w, dy = op.inputs
    a = _attrs(op, *_CONV_NAMES)
    return (None,
            apply_op("Conv3DBackpropFilterV2", input=grad, filter_sizes=_shape(w),
                     out_backprop=dy, **a).outputs[0],
            apply_op("Conv3D", input=grad, filter=w, **a).outputs[0])


@RegisterGradient("Conv3DBackpropFilterV2")
def _conv3d_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    a = _attrs(op, *_CONV_NAMES)
    return (apply_op("Conv3DBackpropInputV2", input_sizes=_shape(x), filter=grad,
                     out_backprop=dy, **a).outputs[0],
            None,
            apply_op("Conv3D", input=x, filter=grad, **a).outputs[0])


@RegisterGradient("MaxPool3D")
def _max_pool3d_grad(op, grad):
    return apply_op("MaxPool3DGrad", orig_input=op.inputs[0], orig_output=op.outputs[0],
                    grad=grad, **_attrs(op, *_POOL_NAMES)).outputs[0]


def _zeros(t):
    return zeros_like(t)


@RegisterGradient("MaxPool3DGrad")
def _max_pool3d_grad_grad(op, grad):
    x, y = op.inputs[:2]
    return (_zeros(x), _zeros(y),
            apply_op("MaxPool3DGradGrad", orig_input=x, orig_output=y, grad=grad,
                     **_attrs(op, *_POOL_NAMES)).outputs[0])


@RegisterGradient("MaxPool3DGradGrad")
def _max_pool3d_grad_grad_grad(op, grad):
    x, y = op.inputs[:2]
    return (_zeros(x), _zeros(y),
            apply_op("MaxPool3DGrad", orig_input=x, orig_output=y, grad=grad,
                     **_attrs(op, *_POOL_NAMES)).outputs[0])


@RegisterGradient("AvgPool3D")
def _avg_pool3d_grad(op, grad):
    return apply_op("AvgPool3DGrad", orig_input_shape=_shape(op.inputs[0]), grad=grad,
                    **_attrs(op, *_POOL_NAMES)).outputs[0]


@RegisterGradient("AvgPool3DGrad")
def _avg_pool3d_grad_grad(op, grad):
    return None, apply_op("AvgPool3D", input=grad, **_attrs(op, *_POOL_NAMES)).outputs[0]


# -- public functions -------------------------------------------------------------------------
def _seq(value, name, data_format):
    c_axis, _ = _layout(data_format)
    return get_sequence(value, 3, c_axis, name)


def conv3d(input, filter=None, strides=None, padding=None,  # noqa: A002 - TF's names
           data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    """3-D convolution (`Conv3D`): input [batch, depth, height, width, in_channels],
    filter [d, h, w, in_channels, out_channels]; `filters` is TF2's name for filter.

    Raises:
      ValueError: for both or neither of filter/filters, or malformed arguments.
    """
    if filter is not None and filters is not None:
        raise ValueError("filter and filters arguments cannot both be specified")
    filter = filters if filter is None else filter
    if filter is None:
        raise ValueError("filter or filters must be specified")
    return apply_op("Conv3D", input=input, filter=filter, strides=list(strides),
                    padding=padding, data_format=data_format,
                    dilations=list(dilations), name=name).outputs[0]


def conv3d_backprop_filter_v2(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                              data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of conv3d with respect to its filter (`Conv3DBackpropFilterV2`)."""
    return apply_op("Conv3DBackpropFilterV2", input=input, filter_sizes=filter_sizes,
                    out_backprop=out_backprop, strides=list(strides), padding=padding,
                    data_format=data_format, dilations=list(dilations), name=name).outputs[0]


conv3d_backprop_filter = conv3d_backprop_filter_v2  # TF exports the V2 op under both names


def conv3d_transpose(value, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NDHWC", name=None,
                     input=None, filters=None, dilations=None):  # noqa: A002 - TF's argument name
    """The transpose of conv3d (`Conv3DBackpropInputV2`): `output_shape` is the shape of
    the result, which conv3d with the same filter and strides maps back to `value`."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    with name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        return apply_op("Conv3DBackpropInputV2", input_sizes=output_shape, filter=filter,
                        out_backprop=value, strides=list(strides), padding=padding,
                        data_format=data_format,
                        dilations=list(dilations or (1, 1, 1, 1, 1)), name=scope).outputs[0]


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D max pooling (`MaxPool3D`); padded cells never win."""
    return apply_op("MaxPool3D", input=input, ksize=_seq(ksize, "ksize", data_format),
                    strides=_seq(strides, "strides", data_format), padding=padding,
                    data_format=data_format, name=name).outputs[0]


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D average pooling (`AvgPool3D`); each output averages its unpadded cells."""
    return apply_op("AvgPool3D", input=input, ksize=_seq(ksize, "ksize", data_format),
                    strides=_seq(strides, "strides", data_format), padding=padding,
                    data_format=data_format, name=name).outputs[0]


def _pool1d(pool_fn, default_name, input, ksize, strides, padding, data_format,  # noqa: A002
            name):
    if data_format is None or data_format == "NWC":
        fmt, axis, channel = "NHWC", 1, 2
    elif data_format == "NCW":
        fmt, axis, channel = "NCHW", 2, 1
    else:
        raise ValueError(f"data_format must be \"NWC\" or \"NCW\", got {data_format!r}")
    with get_default_graph().name_scope(name or default_name) as scope:
        ksize = [1] + get_sequence(ksize, 1, channel, "ksize")
        strides = [1] + get_sequence(strides, 1, channel, "strides")
        x = expand_dims(convert_to_tensor(input), axis)
        out = pool_fn(x, ksize=ksize, strides=strides, padding=padding, data_format=fmt,
                      name=scope)
        return squeeze(out, [axis])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D max pooling over [batch, width, channels] (a MaxPool on an expanded dim)."""
    return _pool1d(max_pool, "MaxPool1d", input, ksize, strides, padding, data_format, name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D average pooling over [batch, width, channels] (an AvgPool on an expanded dim)."""
    return _pool1d(avg_pool, "AvgPool1D", input, ksize, strides, padding, data_format, name)


def _pool_v2(ops, input, ksize, strides, padding, data_format, name):  # noqa: A002
    rank = input.shape.ndims if hasattr(input, "shape") else None
    if rank is not None:
        n = rank - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError("`input` must have a static shape or `data_format` must be given. "
                         f"Received: input.shape={input.shape} and data_format={data_format}")
    if not 1 <= n <= 3:
        raise ValueError("`input.shape.rank` must be 3, 4 or 5. Received: "
                         f"input.shape={input.shape} of rank {n + 2}.")
    channel = n + 1 if data_format is None or not data_format.startswith("NC") else 1
    if isinstance(padding, (list, tuple)) and n == 3:
        raise ValueError("Explicit padding is not supported with an input tensor of rank 5. "
                         f"Received: padding={padding}")
    ksize = get_sequence(ksize, n, channel, "ksize")
    strides = get_sequence(strides, n, channel, "strides")
    default = (None, "NWC", "NHWC", "NDHWC")[n]
    return ops[n](input, ksize=ksize, strides=strides, padding=padding,
                  data_format=default if data_format is None else data_format, name=name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """TF2's `avg_pool`: 1-, 2- or 3-D average pooling chosen by the rank of `input`
    (AvgPool1D's ExpandDims/AvgPool/Squeeze, AvgPool or AvgPool3D)."""
    input = convert_to_tensor(input)
    return _pool_v2({1: avg_pool1d, 2: avg_pool, 3: avg_pool3d}, input, ksize, strides,
                    padding, data_format, name)


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """TF2's `max_pool`: 1-, 2- or 3-D max pooling chosen by the rank of `input`
    (explicit padding pairs for ranks 3 and 4 only)."""
    input = convert_to_tensor(input)
    return _pool_v2({1: max_pool1d, 2: max_pool2d, 3: max_pool3d}, input, ksize, strides,
                    padding, data_format, name)
