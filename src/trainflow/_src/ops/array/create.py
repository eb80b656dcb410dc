"""Creating tensors: Fill, ZerosLike, OnesLike, Range, LinSpace, OneHot, and
zeros/ones/fill/*_like/range/linspace/one_hot/meshgrid/sequence_mask."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import Dimension, TensorShape
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, fmt_dims, invalid_argument, shape_from_shape_tensor, shape_of, static_int,
    static_value, with_rank)
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.join import stack
from trainflow._src.ops.array.shape import (
    _shape_as_tensor, expand_dims, reshape, shape_internal, size)

__all__ = ["zeros", "ones", "fill", "zeros_like", "ones_like", "range", "linspace", "lin_space",
           "one_hot", "meshgrid", "sequence_mask"]


def _convert(value, dtype=None, name=None, preferred_dtype=None):
    return convert_to_tensor(value, dtype=dtype, name=name, preferred_dtype=preferred_dtype)


def _constant(value, dtype=None, shape=None, name="Const"):
    return constant(value, dtype=dtype, shape=shape, name=name)


def _fmt_num(v):
    """A number as TF's C++ error text prints it (6 significant digits for floats)."""
    v = np.asarray(v).item()
    return f"{v:g}" if isinstance(v, float) else str(v)


# -- Fill ------------------------------------------------------------------------------
def _fill_shape(op):
    with_rank(dims_of(op.inputs[0]), 1)
    with_rank(dims_of(op.inputs[1]), 0)
    dims = static_value(op.inputs[0])
    if dims is not None and (dims < 0).any():
        raise ValueError("Fill dimensions must be >= 0")
    return [shape_of(shape_from_shape_tensor(op.inputs[0]))]


def _fill_kernel(dims, value):
    if dims.ndim != 1:
        raise invalid_argument(f"dims must be a vector, got shape {fmt_dims(dims.shape)}")
    if np.ndim(value) != 0:
        raise invalid_argument(f"value must be a scalar, got shape {fmt_dims(np.shape(value))}")
    shape = dims.tolist()
    for d in shape:
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")
    return np.full(shape, value, dtype=value.dtype)


register_op("Fill", inputs=["dims: index_type", "value: T"], outputs=["output: T"],
            attrs=["T: type", "index_type: {int32, int64} = DT_INT32"], shape_fn=_fill_shape,
            kernel=_fill_kernel)


@tensor_util.register_constant_value("Fill")
def _fill_value(op, index, partial):
    value = static_value(op.inputs[1])
    s = op.outputs[0].shape
    if value is None or not s.is_fully_defined():
        return None
    return np.full(s.as_list(), value, dtype=value.dtype)


def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with the scalar `value` (`tf.fill`)."""
    return apply_op("Fill", dims=dims, value=value, name=name).outputs[0]


# -- ZerosLike / OnesLike ----------------------------------------------------------------
def _zeros_like_kernel(x):
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


def _ones_like_kernel(x):
    return np.ones_like(x)


register_op("ZerosLike", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_zeros_like_kernel)
register_op("OnesLike", inputs=["x: T"], outputs=["y: T"],
            attrs=["T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
                   "uint32, int64, uint64, complex64, complex128, bool}"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_ones_like_kernel)
NotDifferentiable("ZerosLike")
NotDifferentiable("OnesLike")


# -- zeros / ones ------------------------------------------------------------------------
def _static_shape_list(shape):
    """`shape` as a list of ints when it is a static Python/NumPy shape, else None."""
    if isinstance(shape, Tensor):
        return None
    if isinstance(shape, TensorShape):
        return shape.as_list() if shape.is_fully_defined() else None
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return [int(shape)]
    if isinstance(shape, np.ndarray) and shape.dtype.kind in "iu":
        return [int(d) for d in shape.reshape(-1)]
    if isinstance(shape, (list, tuple)):
        out = []
        for d in shape:
            if isinstance(d, Dimension):
                d = d.value
            if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
                return None
            out.append(int(d))
        return out
    return None


def _filled(shape, value, dtype, name, default_name):
    """zeros/ones as TF builds them: a Const when small and static, else Fill."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, default_name, [shape]) as scope:
        if not isinstance(shape, Tensor):
            dims = _static_shape_list(shape)
            if dims is not None and int(np.prod(dims, dtype=np.int64)) < 1000 and \
                    np.ndim(shape) <= 1:
                return _constant(value, dtype=dtype, shape=dims, name=scope)
            if dims is not None:
                shape = _shape_as_tensor(dims)
            else:
                shape = _convert(shape, dtype=dtypes.int32)
        if shape.shape.rank == 0:
            shape = reshape(shape, [-1])
        return fill(shape, _constant(value, dtype=dtype), name=scope)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros (`tf.zeros`; a Const below 1000 elements, else a Fill)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    zero = False if dtype == dtypes.bool else "" if dtype == dtypes.string else 0
    return _filled(shape, zero, dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones (`tf.ones`; a Const below 1000 elements, else a Fill)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    return _filled(shape, True if dtype == dtypes.bool else 1, dtype, name, "ones")


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape of `tensor` (`tf.zeros_like`; static shapes give a constant)."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        if not isinstance(tensor, Tensor):
            tensor = _convert(tensor, name="tensor")
        s = tensor.shape
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype).base_dtype
        if optimize and s.is_fully_defined() and tensor.dtype.base_dtype != dtypes.variant:
            return zeros(s, dtype=dtype or tensor.dtype.base_dtype, name=scope)
        if dtype is not None and dtype != tensor.dtype.base_dtype:
            return zeros(shape_internal(tensor, optimize=optimize), dtype=dtype, name=scope)
        return apply_op("ZerosLike", x=tensor, name=scope).outputs[0]


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape of `tensor` (`tf.ones_like`: Shape (or its constant) and Fill)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        tensor = _convert(tensor, name="tensor")
        ones_shape = shape_internal(tensor, optimize=optimize)
        out = ones(ones_shape, dtype=dtype or tensor.dtype.base_dtype, name=scope)
        out.set_shape(tensor.shape)
        return out


# -- Range / LinSpace -------------------------------------------------------------------------
def _range_size(start, limit, delta, at_run_time=True):
    """The number of Range elements; ValueError with TF's text for bad arguments."""
    if start > limit and delta > 0:
        raise ValueError(f"Requires start <= limit when delta > 0: {_fmt_num(start)}/"
                         f"{_fmt_num(limit)}")
    if start < limit and delta < 0:
        raise ValueError(f"Requires start >= limit when delta < 0: {_fmt_num(start)}/"
                         f"{_fmt_num(limit)}")
    if delta == 0:
        # The run-time message shows the value; the shape function's does not.
        raise ValueError("Requires delta != 0" + (f": {_fmt_num(delta)}" if at_run_time else ""))
    if np.issubdtype(np.asarray(start).dtype, np.integer):
        s, lim, d = int(start), int(limit), int(delta)
        return (abs(lim - s) + abs(d) - 1) // abs(d)
    return int(np.ceil(np.abs((limit - start) / delta)))


def _range_shape(op):
    for t in op.inputs:
        with_rank(dims_of(t), 0)
    values = [static_value(t) for t in op.inputs]
    if any(v is None for v in values):
        return [TensorShape([None])]
    return [TensorShape([_range_size(*values, at_run_time=False)])]


def _range_values(start, limit, delta):
    n = _range_size(start, limit, delta)
    dtype = np.asarray(start).dtype
    if np.issubdtype(dtype, np.integer):
        return np.arange(int(start), int(start) + n * int(delta), int(delta), dtype=dtype)[:n]
    # TF computes start + i * delta in the output type.
    return (start + np.arange(n, dtype=dtype) * delta).astype(dtype, copy=False)


def _range_kernel(start, limit, delta):
    for name, v in (("start", start), ("limit", limit), ("delta", delta)):
        if np.ndim(v) != 0:
            raise invalid_argument(f"{name} must be a scalar, not shape "
                                   f"{fmt_dims(np.shape(v))}")
    try:
        return _range_values(start, limit, delta)
    except ValueError as e:
        raise invalid_argument(str(e)) from None


register_op("Range", inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"],
            outputs=["output: Tidx"],
            attrs=["Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, "
                   "uint32, uint64} = DT_INT32"],
            shape_fn=_range_shape, kernel=_range_kernel)
NotDifferentiable("Range")


@tensor_util.register_constant_value("Range")
def _range_value(op, index, partial):
    values = [static_value(t) for t in op.inputs]
    if any(v is None for v in values):
        return None
    return _range_values(*values)


_RANGE_HIERARCHY = [dtypes.int32, dtypes.int64, dtypes.float16, dtypes.bfloat16, dtypes.float32,
                    dtypes.float64]


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """A 1-D sequence from `start` up to `limit` by `delta` (`tf.range`).

    Without `dtype` the widest argument type wins (int32 < int64 < half < bfloat16 <
    float32 < float64), so `range(5)` is int32 and `range(0., 1., .1)` float32.
    """
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        args = []
        for value, arg_name in ((start, "start"), (limit, "limit"), (delta, "delta")):
            if not isinstance(value, Tensor):
                value = _convert(value, dtype=dtype, name=arg_name)
            args.append(value)
        if dtype is None:
            for a in args:
                if a.dtype.base_dtype not in _RANGE_HIERARCHY:
                    raise TypeError(f"Range arguments must be one of "
                                    f"{[d.name for d in _RANGE_HIERARCHY]}, got {a.dtype.name}")
            inferred = max((a.dtype.base_dtype for a in args), key=_RANGE_HIERARCHY.index)
        else:
            inferred = dtypes.as_dtype(dtype).base_dtype
        args = [cast(a, inferred) for a in args]
        return apply_op("Range", start=args[0], limit=args[1], delta=args[2],
                        name=scope).outputs[0]


def _linspace_shape(op):
    with_rank(dims_of(op.inputs[0]), 0)
    with_rank(dims_of(op.inputs[1]), 0)
    with_rank(dims_of(op.inputs[2]), 0)
    n = static_int(op.inputs[2])
    if n is not None and n <= 0:
        raise ValueError(f"Requires num > 0: {n}")
    return [TensorShape([n])]


def _linspace_kernel(start, stop, num):
    n = int(num)
    if n <= 0:
        raise invalid_argument(f"Requires num > 0: {n}")
    dtype = np.asarray(start).dtype
    if n == 1:
        return np.array([start], dtype=dtype)
    step = (stop - start) / dtype.type(n - 1)
    out = np.empty(n, dtype=dtype)
    out[:-1] = start + step * np.arange(n - 1, dtype=dtype)
    out[-1] = stop
    return out


register_op("LinSpace", inputs=["start: T", "stop: T", "num: Tidx"], outputs=["output: T"],
            attrs=["T: {bfloat16, half, float, double}", "Tidx: {int32, int64} = DT_INT32"],
            shape_fn=_linspace_shape, kernel=_linspace_kernel)
NotDifferentiable("LinSpace")


def linspace(start, stop, num, name=None):
    """`num` evenly spaced values from `start` to `stop` inclusive (`tf.linspace`)."""
    return apply_op("LinSpace", start=start, stop=stop, num=num, name=name).outputs[0]


lin_space = linspace


# -- OneHot -------------------------------------------------------------------------------
def _one_hot_shape(op):
    axis = op._attrs["axis"]
    if axis < -1:
        raise ValueError("axis must be >= -1")
    depth = static_int(op.inputs[1])
    if depth is not None and depth < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but "
                         f"is {depth}")
    src = dims_of(op.inputs[0])
    if src is None:
        return [UNKNOWN]
    pos = (axis + len(src) + 1) % (len(src) + 1)
    return [shape_of(src[:pos] + (depth,) + src[pos:])]


def _one_hot_kernel(indices, depth, on_value, off_value, *, axis):
    d = int(depth)
    if d < 0:
        raise invalid_argument(f"depth must be non-negative, got: {d}")
    for name, v in (("on_value", on_value), ("off_value", off_value)):
        if np.ndim(v) != 0:
            raise invalid_argument(f"{name} must be a scalar, but got: "
                                   f"{fmt_dims(np.shape(v))}")
    rank = np.ndim(indices)
    if not -1 <= axis <= rank:
        raise invalid_argument(f"Expected axis to be -1 or between [0, {rank + 1}).  But "
                               f"received: {axis}")
    hot = np.expand_dims(indices, -1) == np.arange(d)
    out = np.where(hot, on_value, off_value).astype(np.asarray(on_value).dtype, copy=False)
    if axis != -1 and axis != rank:
        out = np.moveaxis(out, -1, axis)
    return out


register_op("OneHot", inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
            outputs=["output: T"],
            attrs=["axis: int = -1", "T: type", "TI: {uint8, int8, int32, int64} = DT_INT64"],
            shape_fn=_one_hot_shape, kernel=_one_hot_kernel)
NotDifferentiable("OneHot")


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor (`tf.one_hot`): `on_value` where the index matches, else
    `off_value`; out-of-range indices give a row of `off_value`.

    Raises:
      TypeError: if on_value, off_value and dtype disagree.
    """
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        on_exists, off_exists = on_value is not None, off_value is not None
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype).base_dtype
        if on_exists:
            on_value = _convert(on_value, preferred_dtype=dtype)
        if off_exists:
            off_value = _convert(off_value, preferred_dtype=dtype)
        on_dtype = on_value.dtype.base_dtype if on_exists else None
        off_dtype = off_value.dtype.base_dtype if off_exists else None
        if on_exists or off_exists:
            if dtype is not None:
                if on_exists and on_dtype != dtype:
                    raise TypeError(f"dtype {on_dtype} of on_value does not match dtype "
                                    f"parameter {dtype}")
                if off_exists and off_dtype != dtype:
                    raise TypeError(f"dtype {off_dtype} of off_value does not match dtype "
                                    f"parameter {dtype}")
            else:
                dtype = on_dtype if on_exists else off_dtype
            if on_exists and off_exists and on_dtype != off_dtype:
                raise TypeError(f"dtype {on_dtype} of on_value does not match dtype "
                                f"{off_dtype} of off_value")
        else:
            dtype = dtype or dtypes.float32
        if not on_exists:
            on_value = _convert(1, dtype, name="on_value")
        if not off_exists:
            off_value = _convert(0, dtype, name="off_value")
        kwargs = {} if axis is None else {"axis": axis}
        return apply_op("OneHot", indices=indices, depth=depth, on_value=on_value,
                        off_value=off_value, name=scope, **kwargs).outputs[0]


# -- composites -------------------------------------------------------------------------------
def meshgrid(*args, **kwargs):
    """N-D coordinate grids from 1-D tensors (`tf.meshgrid`, indexing "xy" or "ij").

    Raises:
      TypeError: for unknown keyword arguments; ValueError for a bad `indexing`.
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this "
                        "function")
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    with name_scope(name, "meshgrid", args):
        ndim = len(args)
        if not ndim:
            return []
        ones_shape = (1,) * ndim
        output = [reshape(stack(x), ones_shape[:i] + (-1,) + ones_shape[i + 1:])
                  for i, x in enumerate(args)]
        shapes = [size(x) for x in args]
        output_dtype = _convert(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = ones(shapes, output_dtype)
        return [x * mult_fact for x in output]


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """A mask whose row i is True at positions < lengths[i] (`tf.sequence_mask`).

    Raises:
      ValueError: if `maxlen` is not a scalar.
    """
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = _convert(lengths)
        if maxlen is None:
            rank = lengths.shape.rank
            if rank is not None:
                axes = _constant(np.arange(rank, dtype=np.int32))
            else:
                axes = apply_op("Range", start=0, limit=apply_op("Rank", input=lengths).outputs[0],
                                delta=1).outputs[0]
            maxlen = apply_op("Max", input=lengths, reduction_indices=axes).outputs[0]
            maxlen = apply_op("Maximum", x=_constant(0, maxlen.dtype), y=maxlen).outputs[0]
        else:
            maxlen = _convert(maxlen)
        if maxlen.shape.rank not in (None, 0):
            raise ValueError("Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{maxlen.shape}' instead")
        row_vector = apply_op("Range", start=_constant(0, maxlen.dtype), limit=maxlen,
                              delta=_constant(1, maxlen.dtype)).outputs[0]
        # TF casts unconditionally here, so the graph always has SequenceMask/Cast.
        matrix = apply_op("Cast", x=expand_dims(lengths, -1),
                          DstT=maxlen.dtype.base_dtype).outputs[0]
        result = row_vector < matrix
        dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        if dtype is None or result.dtype.base_dtype == dtype.base_dtype:
            return result
        return cast(result, dtype)

