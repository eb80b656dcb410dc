"""Shape ops: Shape, ShapeN, Size, Rank, Reshape, Squeeze, ExpandDims, BroadcastTo,
BroadcastArgs, BroadcastGradientArgs, and their graph-building functions."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, as_index_list, dims_of, fmt_dims, invalid_argument, merge_dim,
    shape_from_shape_tensor, shape_of, static_value, with_rank, with_rank_at_most)
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast

__all__ = ["shape", "shape_n", "size", "rank", "reshape", "squeeze", "expand_dims",
           "broadcast_to", "broadcast_static_shape", "broadcast_dynamic_shape"]


def _is_sparse(x):
    return isinstance(x, (SparseTensor, SparseTensorValue))


def _convert(value, name=None):
    return convert_to_tensor(value, name=name)


def _scope(name, default, values):
    """Opens `name or default` in the graph of `values` (TF's ops.name_scope)."""
    return name_scope(name, default, [v for v in values if hasattr(v, "graph")])


# -- Shape / ShapeN / Size / Rank ------------------------------------------------------
def _shape_kernel(x, *, out_type):
    return np.array(x.shape, dtype=out_type.as_numpy_dtype)


def _shape_shape(op):
    dims = dims_of(op.inputs[0])
    return [TensorShape([None if dims is None else len(dims)])]


register_op("Shape", inputs=["input: T"], outputs=["output: out_type"],
            attrs=["T: type", "out_type: {int32, int64} = DT_INT32"], shape_fn=_shape_shape,
            kernel=_shape_kernel)


def _shape_n_kernel(inputs, *, out_type):
    np_type = out_type.as_numpy_dtype
    return tuple(np.array(x.shape, dtype=np_type) for x in inputs)


def _shape_n_shape(op):
    return [TensorShape([None if dims_of(t) is None else len(dims_of(t))]) for t in op.inputs]


register_op("ShapeN", inputs=["input: N * T"], outputs=["output: N * out_type"],
            attrs=["N: int >= 1", "T: type", "out_type: {int32, int64} = DT_INT32"],
            shape_fn=_shape_n_shape, kernel=_shape_n_kernel)


def _size_kernel(x, *, out_type):
    return np.array(x.size, dtype=out_type.as_numpy_dtype)


register_op("Size", inputs=["input: T"], outputs=["output: out_type"],
            attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
            shape_fn=lambda op: [TensorShape(())], kernel=_size_kernel)


def _rank_kernel(x):
    return np.array(x.ndim, dtype=np.int32)


register_op("Rank", inputs=["input: T"], outputs=["output: int32"], attrs=["T: type"],
            shape_fn=lambda op: [TensorShape(())], kernel=_rank_kernel)


for _op_type in ("Shape", "ShapeN", "Size", "Rank"):
    NotDifferentiable(_op_type)


@tensor_util.register_constant_value("Shape")
def _shape_value(op, index, partial):
    s = op.inputs[0].shape
    if s.is_fully_defined():
        return np.array(s.as_list(), dtype=op._attrs["out_type"].as_numpy_dtype)
    return None


@tensor_util.register_constant_value("ShapeN")
def _shape_n_value(op, index, partial):
    s = op.inputs[index].shape
    if s.is_fully_defined():
        return np.array(s.as_list(), dtype=op._attrs["out_type"].as_numpy_dtype)
    return None


@tensor_util.register_constant_value("Size")
def _size_value(op, index, partial):
    s = op.inputs[0].shape
    if s.is_fully_defined():
        return np.array(s.num_elements(), dtype=op._attrs["out_type"].as_numpy_dtype)
    return None


@tensor_util.register_constant_value("Rank")
def _rank_value(op, index, partial):
    r = op.inputs[0].shape.rank
    return None if r is None else np.array(r, dtype=np.int32)


def _shape_as_tensor(dims, dtype=None, name=None):
    """A constant holding a fully defined shape (int64 only when a size needs it)."""
    big = any(d >= 2 ** 31 for d in dims)
    if dtype is None:
        dtype = dtypes.int64 if big else dtypes.int32
    return constant(list(dims), dtype=dtype, name=name or "shape_as_tensor")


def shape_internal(input, name=None, optimize=True, out_type=None):  # noqa: A002
    """`tf.shape` with TF's graph-time folding of fully defined shapes."""
    with _scope(name, "Shape", [input]) as scope:
        if _is_sparse(input):
            return cast(input.dense_shape, out_type or dtypes.int32)
        input = _convert(input)
        s = input.shape
        if optimize and s.is_fully_defined():
            if not out_type:
                return _shape_as_tensor(s.as_list())
            return constant(s.as_list(), dtype=out_type, name=scope)
        return apply_op("Shape", input=input, out_type=out_type or dtypes.int32,
                        name=scope).outputs[0]


def shape(input, name=None, out_type=None):  # noqa: A002 - TF's name
    """The shape of `input` as a 1-D int tensor (`tf.shape`; a constant when static)."""
    return shape_internal(input, name, optimize=True, out_type=out_type or dtypes.int32)


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shapes of a list of tensors (`tf.shape_n`, one ShapeN op)."""
    return apply_op("ShapeN", input=list(input), out_type=out_type, name=name).outputs


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """The number of elements of `input` (`tf.size`; a constant when static)."""
    with _scope(name, "Size", [input]) as scope:
        if _is_sparse(input):
            return apply_op("Prod", input=cast(input.dense_shape, out_type),
                            reduction_indices=0, name=scope).outputs[0]
        input = _convert(input)
        s = input.shape
        if s.is_fully_defined():
            return constant(s.num_elements(), dtype=out_type, name=scope)
        if s.rank is not None and 0 in s._dims:
            return constant(0, dtype=out_type, name=scope)
        return apply_op("Size", input=input, out_type=out_type, name=scope).outputs[0]


def rank(input, name=None):  # noqa: A002
    """The rank of `input` as a scalar int32 tensor (`tf.rank`; a constant when static)."""
    with _scope(name, "Rank", [input]) as scope:
        if _is_sparse(input):
            return apply_op("Size", input=input.dense_shape, name=scope).outputs[0]
        input = _convert(input)
        if input.shape.rank is not None:
            return constant(input.shape.rank, dtype=dtypes.int32, name=scope)
        return apply_op("Rank", input=input, name=scope).outputs[0]


# -- Reshape -------------------------------------------------------------------------
def _reshape_shape(op):
    src = dims_of(op.inputs[0])
    out = shape_from_shape_tensor(op.inputs[1])
    if out is None or src is None:
        return [shape_of(out)]
    out = list(out)
    out_known, out_unknown = _known_product(out)
    in_known, in_unknown = _known_product(src)
    too_many = out_unknown is False or in_unknown is False
    if not too_many:
        if in_unknown is None and out_unknown is None:
            if in_known != out_known:
                raise ValueError(f"Cannot reshape a tensor with {in_known} elements to shape "
                                 f"{fmt_dims(out)} ({out_known} elements)")
        elif in_unknown is None and out_known > 0:
            if in_known % out_known:
                raise ValueError(f"Dimension size must be evenly divisible by {out_known} but "
                                 f"is {in_known}")
            out[out_unknown] = in_known // out_known
        elif in_unknown is not None and out_unknown is None and in_known != 0:
            if out_known % in_known:
                raise ValueError(f"Dimension size must be evenly divisible by {in_known} but "
                                 f"is {out_known}")
        elif in_unknown is not None and out_unknown is not None and in_known == out_known:
            out[out_unknown] = src[in_unknown]
    return [shape_of(out)]


def _known_product(dims):
    """(product of known sizes, index of the one unknown size or None; False if several)."""
    product, unknown = 1, None
    for i, d in enumerate(dims):
        if d is None:
            if unknown is not None:
                return product, False
            unknown = i
        else:
            product *= d
    return product, unknown


def _reshape_kernel(tensor, shape):
    if shape.ndim != 1:
        raise invalid_argument(f"sizes input must be 1-D, not {fmt_dims(shape.shape)}")
    try:
        return tensor.reshape(shape)
    except (ValueError, TypeError):
        pass
    sizes = shape.tolist()
    unknown = [i for i, d in enumerate(sizes) if d == -1]
    if len(unknown) > 1:
        raise invalid_argument(f"Only one input size may be -1, not both {unknown[0]} and "
                               f"{unknown[1]}")
    for i, d in enumerate(sizes):
        if d < -1:
            raise invalid_argument(f"Size {i} must be non-negative, not {d}")
    product = int(np.prod([d for d in sizes if d != -1], dtype=np.int64))
    if unknown:
        raise invalid_argument(f"Input to reshape is a tensor with {tensor.size} values, but the "
                               f"requested shape requires a multiple of {product}")
    raise invalid_argument(f"Input to reshape is a tensor with {tensor.size} values, but the "
                           f"requested shape has {product}")


register_op("Reshape", inputs=["tensor: T", "shape: Tshape"], outputs=["output: T"],
            attrs=["T: type", "Tshape: {int32, int64} = DT_INT32"], shape_fn=_reshape_shape,
            kernel=_reshape_kernel, output_aliases_input=True)


@tensor_util.register_constant_value("Reshape")
def _reshape_value(op, index, partial):
    value, new_shape = static_value(op.inputs[0]), static_value(op.inputs[1])
    if value is None or new_shape is None:
        return None
    try:
        return value.reshape(new_shape.tolist())
    except (ValueError, TypeError):
        return None


def reshape(tensor, shape, name=None):  # noqa: F811 - TF's argument name
    """Gives `tensor` a new shape with the same elements (`tf.reshape`; -1 infers one size)."""
    return apply_op("Reshape", tensor=tensor, shape=shape, name=name).outputs[0]


# -- Squeeze -------------------------------------------------------------------------
def _squeeze_dims(dims, rank):
    wrapped = []
    for i, d in enumerate(dims):
        if d < -rank or d >= rank:
            raise ValueError(f"squeeze_dims[{i}] not in [{-rank},{rank}).")
        wrapped.append(d + rank if d < 0 else d)
    return wrapped


def _squeeze_shape(op):
    src = dims_of(op.inputs[0])
    if src is None:
        return [UNKNOWN]
    wanted = _squeeze_dims(op._attrs["squeeze_dims"], len(src))
    out = []
    for i, d in enumerate(src):
        explicit = i in wanted
        if d is None:
            if explicit:
                continue
            if not wanted:
                return [UNKNOWN]
        elif d == 1:
            if explicit or not wanted:
                continue
        elif explicit:
            raise ValueError(f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}")
        out.append(d)
    return [shape_of(out)]


def _squeeze_kernel(x, *, squeeze_dims):
    if not squeeze_dims:
        return x.reshape([d for d in x.shape if d != 1])
    rank = x.ndim
    axes = []
    for d in squeeze_dims:
        if d < -rank or d >= rank:
            raise invalid_argument(f"Tried to squeeze dim index {d} for tensor with {rank} "
                                   "dimensions.")
        d = d + rank if d < 0 else d
        if x.shape[d] != 1:
            raise invalid_argument(f"Can not squeeze dim[{d}], expected a dimension of 1, got "
                                   f"{x.shape[d]}")
        axes.append(d)
    return x.reshape([n for i, n in enumerate(x.shape) if i not in axes])


register_op("Squeeze", inputs=["input: T"], outputs=["output: T"],
            attrs=["T: type", "squeeze_dims: list(int) >= 0 = []"], shape_fn=_squeeze_shape,
            kernel=_squeeze_kernel, output_aliases_input=True)


@tensor_util.register_constant_value("Squeeze")
def _squeeze_value(op, index, partial):
    value = static_value(op.inputs[0])
    if value is None:
        return None
    try:
        return _squeeze_kernel(value, squeeze_dims=op._attrs["squeeze_dims"])
    except Exception:  # noqa: BLE001 - no static value for a bad squeeze
        return None


def _deprecated_lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new_value if new_value is not None else old_value


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Removes size-1 dimensions (`tf.squeeze`; `squeeze_dims` is TF1's old name of axis).

    Raises:
      ValueError: if both `axis` and `squeeze_dims` are given.
    """
    axis = _deprecated_lookup("axis", axis, "squeeze_dims", squeeze_dims)
    if np.isscalar(axis):
        axis = [axis]
    return apply_op("Squeeze", input=input, squeeze_dims=list(axis or []), name=name).outputs[0]


# -- ExpandDims ----------------------------------------------------------------------
def _expand_dims_shape(op):
    src = dims_of(op.inputs[0])
    value = static_value(op.inputs[1])
    if value is not None and value.size != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    if value is None or src is None:
        return [UNKNOWN]
    dim = int(value.reshape(-1)[0])
    r = len(src)
    if dim < -r - 1 or dim > r:
        raise ValueError(f"dim {dim} not in the interval [{-r - 1}, {r}].")
    if dim < 0:
        dim += r + 1
    return [shape_of(src[:dim] + (1,) + src[dim:])]


def _expand_dims_kernel(x, dim):
    if dim.ndim == 0:
        d = int(dim)
    elif dim.size == 1:
        d = int(dim.reshape(-1)[0])
    else:
        raise invalid_argument(f"'dim' must be a tensor with a single value, but got "
                               f"{dim.size} values")
    r = x.ndim
    if d < -1 - r or d > r:
        raise invalid_argument(f"Tried to expand dim index {d} for tensor with {r} dimensions.")
    if d < 0:
        d += r + 1
    return x.reshape(x.shape[:d] + (1,) + x.shape[d:])


register_op("ExpandDims", inputs=["input: T", "dim: Tdim"], outputs=["output: T"],
            attrs=["T: type", "Tdim: {int32, int64} = DT_INT32"], shape_fn=_expand_dims_shape,
            kernel=_expand_dims_kernel, output_aliases_input=True)


@tensor_util.register_constant_value("ExpandDims")
def _expand_dims_value(op, index, partial):
    value, dim = static_value(op.inputs[0]), static_value(op.inputs[1])
    if value is None or dim is None:
        return None
    try:
        return _expand_dims_kernel(value, dim)
    except Exception:  # noqa: BLE001
        return None


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """Inserts a size-1 dimension at `axis` (`tf.expand_dims`; `dim` is TF1's old name).

    Raises:
      ValueError: if no axis is given, or both `axis` and `dim` are.
    """
    axis = _deprecated_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return apply_op("ExpandDims", input=input, dim=axis, name=name).outputs[0]


# -- broadcasting ------------------------------------------------------------------------
def _broadcast_to_shape(op):
    with_rank(dims_of(op.inputs[1]), 1)
    out = shape_from_shape_tensor(op.inputs[1])
    src = dims_of(op.inputs[0])
    if out is None or src is None:
        return [shape_of(out)]
    with_rank_at_most(src, len(out))
    out = list(out)
    for i in range(1, len(src) + 1):
        d = src[-i]
        if d is not None and d > 1:
            out[-i] = merge_dim(d, out[-i])
    return [shape_of(out)]


def _broadcast_to_kernel(x, shape):
    target = as_index_list(shape)
    try:
        return np.broadcast_to(x, target)
    except ValueError:
        raise invalid_argument(f"Incompatible shapes: {fmt_dims(x.shape)} vs. "
                               f"{fmt_dims(target)}") from None


register_op("BroadcastTo", inputs=["input: T", "shape: Tidx"], outputs=["output: T"],
            attrs=["T: type", "Tidx: {int32, int64} = DT_INT32"], shape_fn=_broadcast_to_shape,
            kernel=_broadcast_to_kernel, output_aliases_input=True)


@tensor_util.register_constant_value("BroadcastTo")
def _broadcast_to_value(op, index, partial):
    """Small static values broadcast (tf.repeat's counts), as TF's shape inference folds."""
    value, shape = static_value(op.inputs[0]), static_value(op.inputs[1])
    if value is None or shape is None or np.prod(shape) > 1024:
        return None
    try:
        return np.broadcast_to(value, shape.tolist()).copy()
    except ValueError:
        return None


def _broadcast_args_shape(op):
    a = with_rank(dims_of(op.inputs[0]), 1)[0]
    b = with_rank(dims_of(op.inputs[1]), 1)[0]
    return [TensorShape([None if a is None or b is None else max(a, b)])]


def broadcast_shapes(a, b):
    """The broadcast of two shapes (lists of ints).

    Raises:
      InvalidArgumentError: "Incompatible shapes: [2,3] vs. [4]".
    """
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            raise invalid_argument(f"Incompatible shapes: {fmt_dims(a)} vs. {fmt_dims(b)}")
        out.append(y if x == 1 else x)
    return out[::-1]


def _broadcast_args_kernel(s0, s1):
    out = broadcast_shapes(as_index_list(s0), as_index_list(s1))
    return np.array(out, dtype=s0.dtype)


register_op("BroadcastArgs", inputs=["s0: T", "s1: T"], outputs=["r0: T"],
            attrs=["T: {int32, int64} = DT_INT32"], shape_fn=_broadcast_args_shape,
            kernel=_broadcast_args_kernel)


def _broadcast_gradient_args_kernel(s0, s1):
    a, b = as_index_list(s0), as_index_list(s1)
    broadcast_shapes(a, b)
    r0, r1 = [], []
    if a != b:
        n = max(len(a), len(b))
        pa = [1] * (n - len(a)) + a
        pb = [1] * (n - len(b)) + b
        for i in range(n):
            if pa[i] == 1:
                r0.append(i)
            if pb[i] == 1:
                r1.append(i)
    return np.array(r0, dtype=s0.dtype), np.array(r1, dtype=s0.dtype)


register_op("BroadcastGradientArgs", inputs=["s0: T", "s1: T"], outputs=["r0: T", "r1: T"],
            attrs=["T: {int32, int64} = DT_INT32"],
            shape_fn=lambda op: [TensorShape([None]), TensorShape([None])],
            kernel=_broadcast_gradient_args_kernel)


NotDifferentiable("BroadcastGradientArgs")


def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts `input` to `shape` (`tf.broadcast_to`)."""
    return apply_op("BroadcastTo", input=input, shape=shape, name=name).outputs[0]


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two 1-D shape tensors (`tf.broadcast_dynamic_shape`)."""
    return apply_op("BroadcastArgs", s0=shape_x, s1=shape_y).outputs[0]


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes (`tf.broadcast_static_shape`).

    Raises:
      ValueError: if the shapes cannot be broadcast.
    """
    x, y = as_shape(shape_x), as_shape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    a, b = x._dims, y._dims
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        dx = a[-i] if i <= len(a) else 1
        dy = b[-i] if i <= len(b) else 1
        if dx is None or dy is None:
            if dx is not None and dx > 1:
                out.append(dx)
            elif dy is not None and dy > 1:
                out.append(dy)
            else:
                out.append(None)
        elif dx == 1:
            out.append(dy)
        elif dy == 1 or dx == dy:
            out.append(dx)
        else:
            raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if "
                             "for each dimension pair they are either equal or one of them is 1. "
                             f"Received: {x} and {y}.")
    return TensorShape(out[::-1])

