"""The ragged family module: RaggedTensor with every method installed, and the
functions of `tf.ragged` (what the faces import)."""
from trainflow._src.ops.ragged import ragged_convert, ragged_getitem  # noqa: F401 - methods
from trainflow._src.ops.ragged.ragged_factory import (  # noqa: F401
    constant, constant_value, map_flat_values, placeholder)
from trainflow._src.ops.ragged.ragged_factory import range  # noqa: F401,A004
from trainflow._src.ops.ragged.ragged_array_ops import (  # noqa: F401
    boolean_mask, stack, stack_dynamic_partitions)
from trainflow._src.ops.ragged.ragged_cross import (  # noqa: F401
    cross, cross_hashed, ragged_fill_empty_rows, ragged_fill_empty_rows_grad)
from trainflow._src.ops.ragged.ragged_tensor import (  # noqa: F401
    RaggedTensor, convert_to_tensor_or_ragged_tensor, is_ragged)
from trainflow._src.ops.ragged.ragged_spec import RaggedTensorSpec  # noqa: F401
from trainflow._src.ops.ragged.ragged_value import RaggedTensorValue  # noqa: F401
from trainflow._src.ops.ragged.segment_ids import (  # noqa: F401
    row_splits_to_segment_ids, segment_ids_to_row_splits)
