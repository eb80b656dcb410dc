"""`tf.required_space_to_batch_paddings`: the paddings and crops that make a block
shape divide a spatial shape, for SpaceToBatchND / BatchToSpaceND."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import create, join

__all__ = ["required_space_to_batch_paddings"]


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None):
    """(paddings, crops), int32 [N, 2] each: paddings[i] starts at base_paddings[i, 0]
    and ends past base_paddings[i, 1] by the least amount that makes the padded size a
    multiple of block_shape[i]; crops[i] = [0, that amount].

    Args:
      input_shape: int32 [N]; block_shape: int32 [N], of known shape;
      base_paddings: int32 [N, 2] of minimum paddings (default zeros).

    Raises:
      ValueError: for a block_shape of unknown shape or rank other than 1, or
        incompatible shapes.
    """
    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        block_shape.shape.assert_is_fully_defined()
        block_shape.shape.assert_has_rank(1)
        n = block_shape.shape.dims[0].value
        if n == 0:
            return create.zeros([0, 2], dtypes.int32), create.zeros([0, 2], dtypes.int32)
        input_shape.shape.assert_is_compatible_with([n])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32,
                                              name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([n, 2])
        else:
            base_paddings = create.zeros([n, 2], dtypes.int32)
        values = [constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(v is not None for v in values):
            block_shape, input_shape, base_paddings = values
        # The same expression serves constants (NumPy) and tensors (ops).
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full = input_shape + pad_start + orig_pad_end
        extra = (block_shape - full % block_shape) % block_shape
        pad_end = orig_pad_end + extra
        paddings = join.stack([[pad_start[i], pad_end[i]] for i in range(n)], name="paddings")
        crops = join.stack([[0, extra[i]] for i in range(n)], name="crops")
        return paddings, crops
