"""StringJoin: element-wise concatenation of string tensors (scalars broadcast)."""
__all__ = ["string_join"]

import numpy as np

from trainflow.framework import errors
from trainflow.framework.op_builder import apply_op
from trainflow.framework.registry import NotDifferentiable, register_op
from trainflow.framework.tensor_shape import scalar


def _as_bytes(x):
    return x if isinstance(x, bytes) else str(x).encode("utf-8")


def _string_join_kernel(inputs, *, separator):
    arrays = [np.asarray(x, dtype=object) for x in inputs]
    shapes = {a.shape for a in arrays if a.ndim > 0}
    if len(shapes) > 1:
        raise errors.InvalidArgumentError(
            None, None, "Input shapes do not match: " +
            " vs. ".join("[" + ",".join(map(str, s)) + "]" for s in sorted(shapes)))
    shape = shapes.pop() if shapes else ()
    sep = _as_bytes(separator)
    flat = [np.broadcast_to(a, shape).reshape(-1).tolist() for a in arrays]
    out = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=object)
    for i, parts in enumerate(zip(*flat)):
        out[i] = sep.join(_as_bytes(p) for p in parts)
    return out.reshape(shape)


def _string_join_shape(op):
    out = scalar()
    for t in op._inputs:
        if t._shape.rank != 0:
            out = t._shape if out.rank == 0 else out.merge_with(t._shape)
    return [out]


register_op("StringJoin", inputs=["inputs: N * string"], outputs=["output: string"],
            attrs=["N: int >= 0", "separator: string = ''"], shape_fn=_string_join_shape,
            kernel=_string_join_kernel)
NotDifferentiable("StringJoin")


def string_join(inputs, separator="", name=None):
    """Joins the strings of `inputs` element-wise with `separator` (`tf.strings.join`)."""
    return apply_op("StringJoin", inputs=list(inputs), separator=separator,
                    name=name).outputs[0]
