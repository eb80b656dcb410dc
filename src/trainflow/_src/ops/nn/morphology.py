"""Grayscale morphology: Dilation2D with its backprop ops (`tf.nn.dilation2d`) and
`tf.nn.erosion2d`, the dilation of the negated input by the reflected kernel, negated.
Kernels: `morphology_kernels`."""
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.ops.array.layout import reverse_v2
from trainflow._src.ops.array.shape_util import UNKNOWN, dims_of, shape_of, with_rank
from trainflow._src.ops.math import arith
from trainflow._src.ops.nn import morphology_kernels as K
from trainflow._src.ops.nn.conv import lookup_alias

__all__ = ["dilation2d", "erosion2d"]

_ATTRS = ["T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
          "uint32, uint64}", "strides: list(int) >= 4", "rates: list(int) >= 4",
          'padding: {"SAME", "VALID"}']


def _dilation_shape(op):
    x, w = dims_of(op.inputs[0]), dims_of(op.inputs[1])
    if w is not None:
        w = with_rank(w, 3)
    if x is None:
        return [UNKNOWN]
    x = with_rank(x, 4)
    strides, rates = list(op.get_attr("strides")), list(op.get_attr("rates"))
    if len(strides) != 4 or len(rates) != 4:
        raise ValueError("Dilation2D requires the stride and rate attributes to contain 4 "
                         "values")
    out = [x[0], None, None, x[3] if x[3] is not None else (w[2] if w else None)]
    for i in (1, 2):
        if x[i] is not None and w is not None and w[i - 1] is not None:
            out[i] = K.geometry(x[i], w[i - 1], strides[i], rates[i], op.get_attr("padding"))[0]
    return [shape_of(tuple(out))]


def _same_as(index):
    return lambda op: [op.inputs[index].get_shape()]


register_op("Dilation2D", inputs=["input: T", "filter: T"], outputs=["output: T"],
            attrs=_ATTRS, shape_fn=_dilation_shape, kernel=K.dilation2d_kernel)
register_op("Dilation2DBackpropInput", inputs=["input: T", "filter: T", "out_backprop: T"],
            outputs=["in_backprop: T"], attrs=_ATTRS, shape_fn=_same_as(0),
            kernel=K.dilation2d_backprop_input_kernel)
register_op("Dilation2DBackpropFilter", inputs=["input: T", "filter: T", "out_backprop: T"],
            outputs=["filter_backprop: T"], attrs=_ATTRS, shape_fn=_same_as(1),
            kernel=K.dilation2d_backprop_filter_kernel)


@RegisterGradient("Dilation2D")
def _dilation2d_grad(op, grad):
    attrs = {n: op.get_attr(n) for n in ("strides", "rates", "padding")}
    x, w = op.inputs
    return [apply_op("Dilation2DBackpropInput", input=x, filter=w, out_backprop=grad,
                     **attrs).outputs[0],
            apply_op("Dilation2DBackpropFilter", input=x, filter=w, out_backprop=grad,
                     **attrs).outputs[0]]


def dilation2d(input, filter=None, strides=None, rates=None, padding=None,  # noqa: A002
               name=None, filters=None, dilations=None):
    """Grayscale dilation of input [batch, rows, cols, depth] by filter
    [f_rows, f_cols, depth]: the max over each window of input + filter (TF1's
    `tf.nn.dilation2d`; `filters` / `dilations` alias filter / rates).

    Args:
      strides, rates: 4 ints, [1, rows, cols, 1].
      padding: "SAME" or "VALID".
    """
    filter = lookup_alias("filters", filters, "filter", filter)
    rates = lookup_alias("dilations", dilations, "rates", rates)
    return apply_op("Dilation2D", input=input, filter=filter, strides=list(strides),
                    rates=list(rates), padding=padding, name=name).outputs[0]


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grayscale erosion of value [batch, rows, cols, depth] by kernel
    [k_rows, k_cols, depth]: the min over each window of value - kernel (reflected),
    computed as -dilation2d(-value, reverse(kernel)) under "erosion2d"."""
    with name_scope(name, "erosion2d", [value, kernel]) as scope:
        dilated = apply_op("Dilation2D", input=arith.negative(value),
                           filter=reverse_v2(kernel, [0, 1]), strides=list(strides),
                           rates=list(rates), padding=padding, name=scope).outputs[0]
        return arith.negative(dilated)
