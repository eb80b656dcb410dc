"""Static shape inference for the math ops: broadcasting, reductions, matmul.

The rules and error texts follow TensorFlow's C++ shape functions, so a graph
that TF rejects at construction is rejected here with the same words
("Dimensions must be equal, but are 3 and 4").
"""
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.tensor_util import constant_value

_UNKNOWN = TensorShape(None)


from trainflow._src.ops.array.shape_util import merge_dim as merge_dims  # noqa: E402,F401


def broadcast_dims(x, y, incompatible_shape_error=True):
    """Broadcasts two dim tuples (None entries unknown) as TF's shape functions do.

    Returns:
      the broadcast dims tuple, or None when the result is unknown (rank unknown,
      or incompatible shapes with `incompatible_shape_error` False).

    Raises:
      ValueError: "Dimensions must be equal, but are A and B" for known, unequal,
        non-1 sizes (when `incompatible_shape_error`).
    """
    if x is None or y is None:
        return None
    rank = max(len(x), len(y))
    x = (1,) * (rank - len(x)) + tuple(x)
    y_pad = rank - len(y)
    y = (1,) * y_pad + tuple(y)
    out = []
    for i, (dx, dy) in enumerate(zip(x, y)):
        if dx is None or dy is None:
            # An unknown size broadcasts against a known size > 1; against 1 or
            # another unknown size the result stays unknown unless the known one is 1.
            if dx is not None and dx > 1 or dy is not None and dy > 1:
                if not incompatible_shape_error:
                    return None
                out.append(dx if dx is not None and dx > 1 else dy)
            elif dx == 1:
                out.append(dy)
            elif dy == 1:
                out.append(dx)
            else:
                out.append(None)
        elif dx == 1 or dy == 1:
            out.append(dy if dx == 1 and i >= y_pad else dx)
        elif dx == dy:
            out.append(dx)
        elif not incompatible_shape_error:
            return None
        else:
            raise ValueError(f"Dimensions must be equal, but are {dx} and {dy}")
    return tuple(out)


def broadcast_shape_fn(op):
    """Shape function of the broadcasting binary ops (AddV2, Mul, Less, ...)."""
    strict = op._attrs.get("incompatible_shape_error", True)
    dims = broadcast_dims(op._inputs[0]._shape._dims, op._inputs[1]._shape._dims, strict)
    return [TensorShape._from_values(dims)]


def merge_all_shape_fn(op):
    """Shape function of AddN: every input has the same shape.

    Raises:
      ValueError: when two inputs' ranks or sizes differ, naming the input.
    """
    inputs = op._inputs
    cur = inputs[-1]._shape._dims
    for i in range(len(inputs) - 2, -1, -1):
        dims = inputs[i]._shape._dims
        if dims is None:
            continue
        if cur is None:
            cur = dims
            continue
        if len(dims) != len(cur):
            raise ValueError(f"Shapes must be equal rank, but are {len(dims)} and {len(cur)}\n"
                             f"\tFrom merging shape {i} with other shapes.")
        try:
            cur = tuple(merge_dims(a, b) for a, b in zip(dims, cur))
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return [TensorShape._from_values(cur)]


def _rank_check(shape, rank, what="rank"):
    dims = shape._dims
    if dims is not None and len(dims) != rank:
        raise ValueError(f"Shape must be {what} {rank} but is rank {len(dims)}")


def _rank_at_most(shape, rank):
    dims = shape._dims
    if dims is not None and len(dims) > rank:
        raise ValueError(f"Shape must be at most rank {rank} but is rank {len(dims)}")


def matmul_shape_fn(op):
    """Shape function of MatMul: [m, k] x [k, n] -> [m, n] (after transposes)."""
    a, b = op._inputs[0]._shape, op._inputs[1]._shape
    _rank_check(a, 2)
    _rank_check(b, 2)
    ta, tb = op._attrs.get("transpose_a", False), op._attrs.get("transpose_b", False)
    ad = a._dims or (None, None)
    bd = b._dims or (None, None)
    m, ka = (ad[1], ad[0]) if ta else (ad[0], ad[1])
    kb, n = (bd[1], bd[0]) if tb else (bd[0], bd[1])
    merge_dims(ka, kb)
    return [TensorShape._from_values((m, n))]


def batch_matmul_shape_fn(op):
    """Shape function of BatchMatMulV2: broadcast batch dims, then matrix product."""
    a, b = op._inputs[0]._shape._dims, op._inputs[1]._shape._dims
    for dims in (a, b):
        if dims is not None and len(dims) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
    if a is None or b is None:
        return [_UNKNOWN]
    adj_x = op._attrs.get("adj_x", False)
    adj_y = op._attrs.get("adj_y", False)
    m, ka = (a[-1], a[-2]) if adj_x else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if adj_y else (b[-2], b[-1])
    merge_dims(ka, kb)
    batch = broadcast_dims(a[:-2], b[:-2])
    return [TensorShape._from_values(batch + (m, n))]


def static_axes(axis_tensor, rank, check):
    """The sorted set of non-negative axes named by a static axis tensor.

    Args:
      axis_tensor: the reduction-indices Tensor.
      rank: the input's rank.
      check: `check(axis, rank)` raises for an out-of-range axis.

    Returns:
      a set of ints, or None when the axis values are not static.
    """
    value = constant_value(axis_tensor)
    if value is None:
        return None
    axes = set()
    for ax in value.reshape(-1).tolist():
        check(ax, rank)
        axes.add(ax + rank if ax < 0 else ax)
    return axes


def _reduction_axis_check(ax, rank):
    if ax < -rank or ax >= rank:
        raise ValueError(f"Invalid reduction dimension {ax} for input with {rank} dimensions.")


def reduction_shape_fn(op):
    """Shape function of Sum/Mean/Max/...: drops (or keeps as 1) the static axes."""
    inp, axis_t = op._inputs[0], op._inputs[1]
    _rank_at_most(axis_t._shape, 1)
    keep = op._attrs.get("keep_dims", False)
    dims = inp._shape._dims
    axes = None if dims is None else static_axes(axis_t, len(dims), _reduction_axis_check)
    if axes is None:
        if keep and dims is not None:
            return [unknown_shape(rank=len(dims))]
        return [_UNKNOWN]
    out = []
    for i, d in enumerate(dims):
        if i in axes:
            if keep:
                out.append(1)
        else:
            out.append(d)
    return [TensorShape._from_values(tuple(out))]


def _arg_axis_check(ax, rank):
    if ax < -rank or ax >= rank:
        raise ValueError(f"Dimension ({ax}) must be in the range [{-rank}, {rank}), where "
                         f"{rank} is the number of dimensions in the input.")


def arg_reduce_shape_fn(op):
    """Shape function of ArgMax/ArgMin: the input shape without the reduced axis."""
    inp, axis_t = op._inputs[0], op._inputs[1]
    _rank_at_most(axis_t._shape, 1)
    dims = inp._shape._dims
    if dims is None:
        return [_UNKNOWN]
    if len(dims) <= 1:
        return [TensorShape(())]
    axes = static_axes(axis_t, len(dims), _arg_axis_check)
    if axes is None:
        return [unknown_shape(rank=len(dims) - 1)]
    return [TensorShape._from_values(tuple(d for i, d in enumerate(dims) if i not in axes))]


def scan_shape_fn(op):
    """Shape function of Cumsum/Cumprod: the input's shape."""
    return [op._inputs[0]._shape]
