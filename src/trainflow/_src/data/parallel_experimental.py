"""`tf.data.experimental` pieces of the functional and parallel area: map_and_batch,
parallel_interleave, sample_from_datasets / choose_from_datasets (DirectedInterleave),
RandomDataset, the device copies (no-ops on the host).
Each returns a function Dataset -> Dataset for `Dataset.apply`."""
from trainflow._src.data import structure as st
from trainflow._src.data.dataset_ops import AUTOTUNE, DatasetV1
from trainflow._src.data.parallel import element_attrs, int64
from trainflow._src.framework import dtypes, random_seed
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops


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


def map_and_batch_with_legacy_function(map_func, batch_size, num_parallel_batches=None,
                                       drop_remainder=False, num_parallel_calls=None):
    """map_and_batch (functions are traced the same way here)."""
    return map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder,
                         num_parallel_calls)


class RandomDataset(DatasetV1):
    """An endless dataset of uniform int64 values (RandomDataset), reproducible given
    tf.set_random_seed or `seed`."""

    def __init__(self, seed=None):
        seed, seed2 = random_seed.get_seed(seed)
        structure = st.Structure.of(dtypes.int64, TensorShape([]))
        op = apply_op("RandomDataset", seed=int64(0 if seed is None else seed, "seed"),
                      seed2=int64(0 if seed2 is None else seed2, "seed2"),
                      **element_attrs(structure))
        super().__init__(op.outputs[0], structure)


def _directed_interleave(selector, datasets):
    datasets = list(datasets)
    first = datasets[0]._structure
    for d in datasets[1:]:
        if not first.is_compatible_with(d._structure):
            raise TypeError("All datasets must have the same type and class.")
    structure = first
    for d in datasets[1:]:
        structure = structure.most_specific_compatible(d._structure)
    op = apply_op("DirectedInterleaveDataset",
                  selector_input_dataset=selector._variant_tensor,
                  data_input_datasets=[d._variant_tensor for d in datasets],
                  **element_attrs(structure))
    return DatasetV1(op.outputs[0], structure)


def choose_from_datasets(datasets, choice_dataset):
    """Elements of `datasets` in the order the int64 scalars of `choice_dataset` name."""
    comps = choice_dataset._structure.components
    if len(comps) != 1 or comps[0].dtype != dtypes.int64 or \
            not comps[0].shape.is_compatible_with(TensorShape([])):
        raise TypeError("`choice_dataset` must be a dataset of scalar `tf.int64` tensors.")
    return _directed_interleave(choice_dataset, datasets)


def _select(seeds, weights):
    """The input index for one pair of random int64 `seeds`: the first whose cumulative
    probability (of `weights`) passes a uniform number made of seeds[0]."""
    probs = weights / math_ops.reduce_sum(weights)
    cdf = math_ops.cumsum(math_ops.cast(probs, dtypes.float64))
    top = convert_to_tensor(2 ** 53, dtypes.int64)
    u = math_ops.cast(math_ops.floormod(array_ops.gather(seeds, 0), top), dtypes.float64) / \
        math_ops.cast(top, dtypes.float64)
    index = math_ops.reduce_sum(math_ops.cast(math_ops.less_equal(cdf, u), dtypes.int64))
    return math_ops.minimum(index, convert_to_tensor(len_of(weights) - 1, dtypes.int64))


def len_of(weights):
    return int(weights.shape[0])


def sample_from_datasets(datasets, weights=None, seed=None):
    """Elements drawn from `datasets` at random, input i with probability weights[i]
    (uniform when None; `weights` may be a dataset of weight vectors)."""
    datasets = list(datasets)
    n = len(datasets)
    if isinstance(weights, DatasetV1):
        comps = weights._structure.components
        if any(c.dtype not in (dtypes.float32, dtypes.float64) for c in comps):
            raise TypeError("`weights` must be a dataset of `tf.float32` or `tf.float64` "
                            "tensors.")
        pairs = DatasetV1.zip((RandomDataset(seed).batch(2), weights))
        selector = pairs.map(lambda seeds, w: _select(seeds, _fixed(w, n)))
        return _directed_interleave(selector, datasets)
    if weights is None:
        weights = convert_to_tensor([1.0] * n, dtypes.float32, name="weights")
    else:
        weights = convert_to_tensor(weights, name="weights")
        if weights.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError("`weights` must be convertible to a tensor of `tf.float32` or "
                            "`tf.float64` elements.")
        if not weights.shape.is_compatible_with([n]):
            raise ValueError("`weights` must be a vector of length `len(datasets)`.")
    if n == 1:
        return datasets[0]
    selector = RandomDataset(seed).batch(2).map(lambda seeds: _select(seeds, _fixed(weights,
                                                                                     n)))
    return _directed_interleave(selector, datasets)


def _fixed(weights, n):
    """The weights as a vector of `n` (a nest of scalars is stacked, as TF takes
    rejection_resample's ((p, 1 - p),) elements)."""
    comps = st.flatten(weights)
    if len(comps) == 1:
        return array_ops.reshape(comps[0], [n])
    return array_ops.stack([array_ops.reshape(c, []) for c in comps])


def copy_to_device(target_device, source_device="/cpu:0"):
    """A transformation that copies the elements to `target_device`: the host is the
    only device here, so the dataset is kept as it is."""
    del target_device, source_device

    def _apply_fn(dataset):
        return dataset

    return _apply_fn


def prefetch_to_device(device, buffer_size=None):
    """copy_to_device(device) followed by prefetch(buffer_size) (AUTOTUNE when None)."""

    def _apply_fn(dataset):
        return dataset.apply(copy_to_device(device)).prefetch(
            AUTOTUNE if buffer_size is None else buffer_size)

    return _apply_fn
