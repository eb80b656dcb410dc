"""`tf.data.experimental` transformations that carry state across elements: scan,
group_by_window, group_by_reducer (with Reducer), bucket_by_sequence_length. Each
returns a function Dataset -> Dataset for `Dataset.apply`."""
import numpy as np

from trainflow._src.data import structure as st
from trainflow._src.data import structured_function
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.dataset import grouping_ops  # noqa: F401 - registers the ops
from trainflow._src.ops.math import math_ops


def _trace(dataset, fn, name, arg_structure):
    return structured_function.trace(fn, dataset._structure, name, dataset._graph,
                                     arg_structure)


def _pair(template_a, template_b):
    return st.Structure((template_a, template_b))


def _relaxed_state(dataset, fn, name, state, arg_of, new_state_of):
    """Traces `fn` until the state it returns fits the state it gets (TF's fixed point:
    shapes are relaxed to what both allow; dtypes must match)."""
    while True:
        traced = _trace(dataset, fn, name, arg_of(state))
        new = new_state_of(traced.output)
        if not state.same_nesting(new) or state.flat_types != new.flat_types:
            raise TypeError(
                "The element types for the new state must match the initial state. "
                f"Expected {state.types()}; got {new.types()}.")
        relaxed = state.most_specific_compatible(new)
        if [s.as_list() if s.rank is not None else None for s in relaxed.flat_shapes] == \
                [s.as_list() if s.rank is not None else None for s in state.flat_shapes]:
            return traced, state
        state = relaxed


def scan(initial_state, scan_func):
    """A transformation that threads state through `scan_func(state, element) ->
    (new_state, output)` and yields the outputs (ScanDataset)."""

    def _apply_fn(dataset):
        with name_scope("initial_state"):
            tensors, state = st.normalize(initial_state, convert_to_tensor)

        def pair_fn(*args):
            ret = scan_func(*args)
            if not isinstance(ret, (tuple, list)) or len(ret) != 2:
                raise TypeError("The scan function must return a pair comprising the new "
                                "state and the output value.")
            return tuple(ret)

        pair_fn.__name__ = getattr(scan_func, "__name__", "scan_fn")
        traced, state = _relaxed_state(
            dataset, pair_fn, "scan", state,
            lambda s: _pair(s.template, dataset._structure.template),
            lambda out: st.Structure(out.template[0]))
        output = st.Structure(traced.output.template[1])
        return dataset._apply("ScanDataset", output, {
            "input_dataset": dataset._variant_tensor, "initial_state": st.flatten(tensors),
            "other_arguments": traced.captured}, f=traced.graph)

    return _apply_fn


def _key_function(dataset, key_func, name="key_func"):
    traced = _trace(dataset, key_func, "group_by_key", dataset._structure)
    comps = traced.output.components
    if len(comps) != 1 or comps[0].dtype != dtypes.int64 or \
            not comps[0].shape.is_compatible_with(TensorShape([])):
        raise ValueError(f"`{name}` must return a single tf.int64 tensor. Got type="
                         f"{traced.output.types()} and shape={traced.output.shapes()}")
    return traced


_KEY = st.Structure.of(dtypes.int64, TensorShape([]))


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """Groups elements by `key_func` into windows of `window_size` (or
    `window_size_func(key)`) and yields the elements of `reduce_func(key, window)`."""
    if (window_size is not None and window_size_func) or \
            not (window_size is not None or window_size_func):
        raise ValueError("Must pass either window_size or window_size_func.")
    if window_size is not None:
        def constant_window_func(unused_key):
            return convert_to_tensor(window_size, dtype=dtypes.int64)
        window_size_func = constant_window_func

    def _apply_fn(dataset):
        key = _key_function(dataset, key_func)
        window = _trace(dataset, window_size_func, "group_by_window_size", _KEY)
        comps = window.output.components
        if len(comps) != 1 or comps[0].dtype != dtypes.int64 or \
                not comps[0].shape.is_compatible_with(TensorShape([])):
            raise ValueError("`window_size_func` must return a single tf.int64 scalar tensor.")
        made = []

        def reduce_wrapper(key_t, window_variant):
            out = reduce_func(key_t, type(dataset)(window_variant, dataset._structure))
            if not hasattr(out, "_variant_tensor"):
                raise TypeError("`reduce_func` must return a `Dataset` object.")
            made.append(out)
            return out._variant_tensor

        reduce_wrapper.__name__ = getattr(reduce_func, "__name__", "reduce_func")
        args = st.Structure.of((dtypes.int64, dtypes.variant),
                               (TensorShape([]), TensorShape([])))
        reduce = _trace(dataset, reduce_wrapper, "group_by_window_reduce", args)
        return dataset._apply("GroupByWindowDataset", made[0]._structure, {
            "input_dataset": dataset._variant_tensor,
            "key_func_other_arguments": key.captured,
            "reduce_func_other_arguments": reduce.captured,
            "window_size_func_other_arguments": window.captured},
            key_func=key.graph, reduce_func=reduce.graph, window_size_func=window.graph)

    return _apply_fn


class Reducer:
    """How group_by_reducer reduces a group: `init_func(key) -> state`,
    `reduce_func(state, element) -> state`, `finalize_func(state) -> output`."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


def group_by_reducer(key_func, reducer):
    """Groups the elements by `key_func` and reduces each group with `reducer`
    (GroupByReducerDataset); yields one output per key, in first-seen order."""

    def _apply_fn(dataset):
        key = _key_function(dataset, key_func)
        init = _trace(dataset, reducer.init_func, "group_by_reducer_init", _KEY)
        reduce, state = _relaxed_state(
            dataset, reducer.reduce_func, "group_by_reducer_reduce", init.output,
            lambda s: _pair(s.template, dataset._structure.template), lambda out: out)
        finalize = _trace(dataset, reducer.finalize_func, "group_by_reducer_finalize", state)
        return dataset._apply("GroupByReducerDataset", finalize.output, {
            "input_dataset": dataset._variant_tensor,
            "key_func_other_arguments": key.captured,
            "init_func_other_arguments": init.captured,
            "reduce_func_other_arguments": reduce.captured,
            "finalize_func_other_arguments": finalize.captured},
            key_func=key.graph, init_func=init.graph, reduce_func=reduce.graph,
            finalize_func=finalize.graph)

    return _apply_fn


def _padded_shapes(shapes, none_filler):
    return st.map_leaves(lambda s: [none_filler if d is None else d
                                    for d in TensorShape(s).as_list()], shapes)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches elements of similar length (`element_length_func`) together: bucket i
    holds lengths in [boundaries[i-1], boundaries[i]) and batches `bucket_batch_sizes[i]`
    of them (padded with padded_batch unless `no_padding`)."""
    with name_scope("bucket_by_seq_length"):
        if len(bucket_batch_sizes) != (len(bucket_boundaries) + 1):
            raise ValueError(
                "len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1")
        batch_sizes = convert_to_tensor(list(bucket_batch_sizes), dtype=dtypes.int64)

    def element_to_bucket_id(*args):
        seq_length = element_length_func(*args)
        boundaries = list(bucket_boundaries)
        # As TF: the bounds are an int32 tensor, so the length must be int32 too.
        buckets_min = convert_to_tensor([np.iinfo(np.int32).min] + boundaries)
        buckets_max = convert_to_tensor(boundaries + [np.iinfo(np.int32).max])
        conditions = math_ops.logical_and(math_ops.less_equal(buckets_min, seq_length),
                                          math_ops.less(seq_length, buckets_max))
        return math_ops.reduce_min(array_ops.where(conditions))

    def window_size_fn(bucket_id):
        return array_ops.gather(batch_sizes, bucket_id)

    def batching_fn(bucket_id, grouped):
        batch_size = window_size_fn(bucket_id)
        if no_padding:
            return grouped.batch(batch_size, drop_remainder=drop_remainder)
        none_filler = None
        if pad_to_bucket_boundary:
            boundaries = convert_to_tensor(list(bucket_boundaries), dtype=dtypes.int64)
            none_filler = array_ops.gather(boundaries, bucket_id) - 1
        shapes = _padded_shapes(padded_shapes or grouped.output_shapes, none_filler)
        return grouped.padded_batch(batch_size, shapes, padding_values,
                                    drop_remainder=drop_remainder)

    def _apply_fn(dataset):
        return dataset.apply(group_by_window(element_to_bucket_id, batching_fn,
                                             window_size_func=window_size_fn))

    return _apply_fn

