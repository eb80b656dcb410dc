"""`tf.data.experimental` transformations of the functional and parallel area:
map_and_batch, parallel_interleave, scan, the device copies (no-ops on the host).
Each returns a function Dataset -> Dataset for `Dataset.apply`."""
from trainflow._src.data.parallel import int64
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """map(map_func) then batch(batch_size) fused into one op (MapAndBatchDataset)."""
    if num_parallel_batches is None and num_parallel_calls is None:
        num_parallel_calls = batch_size
    elif num_parallel_batches is not None and num_parallel_calls is None:
        num_parallel_calls = batch_size * num_parallel_batches
    elif num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("The `num_parallel_batches` and `num_parallel_calls` arguments "
                         "are mutually exclusive.")

    def _apply_fn(dataset):
        fn = dataset._traced(map_func, "map_and_batch")
        size = constant_value(convert_to_tensor(batch_size, dtypes.int64)) \
            if drop_remainder is True else None
        structure = fn.output.batched(int(size) if size is not None else None)
        return dataset._apply("MapAndBatchDataset", structure, {
            "input_dataset": dataset._variant_tensor, "other_arguments": fn.captured,
            "batch_size": int64(batch_size, "batch_size"),
            "num_parallel_calls": int64(num_parallel_calls, "num_parallel_calls"),
            "drop_remainder": convert_to_tensor(drop_remainder, dtypes.bool,
                                                name="drop_remainder")},
            f=fn.graph, preserve_cardinality=False)

    return _apply_fn


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """interleave(map_func, cycle_length, block_length) with each open dataset read ahead
    by `buffer_output_elements` on its own thread (ParallelInterleaveDataset)."""

    def _apply_fn(dataset):
        fn, structure = dataset._dataset_function(map_func, "parallel_interleave")
        buffer = 2 * block_length if buffer_output_elements is None else \
            buffer_output_elements
        prefetch = 2 * cycle_length if prefetch_input_elements is None else \
            prefetch_input_elements
        return dataset._apply("ParallelInterleaveDataset", structure, {
            "input_dataset": dataset._variant_tensor, "other_arguments": fn.captured,
            "cycle_length": int64(cycle_length, "cycle_length"),
            "block_length": int64(block_length, "block_length"),
            "sloppy": convert_to_tensor(sloppy, dtypes.bool, name="sloppy"),
            "buffer_output_elements": int64(buffer, "buffer_output_elements"),
            "prefetch_input_elements": int64(prefetch, "prefetch_input_elements")},
            f=fn.graph)

    return _apply_fn
