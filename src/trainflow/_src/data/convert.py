"""tf.data's argument conversions (TF's data/util/convert): an optional argument as a
tensor, and a partial shape as an int64 vector."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import as_shape


def optional_param_to_tensor(argument_name, argument_value, argument_default=0,
                             argument_dtype=dtypes.int64):
    """`argument_value` (or `argument_default` when None) as a tensor named
    `argument_name`."""
    value = argument_default if argument_value is None else argument_value
    return convert_to_tensor(value, dtype=argument_dtype, name=argument_name)


def partial_shape_to_tensor(shape_like):
    """An int64 vector of the dimensions of `shape_like` (a TensorShape, a list or tuple,
    or an int64 vector tensor), -1 for an unknown one.

    Raises:
      ValueError: a tensor that is not a vector.
      TypeError: a tensor that is not int64.
    """
    try:
        shape = as_shape(shape_like)
        return convert_to_tensor([d if d is not None else -1 for d in shape.as_list()],
                                 dtype=dtypes.int64)
    except (TypeError, ValueError):
        out = convert_to_tensor(shape_like, preferred_dtype=dtypes.int64)
        if out.shape.rank is not None and out.shape.rank != 1:
            raise ValueError(f"The given shape {shape_like} must be a 1-D tensor of tf.int64 "
                             f"values, but the shape was {out.shape}.") from None
        if out.dtype != dtypes.int64:
            raise TypeError(f"The given shape {shape_like} must be a 1-D tensor of tf.int64 "
                            f"values, but the element type was {out.dtype.name}.") from None
        return out
