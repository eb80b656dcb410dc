"""`tf.strings.bytes_split`: each string cut into its bytes (a RaggedTensor)."""
__all__ = ["bytes_split"]

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.ops.array.join import stack
from trainflow._src.ops.ragged.ragged_ops import RaggedTensor, \
    convert_to_tensor_or_ragged_tensor


def bytes_split(input, name=None):  # noqa: A002 - TF's name
    """The bytes of each string of `input`, one more (ragged) dimension.

    Raises:
      ValueError: if the rank of a dense input is unknown.
    """
    with name_scope(name, "StringsByteSplit", [input]):
        return _split(convert_to_tensor_or_ragged_tensor(input, name="input",
                                                         dtype=dtypes.string))


def _split(input):  # noqa: A002
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(_split(input.flat_values))
    rank = input.shape.rank
    if rank is None:
        raise ValueError("input must have a statically-known rank.")
    if rank == 0:
        return _split(stack([input]))[0]
    if rank == 1:
        indices, values, shape = apply_op("StringSplit", input=input, delimiter="",
                                          skip_empty=False).outputs
        known = input.shape.dims[0].value
        return RaggedTensor.from_value_rowids(
            values, indices[:, 0], nrows=shape[0] if known is None else np.int64(known),
            validate=False)
    return _split(RaggedTensor.from_tensor(input))
