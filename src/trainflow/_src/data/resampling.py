"""`tf.data.experimental.rejection_resample`: resamples a dataset toward a target class
distribution by rejecting elements (TF 1.15's resampling.py, built from map, filter,
scan, zip and sample_from_datasets)."""
import numpy as np

from trainflow._src.data.grouping import scan
from trainflow._src.data.parallel_experimental import sample_from_datasets
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.random import random_ops


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation giving (class, element) pairs whose classes (`class_func`, an
    int32 scalar per element) follow `target_dist`; `initial_dist` is the input's class
    distribution, estimated on the way when None."""

    def _apply_fn(dataset):
        target_dist_t = convert_to_tensor(target_dist, name="target_dist")
        class_values_ds = dataset.map(class_func)
        if initial_dist is not None:
            initial_dist_t = convert_to_tensor(initial_dist, name="initial_dist")
            acceptance_dist, prob_of_original = _acceptance_probs_with_mixing(
                initial_dist_t, target_dist_t)
            initial_dist_ds = type(dataset).from_tensors(initial_dist_t).repeat()
            acceptance_dist_ds = type(dataset).from_tensors(acceptance_dist).repeat()
            prob_of_original_ds = type(dataset).from_tensors(prob_of_original).repeat()
            prob_original_static = _prob_original_static(initial_dist_t, target_dist_t)
        else:
            initial_dist_ds = _estimate_initial_dist_ds(target_dist_t, class_values_ds)
            both = initial_dist_ds.map(
                lambda initial: _acceptance_probs_with_mixing(initial, target_dist_t))
            acceptance_dist_ds = both.map(lambda accept, _: accept)
            prob_of_original_ds = both.map(lambda _, original: original)
            prob_original_static = None
        filtered_ds = _filter_ds(dataset, acceptance_dist_ds, initial_dist_ds,
                                 class_values_ds, seed).prefetch(3)
        original = type(dataset).zip((class_values_ds, dataset))
        if prob_original_static == 1:
            return original
        if prob_original_static == 0:
            return filtered_ds
        return sample_from_datasets(
            [original, filtered_ds],
            weights=prob_of_original_ds.map(lambda prob: [(prob, 1.0 - prob)]), seed=seed)

    return _apply_fn


def _prob_original_static(initial_dist_t, target_dist_t):
    init_static = constant_value(initial_dist_t)
    target_static = constant_value(target_dist_t)
    if init_static is None or target_static is None:
        return None
    return np.min(target_static / init_static)


def _filter_ds(dataset, acceptance_dist_ds, initial_dist_ds, class_values_ds, seed):
    """(class, element) of the elements kept with their class's acceptance probability."""
    del initial_dist_ds  # TF reads it only to warn about a high rejection rate

    def _gather_and_copy(class_val, acceptance_prob, data):
        return class_val, array_ops.gather(acceptance_prob, class_val), data

    zipped = type(dataset).zip((class_values_ds, acceptance_dist_ds, dataset)).map(
        _gather_and_copy)
    filtered = zipped.filter(
        lambda _1, p, _2: math_ops.less(random_ops.random_uniform([], seed=seed), p))
    return filtered.map(lambda class_value, _, data: (class_value, data))


def _estimate_initial_dist_ds(target_dist_t, class_values_ds, batch_size=32,
                              smoothing_constant=10):
    """Per element, the class distribution estimated from the classes seen so far (in
    batches of `batch_size`, counts starting at `smoothing_constant`)."""
    num_classes = target_dist_t.shape[0] if target_dist_t.shape.rank else None
    num_classes = int(num_classes) if num_classes is not None else \
        array_ops.shape(target_dist_t)[0]
    initial_counts = array_ops.fill([num_classes], np.int64(smoothing_constant))

    def update_estimate_and_tile(counts, c):
        counts = math_ops.add(counts, math_ops.reduce_sum(
            array_ops.one_hot(c, num_classes, dtype=dtypes.int64), 0))
        dist = math_ops.cast(math_ops.truediv(counts, math_ops.reduce_sum(counts)),
                             dtypes.float32)
        tiled = array_ops.tile(array_ops.expand_dims(dist, 0),
                               array_ops.stack([array_ops.shape(c)[0], 1]))
        return counts, tiled

    dists = class_values_ds.batch(batch_size).apply(scan(initial_counts,
                                                         update_estimate_and_tile))
    return dists.flat_map(type(class_values_ds).from_tensor_slices)


def _acceptance_probs_with_mixing(initial_probs, target_probs):
    """(per-class acceptance probabilities, probability of taking the original data)."""
    tiny = np.finfo(initial_probs.dtype.as_numpy_dtype).tiny
    ratio_l = target_probs / (initial_probs + tiny)
    max_ratio = math_ops.reduce_max(ratio_l)
    min_ratio = math_ops.reduce_min(ratio_l)
    m = min_ratio  # TF: the probability of taking the original data
    a_i = (ratio_l - min_ratio) / (max_ratio - min_ratio)
    return a_i, m
