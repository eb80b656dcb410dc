"""Runs an op's static shape function and words its errors as TensorFlow does."""
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape


def format_shape(shape):
    """"[2,?]" for a known rank, "?" for unknown rank (TF's shape-error style)."""
    dims = shape._dims
    if dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def run_shape_fn(op):
    """Sets the static shapes of `op`'s outputs from its registered shape function.

    Raises:
      ValueError: naming the op, its inputs and their shapes, if the shapes are invalid.
    """
    try:
        shapes = op._info.shape_fn(op)
    except (ValueError, IndexError) as e:
        inputs = ", ".join(t.op.name for t in op._inputs)
        shapes_str = ", ".join(format_shape(t._shape) for t in op._inputs)
        raise ValueError(f"{e} for '{{{{node {op._name}}}}} = {op._type}({inputs})' with "
                         f"input shapes: {shapes_str}.") from None
    if shapes is None:
        return
    if len(shapes) != len(op._outputs):
        raise ValueError(f"Shape function of {op._type} returned {len(shapes)} shapes for "
                         f"{len(op._outputs)} outputs")
    for t, s in zip(op._outputs, shapes):
        if s is None:
            s = unknown_shape()
        elif not isinstance(s, TensorShape):
            s = TensorShape(s)
        t._shape = s


def unchanged_shape(op):
    """Shape function: the single output has the first input's shape."""
    return [op._inputs[0]._shape]


def unknown_shapes(op):
    """Shape function: every output shape is unknown."""
    return [unknown_shape()] * len(op._outputs)


def scalar_shapes(op):
    """Shape function: every output is a scalar."""
    return [TensorShape(())] * len(op._outputs)


def no_outputs(op):
    return []
