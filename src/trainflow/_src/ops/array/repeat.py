"""`tf.repeat`: each element repeated along an axis, built as TensorFlow builds it (a tile
of the expanded data, then a reshape for one repeat count, or a sequence mask and
boolean_mask for per-element counts)."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.ops.array.create import ones, range as range_, sequence_mask
from trainflow._src.ops.array.gather import boolean_mask
from trainflow._src.ops.array.join import concat, stack
from trainflow._src.ops.array.layout import tile
from trainflow._src.ops.array.shape import broadcast_to, expand_dims, rank, reshape, shape
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import overloads  # noqa: F401 - the Tensor operators used here

__all__ = ["repeat"]


def _tile_one_dimension(data, axis, multiple):
    if data.shape.rank is not None:
        multiples = [1] * data.shape.rank
        multiples[axis] = multiple
    else:
        ones_value = ones(rank(data), dtypes.int32)
        multiples = concat([ones_value[:axis], [multiple], ones_value[axis + 1:]], axis=0)
    return tile(data, multiples)


def _int_tensor(value, name):
    """TF's convert_to_int_tensor: an integer tensor cast to int32."""
    tensor = convert_to_tensor(value, name=name, preferred_dtype=dtypes.int32)
    if not tensor.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: {name}) must be of type integer. Received "
                        f"`tensor` = {tensor} of dtype: {tensor.dtype.name}")
    return apply_op("Cast", x=tensor, DstT=dtypes.int32, Truncate=False).outputs[0]


def _with_nonzero_rank(data):
    if data.shape.rank is not None:
        return stack([data]) if data.shape.rank == 0 else data
    data_shape, data_ndims = shape(data), rank(data)
    return reshape(data, concat([[1], data_shape], axis=0)[-data_ndims:])


def _positive_axis(axis, ndims):
    if ndims is None:
        if axis < 0:
            raise ValueError(f"{axis} must be >= 0 when rank(data) is unknown")
        return axis
    if not -ndims <= axis < ndims:
        raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
    return axis % ndims


def _repeat_with_axis(data, repeats, axis, name):
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type "
                        f"{type(axis).__name__}")
    with name_scope(name, "Repeat", [data, repeats]):
        data = convert_to_tensor(data, name="data")
        repeats = _int_tensor(repeats, "repeats")
        repeats.shape.with_rank_at_most(1)
        data = _with_nonzero_rank(data)
        data_shape = shape(data, out_type=repeats.dtype)
        axis = _positive_axis(axis, data.shape.rank)
        if repeats.shape.num_elements() == 1:
            repeats = reshape(repeats, [])
            expanded = expand_dims(data, axis + 1)
            tiled = _tile_one_dimension(expanded, axis + 1, repeats)
            result_shape = concat([data_shape[:axis], [repeats * data_shape[axis]],
                                   data_shape[axis + 1:]], axis=0)
            return reshape(tiled, result_shape)
        if repeats.shape.rank == 1:
            data.shape.dims[axis].assert_is_compatible_with(repeats.shape[0])
        repeats = broadcast_to(repeats, [data_shape[axis]])
        repeats_original = repeats
        if repeats.shape.rank != axis + 1:
            repeats_shape, repeats_ndims = shape(repeats), rank(repeats)
            broadcast_shape = concat([data_shape[:axis + 1 - repeats_ndims], repeats_shape],
                                     axis=0)
            repeats = broadcast_to(repeats, broadcast_shape)
            repeats.set_shape([None] * (axis + 1))
        all_dims = (list(range(repeats.shape.rank)) if repeats.shape.rank is not None
                    else range_(0, rank(repeats)))
        max_repeat = reductions.reduce_max(repeats, all_dims)
        max_repeat = arith.maximum(convert_to_tensor(0, name="zero", dtype=max_repeat.dtype),
                                   max_repeat)
        mask = sequence_mask(repeats, max_repeat)
        expanded = expand_dims(data, axis + 1)
        tiled = _tile_one_dimension(expanded, axis + 1, max_repeat)
        masked = boolean_mask(tiled, mask)
        if axis == 0:
            result = masked
        else:
            repeated_dim_size = reductions.reduce_sum(repeats_original,
                                                      range_(0, rank(repeats_original), 1))
            result_shape = concat([data_shape[:axis], [repeated_dim_size],
                                   data_shape[axis + 1:]], axis=0)
            result = reshape(masked, result_shape)
        if data.shape.rank is not None:
            new_axis_size = 0 if repeats.shape[0] == 0 else None
            result.set_shape(data.shape[:axis].concatenate(TensorShape([new_axis_size]))
                             .concatenate(data.shape[axis + 1:]))
        return result


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's name
    """`input` with each element repeated `repeats` times (a scalar, or one count per
    element along `axis`); with `axis` None the flattened input is repeated.

    Raises:
      TypeError: if `axis` is not an int or `repeats` not integer.
      ValueError: if `axis` is out of range, or repeats' length does not match.
    """
    if axis is None:
        input = reshape(input, [-1])  # noqa: A001
        axis = 0
    return _repeat_with_axis(input, repeats, axis, name)
