"""Block rearrangements between depth and space: DepthToSpace and SpaceToDepth
(NHWC and NCHW), each the other's gradient; and `batch_gather` / `parallel_stack`
(the `ParallelConcat` op)."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import as_shape
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, fmt_dims, invalid_argument, merge_dims, shape_of, with_rank)
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.ops.array.gather import gather
from trainflow._src.ops.array.shape import expand_dims

__all__ = ["batch_gather", "depth_to_space", "parallel_stack", "space_to_depth"]

_FORMATS = '{"NHWC", "NCHW", "NCHW_VECT_C"} = "NHWC"'


def _fmt(data_format):
    return data_format.decode() if isinstance(data_format, bytes) else data_format


def _check_format(data_format):
    if _fmt(data_format) not in ("NHWC", "NCHW"):
        raise invalid_argument(f"data_format {_fmt(data_format)} is not supported")


def _batch_depth_height_width(input, data_format):  # noqa: A002
    """The checked 4-D input array, whether it is NCHW, and its (batch, depth, height,
    width)."""
    _check_format(data_format)
    x = np.asarray(input)
    if x.ndim != 4:
        raise invalid_argument(f"Input rank should be: 4 instead of: {x.ndim}")
    nchw = _fmt(data_format) == "NCHW"
    return x, nchw, (x.shape if nchw else (x.shape[0], x.shape[3], x.shape[1], x.shape[2]))


def _depth_to_space(input, *, block_size, data_format):  # noqa: A002 - TF's names
    x, nchw, (b, c, h, w) = _batch_depth_height_width(input, data_format)
    bs = block_size
    if c % (bs * bs):
        raise invalid_argument(f"Input depth dimension {c} should be divisible by: "
                               f"{bs * bs}")
    co = c // (bs * bs)
    if nchw:
        y = x.reshape(b, bs, bs, co, h, w).transpose(0, 3, 4, 1, 5, 2)
        return y.reshape(b, co, h * bs, w * bs)
    y = x.reshape(b, h, w, bs, bs, co).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(b, h * bs, w * bs, co)


def _space_to_depth(input, *, block_size, data_format):  # noqa: A002
    x, nchw, (b, c, h, w) = _batch_depth_height_width(input, data_format)
    bs = block_size
    if h % bs or w % bs:
        raise invalid_argument(f"Image width {w} and height {h} should be divisible by "
                               f"block_size: {bs}")
    if nchw:
        y = x.reshape(b, c, h // bs, bs, w // bs, bs).transpose(0, 3, 5, 1, 2, 4)
        return y.reshape(b, c * bs * bs, h // bs, w // bs)
    y = x.reshape(b, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(b, h // bs, w // bs, bs * bs * c)


def _mul(d, k):
    return None if d is None else d * k


def _div(d, k, what):
    if d is None:
        return None
    if d % k:
        raise ValueError(f"Dimension size must be evenly divisible by {k} but is {d} for "
                         f"{what}")
    return d // k


def _layout_shape(to_space):
    def shape_fn(op):
        dims = dims_of(op.inputs[0])
        if dims is None:
            return [UNKNOWN]
        b, d1, d2, d3 = with_rank(dims, 4)
        bs = op._attrs["block_size"]
        nchw = _fmt(op._attrs.get("data_format", "NHWC")) == "NCHW"
        c, h, w = (d1, d2, d3) if nchw else (d3, d1, d2)
        if to_space:
            c, h, w = _div(c, bs * bs, "depth"), _mul(h, bs), _mul(w, bs)
        else:
            c, h, w = _mul(c, bs * bs), _div(h, bs, "height"), _div(w, bs, "width")
        return [shape_of((b, c, h, w) if nchw else (b, h, w, c))]
    return shape_fn


_ATTRS = ["T: type", "block_size: int >= 2", f"data_format: {_FORMATS}"]
register_op("DepthToSpace", inputs=["input: T"], outputs=["output: T"], attrs=_ATTRS,
            shape_fn=_layout_shape(True), kernel=_depth_to_space)
register_op("SpaceToDepth", inputs=["input: T"], outputs=["output: T"], attrs=_ATTRS,
            shape_fn=_layout_shape(False), kernel=_space_to_depth)


@RegisterGradient("DepthToSpace")
def _depth_to_space_grad(op, grad):
    return space_to_depth(grad, op.get_attr("block_size"),
                          data_format=_fmt(op.get_attr("data_format")))


@RegisterGradient("SpaceToDepth")
def _space_to_depth_grad(op, grad):
    return depth_to_space(grad, op.get_attr("block_size"),
                          data_format=_fmt(op.get_attr("data_format")))


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Moves depth blocks into block_size x block_size spatial tiles (`DepthToSpace`)."""
    return apply_op("DepthToSpace", input=input, block_size=block_size,
                    data_format=data_format, name=name).outputs[0]


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Moves block_size x block_size spatial tiles into depth (`SpaceToDepth`)."""
    return apply_op("SpaceToDepth", input=input, block_size=block_size,
                    data_format=data_format, name=name).outputs[0]


# -- batch_gather, parallel_stack ------------------------------------------------------------
def batch_gather(params, indices, name=None):
    """Gathers per batch: out[b..., i] = params[b..., indices[b..., i]] (a GatherV2 with
    batch_dims = rank(indices) - 1).

    Raises:
      ValueError: if indices' rank is not known.
    """
    indices = convert_to_tensor(indices, name="indices")
    rank = indices.shape.rank
    if rank is None:
        raise ValueError("batch_gather does not allow indices with unknown shape.")
    return gather(params, indices, name=name or "BatchGather", axis=rank - 1,
                  batch_dims=rank - 1)


def _parallel_concat(values, *, shape):
    shape = as_shape(shape)
    out = np.concatenate([np.asarray(v) for v in values], axis=0)
    if list(out.shape) != shape.as_list():
        raise invalid_argument(f"ParallelConcat: inputs give shape {list(out.shape)}, "
                               f"expected {shape}")
    return out


def _parallel_concat_shape(op):
    shape = as_shape(op._attrs["shape"])
    dims = tuple(shape.as_list()) if shape.rank is not None else None
    for t in op.inputs:
        d = dims_of(t)
        if d is not None and dims is not None:
            if len(d) != len(dims) or d[0] not in (None, 1):
                raise ValueError(f"Input {fmt_dims(d)} does not fit ParallelConcat's shape "
                                 f"{fmt_dims(dims)}")
            merge_dims(d[1:], dims[1:])
    return [shape_of(dims)]


register_op("ParallelConcat", inputs=["values: N * T"], outputs=["output: T"],
            attrs=["N: int >= 1", "T: type", "shape: shape"],
            shape_fn=_parallel_concat_shape, kernel=_parallel_concat)


def parallel_stack(values, name="parallel_stack"):
    """Stacks same-shaped tensors into one of rank R + 1 (`ParallelConcat`).

    Unlike `stack`, every value's shape must be fully known when the graph is built.

    Raises:
      ValueError: if the first value's shape is not fully defined.
    """
    with get_default_graph().name_scope(name):
        first = convert_to_tensor(values[0])
        value_shape = first.shape
        if not value_shape.is_fully_defined():
            raise ValueError(f"parallel_stack needs fully defined shapes; got {value_shape} "
                             f"for {first}")
        output_shape = [len(values)] + value_shape.as_list()
        expanded = [expand_dims(convert_to_tensor(v, dtype=first.dtype), 0) for v in values]
        return apply_op("ParallelConcat", values=expanded, shape=output_shape).outputs[0]
