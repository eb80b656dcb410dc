"""Pooling and local response normalization: MaxPool, AvgPool, MaxPoolWithArgmax,
their gradient ops (themselves differentiable), LRN and LRNGrad, registered with
shape functions, NumPy kernels and gradients, plus the TF1 `tf.nn` functions.
"""
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create, shape
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.nn import pool_kernels as pool_kernels
from trainflow._src.ops.array.shape_util import merge_dims, partial_shape_value, with_rank
from trainflow._src.ops.nn.conv import (
    check_valid_padding, convert_padding, format_parts, from_parts, get_sequence, lookup_alias,
    windowed_dim)
from trainflow._src.ops.nn.shape_util import decoded as _text

__all__ = ["max_pool", "max_pool2d", "avg_pool", "avg_pool2d", "max_pool_with_argmax", "pool",
           "lrn", "local_response_normalization"]

_MAXPOOL_TYPES = "{half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8}"
_MAXPOOL_GRAD_TYPES = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
                      "half, uint32, uint64}"
_AVGPOOL_TYPES = "{half, bfloat16, float, double}"
_WINDOW = ["ksize: list(int) >= 4", "strides: list(int) >= 4"]
_PADDING_EXPLICIT = ["padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []"]
_PADDING = ["padding: {'SAME', 'VALID'}"]
_FORMAT = ["data_format: {'NHWC', 'NCHW'} = 'NHWC'"]
_LRN_ATTRS = ["depth_radius: int = 5", "bias: float = 1", "alpha: float = 1",
              "beta: float = 0.5"]


# -- shape functions -----------------------------------------------------------------------------
def _pooled_shape(op, label, pool_depth):
    """The output shape of a pooling op over input 0 (TF's MaxPoolShape / AvgPoolShape)."""
    a = op._attrs
    fmt = _text(a.get("data_format", b"NHWC"))
    if fmt == "NCHW_VECT_C":
        with_rank(op._inputs[0]._shape._dims, 5)
        return TensorShape(None)
    x = with_rank(op._inputs[0]._shape._dims, 4)
    strides, ksize = a["strides"], a["ksize"]
    if len(strides) != 4:
        raise ValueError(f"{label} requires the stride attribute to contain 4 values, but got: "
                         f"{len(strides)}")
    if len(ksize) != 4:
        raise ValueError(f"{label} requires the ksize attribute to contain 4 values, but got: "
                         f"{len(ksize)}")
    (pt, pb), (pl, pr) = check_valid_padding(a["padding"], a.get("explicit_paddings", ()), fmt)
    n, h, w, c = format_parts(x, fmt)
    _, kh, kw, kc = format_parts(ksize, fmt)
    _, sh, sw, sc = format_parts(strides, fmt)
    padding = a["padding"]
    oh = windowed_dim(h, kh, 1, sh, padding, pt, pb)
    ow = windowed_dim(w, kw, 1, sw, padding, pl, pr)
    if pool_depth:
        c = windowed_dim(c, kc, 1, sc, "VALID" if _text(padding) == "EXPLICIT" else padding)
    return from_parts(n, oh, ow, c, fmt)


def _max_pool_shape(op):
    return [_pooled_shape(op, "MaxPool", True)]


def _avg_pool_shape(op):
    return [_pooled_shape(op, "AvgPool", False)]


def _rank4_of_input0(op):
    return [TensorShape(with_rank(op._inputs[0]._shape._dims, 4))]


def _max_pool_grad_grad_shape(op):
    out = _pooled_shape(op, "MaxPool", True)
    merge_dims(op._inputs[0]._shape._dims, op._inputs[2]._shape._dims)
    merge_dims(op._inputs[1]._shape._dims, out._dims)
    return [out]


def _avg_pool_grad_shape(op):
    sizes = partial_shape_value(op._inputs[0])
    return [TensorShape(with_rank(sizes, 4))]


def _argmax_shape(op):
    out = _pooled_shape(op, "MaxPool", True)
    return [out, out]


def _lrn_grad_shape(op):
    dims = with_rank(op._inputs[0]._shape._dims, 4)
    for t in op._inputs[1:]:
        dims = merge_dims(dims, with_rank(t._shape._dims, 4))
    return [TensorShape(dims)]


# -- registrations -------------------------------------------------------------------------------
register_op("MaxPool", inputs=["input: T"], outputs=["output: T"],
            attrs=[f"T: {_MAXPOOL_TYPES} = DT_FLOAT"] + _WINDOW + _PADDING_EXPLICIT +
            ["data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"],
            shape_fn=_max_pool_shape, kernel=pool_kernels.max_pool_kernel)
register_op("MaxPoolGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
            outputs=["output: T"],
            attrs=_WINDOW + _PADDING_EXPLICIT + _FORMAT + [f"T: {_MAXPOOL_GRAD_TYPES} = DT_FLOAT"],
            shape_fn=_rank4_of_input0, kernel=pool_kernels.max_pool_grad_kernel)
register_op("MaxPoolGradGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
            outputs=["output: T"],
            attrs=_WINDOW + _PADDING + _FORMAT + [f"T: {_MAXPOOL_GRAD_TYPES}"],
            shape_fn=_max_pool_grad_grad_shape, kernel=pool_kernels.max_pool_grad_grad_kernel)
register_op("AvgPool", inputs=["value: T"], outputs=["output: T"],
            attrs=_WINDOW + _PADDING + _FORMAT + [f"T: {_AVGPOOL_TYPES}"],
            shape_fn=_avg_pool_shape, kernel=pool_kernels.avg_pool_kernel)
register_op("AvgPoolGrad", inputs=["orig_input_shape: int32", "grad: T"], outputs=["output: T"],
            attrs=_WINDOW + _PADDING + _FORMAT + [f"T: {_AVGPOOL_TYPES}"],
            shape_fn=_avg_pool_grad_shape, kernel=pool_kernels.avg_pool_grad_kernel)
_ARGMAX_ATTRS = _WINDOW + _PADDING + ["include_batch_in_index: bool = false",
                                      f"T: {_MAXPOOL_GRAD_TYPES}"]
register_op("MaxPoolWithArgmax", inputs=["input: T"], outputs=["output: T", "argmax: Targmax"],
            attrs=_WINDOW + ["Targmax: {int32, int64} = DT_INT64"] + _PADDING +
            ["include_batch_in_index: bool = false", f"T: {_MAXPOOL_GRAD_TYPES}"],
            shape_fn=_argmax_shape, kernel=pool_kernels.max_pool_with_argmax_kernel)
register_op("MaxPoolGradWithArgmax", inputs=["input: T", "grad: T", "argmax: Targmax"],
            outputs=["output: T"], attrs=_ARGMAX_ATTRS + ["Targmax: {int32, int64}"],
            shape_fn=_rank4_of_input0, kernel=pool_kernels.max_pool_grad_with_argmax_kernel)
register_op("MaxPoolGradGradWithArgmax", inputs=["input: T", "grad: T", "argmax: Targmax"],
            outputs=["output: T"], attrs=_ARGMAX_ATTRS + ["Targmax: {int32, int64}"],
            shape_fn=_max_pool_shape, kernel=pool_kernels.max_pool_grad_grad_with_argmax_kernel)
register_op("LRN", inputs=["input: T"], outputs=["output: T"],
            attrs=_LRN_ATTRS + ["T: {half, bfloat16, float} = DT_FLOAT"], shape_fn=_rank4_of_input0,
            kernel=pool_kernels.lrn_kernel)
register_op("LRNGrad", inputs=["input_grads: T", "input_image: T", "output_image: T"],
            outputs=["output: T"], attrs=_LRN_ATTRS + ["T: {half, bfloat16, float} = DT_FLOAT"],
            shape_fn=_lrn_grad_shape, kernel=pool_kernels.lrn_grad_kernel)


# -- gradients -----------------------------------------------------------------------------------
def _op(op_type, name=None, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def _window_attrs(op, *extra):
    return {k: op._attrs[k] for k in ("ksize", "strides", "padding") + extra}


def _zeros_like(t):
    return create.zeros_like(t)


@RegisterGradient("MaxPool")
def _max_pool_grad(op, grad):
    return _op("MaxPoolGrad", orig_input=op.inputs[0], orig_output=op.outputs[0], grad=grad,
               **_window_attrs(op, "explicit_paddings", "data_format"))


def _max_pool_grad_of_grad(grad_op_type):
    """The gradient of MaxPoolGrad / MaxPoolGradGrad: zeros for the pooled input and
    output, `grad_op_type` (the other one of the pair) for the incoming gradient."""
    def grad_fn(op, grad):
        x, y, _ = op.inputs
        return [_zeros_like(x), _zeros_like(y),
                _op(grad_op_type, orig_input=x, orig_output=y, grad=grad,
                    **_window_attrs(op, "data_format"))]
    return grad_fn


RegisterGradient("MaxPoolGrad")(_max_pool_grad_of_grad("MaxPoolGradGrad"))
RegisterGradient("MaxPoolGradGrad")(_max_pool_grad_of_grad("MaxPoolGrad"))


@RegisterGradient("AvgPool")
def _avg_pool_grad(op, grad):
    return _op("AvgPoolGrad", orig_input_shape=shape.shape(op.inputs[0]), grad=grad,
               **_window_attrs(op, "data_format"))


@RegisterGradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    return [None, _op("AvgPool", value=grad, **_window_attrs(op, "data_format"))]


@RegisterGradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op, grad, unused_argmax_grad):
    return _op("MaxPoolGradWithArgmax", input=op.inputs[0], grad=grad, argmax=op.outputs[1],
               **_window_attrs(op, "include_batch_in_index"))


def _argmax_grad_of_grad(grad_op_type):
    """The gradient of MaxPoolGradWithArgmax / MaxPoolGradGradWithArgmax: zeros for the
    input, `grad_op_type` (the other one of the pair) for the gradient, none for argmax."""
    def grad_fn(op, grad):
        x, _, argmax = op.inputs
        return [_zeros_like(x),
                _op(grad_op_type, input=x, grad=grad, argmax=argmax,
                    **_window_attrs(op, "include_batch_in_index")),
                None]
    return grad_fn


RegisterGradient("MaxPoolGradWithArgmax")(_argmax_grad_of_grad("MaxPoolGradGradWithArgmax"))
RegisterGradient("MaxPoolGradGradWithArgmax")(_argmax_grad_of_grad("MaxPoolGradWithArgmax"))


@RegisterGradient("LRN")
def _lrn_grad(op, grad):
    a = op._attrs
    return _op("LRNGrad", input_grads=grad, input_image=op.inputs[0], output_image=op.outputs[0],
               depth_radius=a["depth_radius"], bias=a["bias"], alpha=a["alpha"], beta=a["beta"])


# -- graph-building functions ----------------------------------------------------------------------
def _window_args(ksize, strides, data_format):
    data_format = "NHWC" if data_format is None else _text(data_format)
    ci = 1 if data_format.startswith("NC") else 3
    return (get_sequence(ksize, 2, ci, "ksize"), get_sequence(strides, 2, ci, "strides"),
            data_format)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):  # noqa: A002 - TF's alias
    """Max pooling (`tf.nn.max_pool`, TF1 signature; op "MaxPool").

    Args:
      value: a 4-D tensor in `data_format` (`input` is an alias).
      ksize, strides: an int or a list of 1, 2 or 4 ints.
      padding: "SAME", "VALID" or a list of 4 [before, after] pairs.
      data_format: "NHWC", "NCHW" or "NCHW_VECT_C".
      name: the op name.

    Returns:
      the max over each window (padded cells never count).

    Raises:
      ValueError: for a zero window size or malformed arguments.
    """
    value = lookup_alias("input", input, "value", value)
    ksize, strides, data_format = _window_args(ksize, strides, data_format)
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError("`data_format='NCHW_VECT_C'` is not supported with explicit padding. "
                         f"Received: padding={padding}")
    padding, explicit = convert_padding(padding)
    if any(k == 0 for k in ksize):
        raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
    return _op("MaxPool", name=name or "MaxPool", input=value, ksize=ksize, strides=strides,
               padding=padding, explicit_paddings=explicit, data_format=data_format)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """`tf.nn.max_pool2d`: max_pool with the TF2 argument name `input`."""
    with name_scope(name, "MaxPool2d", [input]) as scope:
        return max_pool(input, ksize, strides, padding, data_format=data_format, name=scope)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):  # noqa: A002 - TF's alias
    """Average pooling (`tf.nn.avg_pool`, TF1 signature; op "AvgPool").

    Each output is the mean of its window's unpadded cells.

    Args:
      value: a 4-D float tensor (`input` is an alias).
      ksize, strides: an int or a list of 1, 2 or 4 ints.
      padding: "SAME" or "VALID".
    """
    value = lookup_alias("input", input, "value", value)
    ksize, strides, data_format = _window_args(ksize, strides, data_format)
    return _op("AvgPool", name=name or "AvgPool", value=value, ksize=ksize, strides=strides,
               padding=padding, data_format=data_format)


avg_pool2d = avg_pool


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         Targmax=None, name=None, output_dtype=None,  # noqa: N803
                         include_batch_in_index=False):
    """Max pooling that also returns the flat index of each maximum.

    The index of input[b, y, x, c] is ((b * height + y) * width + x) * channels + c
    with `include_batch_in_index`, else (y * width + x) * channels + c.

    Returns:
      (output, argmax), argmax of dtype `Targmax` / `output_dtype` (default int64).

    Raises:
      ValueError: for a data_format other than "NHWC".
    """
    if data_format != "NHWC":
        raise ValueError("`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    targmax = lookup_alias("output_dtype", output_dtype, "Targmax", Targmax)
    targmax = dtypes.int64 if targmax is None else dtypes.as_dtype(targmax)
    op = apply_op("MaxPoolWithArgmax", name=name, input=input, ksize=ksize, strides=strides,
                  padding=padding, Targmax=targmax,
                  include_batch_in_index=include_batch_in_index)
    return op.outputs[0], op.outputs[1]


def _positive_seq(value, n, label):
    if value is None:
        return [1] * n
    value = [int(v) for v in ([value] if isinstance(value, int) else value)]
    if len(value) == 1:
        value = value * n
    if len(value) != n:
        raise ValueError(f"len({label}) must be {n}. Received: {label}={value}")
    if any(v <= 0 for v in value):
        raise ValueError(f"{label} must be positive. Received: {label}={value}")
    return value


def pool(input, window_shape, pooling_type, padding, dilation_rate=None,  # noqa: A002
         strides=None, name=None, data_format=None, dilations=None):
    """N-D pooling for N = 1 or 2 (`tf.nn.pool`): "MAX" or "AVG" over the spatial dims.

    Raises:
      ValueError: for a bad window, pooling type, SAME padding with dilation, strides
        larger than the window, or dilation_rate > 1 (not supported here).
    """
    dilation_rate = lookup_alias("dilations", dilations, "dilation_rate", dilation_rate)
    with name_scope(name, f"{str(pooling_type).lower()}_pool", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        window_shape = [int(v) for v in window_shape]
        n = len(window_shape)
        if n < 1 or n > 3:
            raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: "
                             f"window_shape={window_shape} of length {n}")
        input.get_shape().with_rank(n + 2)
        strides = _positive_seq(strides, n, "strides")
        dilation_rate = _positive_seq(dilation_rate, n, "dilation_rate")
        if any(s > 1 for s in strides) and any(d > 1 for d in dilation_rate):
            raise ValueError(f"`strides > 1` not supported in conjunction with "
                             f"`dilation_rate > 1`. Received: strides={strides} and "
                             f"dilation_rate={dilation_rate}")
        if padding == "SAME" and any(d > 1 for d in dilation_rate):
            raise ValueError("pooling with 'SAME' padding is not implemented for "
                             f"`dilation_rate` > 1. Received: padding={padding} and "
                             f"dilation_rate={dilation_rate}")
        if any(s > w for s, w in zip(strides, window_shape)):
            raise ValueError("`strides` > `window_shape` not supported due to inconsistency "
                             f"between CPU and GPU implementations. Received: strides={strides} "
                             f"and window_shape={window_shape}")
        if pooling_type not in ("MAX", "AVG") or n == 3:
            raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
        if any(d > 1 for d in dilation_rate):
            raise ValueError(f"dilated pooling is not supported by trainflow. Received: "
                             f"dilation_rate={dilation_rate}")
        return _pool_nd(input, window_shape, strides, pooling_type, padding, data_format, scope)


def _pool_nd(input, window, strides, pooling_type, padding, data_format, scope):  # noqa: A002
    """One MaxPool/AvgPool op over 1 or 2 spatial dims (1-D runs as a height-1 2-D pool)."""
    one_d = len(window) == 1
    channels_first = data_format is not None and data_format.startswith("NC")
    if one_d:
        if data_format not in (None, "NWC", "NCW"):
            raise ValueError("data_format must be either 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        window, strides = [1] + window, [1] + strides
    if channels_first:
        ksize, kstrides, fmt = [1, 1] + window, [1, 1] + strides, "NCHW"
    else:
        ksize, kstrides, fmt = [1] + window + [1], [1] + strides + [1], "NHWC"
    fn = max_pool if pooling_type == "MAX" else avg_pool
    if not one_d:
        return fn(input, ksize, kstrides, padding, data_format=fmt, name=scope)
    axis = 2 if channels_first else 1
    expanded = shape.expand_dims(input, axis)
    pooled = fn(expanded, ksize, kstrides, padding, data_format=fmt, name=scope)
    return shape.squeeze(pooled, [axis])


def lrn(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    """Local response normalization (`tf.nn.lrn`; op "LRN").

    output = input / (bias + alpha * sqr_sum) ** beta, where sqr_sum sums input ** 2
    over the channels [c - depth_radius, c + depth_radius] of the last dimension.

    Args:
      input: a 4-D half, bfloat16 or float32 tensor.
    """
    return _op("LRN", name=name, input=input, depth_radius=depth_radius, bias=bias, alpha=alpha,
               beta=beta)


local_response_normalization = lrn
