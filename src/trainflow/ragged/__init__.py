"""`tf.ragged`: ragged tensors' factories and ops."""
from trainflow._src.ops.ragged.ragged_ops import (  # noqa: F401
    RaggedTensorValue, boolean_mask, constant, constant_value, cross, cross_hashed,
    map_flat_values, placeholder, row_splits_to_segment_ids, segment_ids_to_row_splits, stack,
    stack_dynamic_partitions)
from trainflow._src.ops.ragged.ragged_ops import range  # noqa: F401,A004

__all__ = ["RaggedTensorValue", "boolean_mask", "constant", "constant_value", "cross",
           "cross_hashed", "map_flat_values", "placeholder", "range", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits", "stack", "stack_dynamic_partitions"]
