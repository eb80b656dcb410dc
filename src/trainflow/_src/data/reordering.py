"""Dataset methods that reorder, group and cache elements (shuffle, padded_batch,
unbatch, window, shard, cache, reduce, with_options); mixed into DatasetV1."""
import numpy as np

from trainflow._src.data import element_codec
from trainflow._src.data import nest
from trainflow._src.data import random_seed
from trainflow._src.data import structure as st
from trainflow._src.data.options import Options
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import Dimension, TensorShape, as_shape
from trainflow._src.framework.tensor_util import constant_value, constant_value_as_shape
from trainflow._src.ops.dataset import (cache_ops, padded_batch_ops, reduce_ops,  # noqa: F401
                                        shuffle_ops, sparse_dataset_ops, window_ops)
from trainflow._src.ops.sparse import sparse_serialize


def int64(value, name):
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _padded_shape_to_tensor(padded_shape, input_shape):
    """TF's canonical padded shape (an int64 vector, -1 for unknown) and its static shape."""
    try:
        as_static = as_shape(padded_shape)
        tensor = convert_to_tensor([d if d is not None else -1 for d in as_static.as_list()],
                                   dtype=dtypes.int64)
    except (TypeError, ValueError):
        tensor = convert_to_tensor(padded_shape, preferred_dtype=dtypes.int64)
        if tensor.shape.rank is not None and tensor.shape.rank != 1:
            raise ValueError(f"Padded shape {padded_shape} must be a 1-D tensor of tf.int64 "
                             f"values, but its shape was {tensor.shape}.") from None
        if tensor.dtype != dtypes.int64:
            raise TypeError(f"Padded shape {padded_shape} must be a 1-D tensor of tf.int64 "
                            f"values, but its element type was {tensor.dtype.name}.") from None
        as_static = constant_value_as_shape(tensor)
    if not _padded_compatible(as_static, input_shape):
        raise ValueError(f"The padded shape {as_static} is not compatible with the "
                         f"corresponding input component shape {input_shape}.")
    return tensor, as_static


def _padded_compatible(padded, input_shape):
    if padded.rank is None or input_shape.rank is None:
        return True
    if padded.rank != input_shape.rank:
        return False
    return all(p is None or i is None or p >= i
               for p, i in zip(padded.as_list(), input_shape.as_list()))


def _padding_value(value, dtype):
    value = convert_to_tensor(value, name="padding_value")
    if not value.shape.is_compatible_with(TensorShape([])):
        raise ValueError(f"Padding value should be a scalar, but is not: {value}")
    if value.dtype != dtype:
        raise TypeError(f"Padding value tensor ({value}) does not match output type: {dtype}")
    return value


def _default_padding(dtype):
    if dtype.base_dtype == dtypes.string:
        return ""
    if dtype.base_dtype == dtypes.variant:
        raise TypeError("Unable to create padding for field of type 'variant' because "
                        f"t.base_type == dtypes.variant == {dtype.base_dtype}.")
    return np.zeros_like(dtype.as_numpy_dtype())


def merged_options(datasets):
    """The merged options of `datasets` (None when none has any)."""
    found = [d._options for d in datasets if getattr(d, "_options", None) is not None]
    if not found:
        return None
    out = found[0]
    for options in found[1:]:
        out = out.merge(options)
    return out


class ReorderingMethods:
    """Mixed into DatasetV1: its methods build ops with `self._apply` and `self._traced`."""

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """The elements in random order, through a buffer of `buffer_size` elements."""
        buffer_size = int64(buffer_size, "buffer_size")
        seed, seed2 = random_seed.get_seed(seed)
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        return self._apply("ShuffleDataset", self._structure, {
            "input_dataset": self._variant_tensor, "buffer_size": buffer_size, "seed": seed,
            "seed2": seed2}, reshuffle_each_iteration=reshuffle)

    def cache(self, filename=""):
        """The elements of the first complete pass, kept in memory ("") or in files."""
        return self._apply("CacheDataset", self._structure, {
            "input_dataset": self._variant_tensor,
            "filename": convert_to_tensor(filename, dtype=dtypes.string, name="filename")})

    def shard(self, num_shards, index):
        """Every `num_shards`-th element, starting at `index`."""
        return self._apply("ShardDataset", self._structure, {
            "input_dataset": self._variant_tensor,
            "num_shards": int64(num_shards, "num_shards"), "index": int64(index, "index")})

    def padded_batch(self, batch_size, padded_shapes, padding_values=None,
                     drop_remainder=False):
        """Batches of `batch_size` elements, each component padded to `padded_shapes`."""
        comps = self._structure.components
        if any(c.cls is SparseTensor for c in comps):
            raise TypeError("Batching of padded sparse tensors is not currently supported")
        batch_size = int64(batch_size, "batch_size")
        shapes_template = self._structure.shapes()
        pairs = [_padded_shape_to_tensor(p, c.shape) for p, c in
                 zip(nest.flatten_up_to(shapes_template, padded_shapes), comps)]
        if padding_values is None:
            flat_values = [_default_padding(c.dtype) for c in comps]
        else:
            flat_values = nest.flatten_up_to(shapes_template, padding_values)
        values = [_padding_value(v, c.dtype) for v, c in zip(flat_values, comps)]
        drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        static_drop = constant_value(drop)
        size = constant_value(batch_size) if static_drop else None
        structure = st.Structure(st.pack(self._structure.template, [
            st.Component(c.dtype, TensorShape([size if size is None else int(size)])
                         .concatenate(static), c.cls)
            for c, (_, static) in zip(comps, pairs)]))
        inputs = {"input_dataset": self._variant_tensor, "batch_size": batch_size,
                  "padded_shapes": [t for t, _ in pairs], "padding_values": values}
        op = apply_op("PaddedBatchDatasetV2", **inputs, drop_remainder=drop,
                      output_shapes=structure.flat_shapes)
        return self._derived(op.outputs[0], structure)

    def window(self, size, shift=None, stride=1, drop_remainder=False):
        """Windows of `size` elements (every `stride`-th), one each `shift` elements; each
        window is a nest of datasets, one per component."""
        if shift is None:
            shift = size
        structure = st.Structure(st.map_leaves(
            lambda c: st.Component(dtypes.variant, TensorShape([]), st.DatasetSpec(
                st.Structure(st.Component(c.dtype, c.shape, c.cls)))),
            self._structure.template))
        return self._apply("WindowDataset", structure, {
            "input_dataset": self._variant_tensor, "size": int64(size, "size"),
            "shift": int64(shift, "shift"), "stride": int64(stride, "stride"),
            "drop_remainder": convert_to_tensor(drop_remainder, dtype=dtypes.bool,
                                                name="drop_remainder")})

    def unbatch(self):
        """The slices of each element along its first dimension."""
        comps = self._structure.components
        if any(c.shape.rank == 0 for c in comps):
            raise ValueError("Cannot unbatch an input with scalar components.")
        known = Dimension(None)
        for c in comps:
            if c.shape.rank is not None:
                try:
                    known = known.merge_with(c.shape[0])
                except ValueError:
                    raise ValueError("Cannot unbatch an input whose components have "
                                     "different batch sizes.") from None
        return self._apply("UnbatchDataset", self._structure.unbatched(),
                           {"input_dataset": self._as_batched_tensors()._variant_tensor})

    def _as_batched_tensors(self):
        """This dataset with each SparseTensor component as the serialized slices of its
        first dimension ([N, 3]), which unbatch splits (TF maps every element so)."""
        structure = self._structure

        def to_slices(*args):
            element = args if type(structure.template) is tuple else args[0]
            return tuple(sparse_serialize.serialize_many_sparse(t, out_type=dtypes.variant)
                         if isinstance(t, SparseTensor) else t for t in st.flatten(element))

        fn = self._traced(to_slices, "unbatch")
        return self._apply("MapDataset", structure, {
            "input_dataset": self._variant_tensor, "other_arguments": fn.captured},
            f=fn.graph, preserve_cardinality=True)

    def reduce(self, initial_state, reduce_func):
        """`reduce_func(state, element)` folded over the elements from `initial_state`."""
        with name_scope("initial_state"), name_scope("normalize_element"):
            names = iter(range(len(st.flatten(initial_state))))
            state, state_structure = st.normalize(initial_state, lambda v: convert_to_tensor(
                v, name=f"component_{next(names)}"))
        while True:
            args = st.Structure((state_structure.template, self._structure.template))
            fn = self._traced(reduce_func, "reduce", args)
            new = fn.output
            if not state_structure.same_nesting(new):
                raise TypeError(f"The structure of the new state {new.template} must match "
                                f"the initial state {state_structure.template}.")
            for old_c, new_c in zip(state_structure.components, new.components):
                if old_c.cls is not new_c.cls:
                    raise TypeError(f"The element classes for the new state must match the "
                                    f"initial state. Expected {state_structure.classes()}; "
                                    f"got {new.classes()}.")
                if old_c.dtype != new_c.dtype:
                    raise TypeError(f"The element types for the new state must match the "
                                    f"initial state. Expected {state_structure.types()}; "
                                    f"got {new.types()}.")
            weakened = [o.shape.most_specific_compatible_shape(n.shape)
                        for o, n in zip(state_structure.components, new.components)]
            if all(o.shape.rank is None or (w.rank is not None and
                                            o.shape.as_list() == w.as_list())
                   for o, w in zip(state_structure.components, weakened)):
                break
            state_structure = state_structure.with_shapes(weakened)
        op = apply_op("ReduceDataset", input_dataset=self._variant_tensor,
                      initial_state=element_codec.encode(state),
                      other_arguments=fn.captured, f=fn.graph,
                      output_types=state_structure.flat_types,
                      output_shapes=state_structure.flat_shapes)
        return element_codec.decode(state_structure, op.outputs)

    @staticmethod
    def from_sparse_tensor_slices(sparse_tensor):
        """The rows of `sparse_tensor`, each an (indices, values, dense_shape) tuple."""
        sparse_tensor = SparseTensor.from_value(sparse_tensor)
        rank = sparse_tensor.indices.shape[1] - 1 if sparse_tensor.indices.shape.rank \
            else None
        shape_rank = sparse_tensor.dense_shape.shape[0] - 1 \
            if sparse_tensor.dense_shape.shape.rank else None
        rank = Dimension(rank).merge_with(Dimension(shape_rank)).value
        structure = st.Structure.of(
            (dtypes.int64, sparse_tensor.dtype, dtypes.int64),
            (TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])))
        op = apply_op("SparseTensorSliceDataset", indices=sparse_tensor.indices,
                      values=sparse_tensor.values, dense_shape=sparse_tensor.dense_shape)
        return st.DatasetSpec.dataset_class(op.outputs[0], structure)

    # -- options ------------------------------------------------------------------------------
    def options(self):
        """The tf.data.Options set on this dataset and those it reads (read-only)."""
        return (getattr(self, "_options", None) or Options()).read_only_copy()

    def with_options(self, options):
        """This dataset with `options` merged into its options."""
        out = self._derived(self._variant_tensor, self._structure)
        mine = getattr(self, "_options", None)
        out._options = (mine or Options()).merge(options)
        return out

    def _derived(self, variant_tensor, structure, others=()):
        """A dataset over `variant_tensor` carrying the options of this dataset and of
        `others` (the other datasets it reads), merged."""
        out = st.DatasetSpec.dataset_class(variant_tensor, structure)
        out._options = merged_options([self, *others])
        return out
