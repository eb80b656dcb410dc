"""`tf.data.Dataset` (TF 1.15's DatasetV1) in graph mode.

A Dataset is a variant tensor made by a dataset op plus the Structure of its elements;
each transformation adds one dataset op (TF's op type, name and attrs) reading the
variant of its input. Iterators over it are made by `iterator_ops`.
"""
from trainflow._src.data import element_codec
from trainflow._src.data import iterator_ops
from trainflow._src.data.files import FileMethods
from trainflow._src.data.parallel import ParallelMethods
from trainflow._src.data.reordering import ReorderingMethods, merged_options
from trainflow._src.data import structure as st
from trainflow._src.data import structured_function
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.dataset import (batch_ops, map_ops, prefetch_ops,  # noqa: F401
                                        sequence_ops, source_ops)

AUTOTUNE = -1


def _element_attrs(structure):
    return {"output_types": structure.flat_types, "output_shapes": structure.flat_shapes}


def _int64(value, name):
    """A scalar int64 tensor (TF's dataset shape functions want every count, size and
    bound rank 0)."""
    t = convert_to_tensor(value, dtype=dtypes.int64, name=name)
    if t.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank} for '{name}' "
                         f"(shape {t.shape})")
    return t


def _dense_components(tensors, what, many=False):
    """The flat tensors of element `tensors` of `what` (a SparseTensor as a variant)."""
    return element_codec.encode(tensors, many)


class DatasetV1(st.HasElementStructure, ReorderingMethods, ParallelMethods, FileMethods):
    """A sequence of elements, each a nest of tensors of the same Structure."""

    def __init__(self, variant_tensor, structure):
        self._variant_tensor = variant_tensor
        self._structure = structure
        self._graph = variant_tensor.graph

    # -- building ops --------------------------------------------------------------------------
    def _apply(self, op_type, structure, inputs, name=None, **attrs):
        """A new Dataset made by op `op_type` over `inputs` with elements of `structure`."""
        op = apply_op(op_type, name=name, **inputs, **attrs, **_element_attrs(structure))
        return self._derived(op.outputs[0], structure)

    def _traced(self, fn, transformation, arg_structure=None):
        return structured_function.trace(fn, self._structure, transformation, self._graph,
                                         arg_structure)

    # -- sources ----------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors):
        """A dataset of one element, `tensors`."""
        with name_scope("tensors"):
            tensors, structure = st.normalize(tensors, convert_to_tensor)
        components = _dense_components(tensors, "from_tensors")
        op = apply_op("TensorDataset", components=components,
                      output_shapes=structure.flat_shapes)
        return DatasetV1(op.outputs[0], structure)

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset of the slices of `tensors` along their first dimension."""
        with name_scope("tensors"):
            tensors, structure = st.normalize(tensors, convert_to_tensor)
        components = _dense_components(tensors, "from_tensor_slices", many=True)
        for t in components:
            if t.shape.rank == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1, "
                                 f"got {t.name} of shape {t.shape}")
        sliced = structure.unbatched()
        op = apply_op("TensorSliceDataset", components=components,
                      output_shapes=sliced.flat_shapes)
        return DatasetV1(op.outputs[0], sliced)

    @staticmethod
    def range(*args, **kwargs):
        """range(stop), range(start, stop) or range(start, stop, step), as int64."""
        output_type = dtypes.as_dtype(kwargs.pop("output_type", dtypes.int64))
        if kwargs:
            raise TypeError(f"range() got unexpected arguments {sorted(kwargs)}")
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            (start, stop), step = args, 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid arguments to range: {args}")
        structure = st.Structure.of(output_type, TensorShape([]))
        inputs = {"start": _int64(start, "start"), "stop": _int64(stop, "stop"),
                  "step": _int64(step, "step")}
        return DatasetV1(apply_op("RangeDataset", **inputs,
                                  **_element_attrs(structure)).outputs[0], structure)

    @staticmethod
    def zip(datasets):
        """Elements of the datasets in the nest `datasets` side by side."""
        flat = st.flatten(datasets)
        for d in flat:
            if not isinstance(d, DatasetV1):
                raise TypeError(f"zip() expects a nest of Datasets, got {type(d).__name__}")
        structure = st.Structure(st.pack(datasets, [d._structure.template for d in flat]))
        op = apply_op("ZipDataset", input_datasets=[d._variant_tensor for d in flat],
                      **_element_attrs(structure))
        return flat[0]._derived(op.outputs[0], structure, flat[1:])

    def concatenate(self, dataset):
        """This dataset's elements followed by `dataset`'s."""
        if not self._structure.is_compatible_with(dataset._structure):
            raise TypeError(f"Two datasets to concatenate have different types "
                            f"{self.output_types} and {dataset.output_types}")
        structure = self._structure.most_specific_compatible(dataset._structure)
        out = self._apply("ConcatenateDataset", structure,
                          {"input_dataset": self._variant_tensor,
                           "another_dataset": dataset._variant_tensor})
        out._options = merged_options([self, dataset])
        return out

    # -- transformations ----------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None):
        """`map_func` applied to each element (in order, also when run in parallel)."""
        fn = self._traced(map_func, "map")
        inputs = {"input_dataset": self._variant_tensor, "other_arguments": fn.captured}
        if num_parallel_calls is None:
            return self._apply("MapDataset", fn.output, inputs, f=fn.graph,
                               preserve_cardinality=False)  # TF 1.15's DatasetV1.map
        inputs["num_parallel_calls"] = convert_to_tensor(num_parallel_calls, dtypes.int64,
                                                         name="num_parallel_calls")
        # TF 1.15's DatasetV1.map: an OutOfRangeError of the function ends the sequence.
        return self._apply("ParallelMapDatasetV2", fn.output, inputs, f=fn.graph,
                           preserve_cardinality=False)

    def filter(self, predicate):
        """The elements for which `predicate` returns True (a scalar bool tensor)."""
        fn = self._traced(predicate, "filter")
        comps = fn.output.components
        if len(comps) != 1 or comps[0].dtype != dtypes.bool or \
                not comps[0].shape.is_compatible_with(TensorShape([])):
            raise ValueError("`predicate` return type must be convertible to a scalar "
                             "boolean tensor.")
        return self._apply("FilterDataset", self._structure,
                           {"input_dataset": self._variant_tensor,
                            "other_arguments": fn.captured}, predicate=fn.graph)

    def flat_map(self, map_func):
        """The concatenation of the datasets `map_func` returns for each element."""
        fn, structure = self._dataset_function(map_func, "flat_map")
        return self._apply("FlatMapDataset", structure,
                           {"input_dataset": self._variant_tensor,
                            "other_arguments": fn.captured}, f=fn.graph)

    def _dataset_function(self, map_func, transformation):
        """Traces a function that returns a Dataset; (traced, its datasets' Structure)."""
        made = []

        def wrapped(*args):
            out = map_func(*args)
            if not isinstance(out, DatasetV1):
                raise TypeError(f"`map_func` of {transformation} must return a Dataset "
                                f"object, got {type(out).__name__}")
            made.append(out)
            return out._variant_tensor

        wrapped.__name__ = getattr(map_func, "__name__", "fn")
        fn = self._traced(wrapped, transformation)
        return fn, made[0]._structure

    def batch(self, batch_size, drop_remainder=False):
        """Consecutive elements stacked `batch_size` at a time."""
        size = constant_value(convert_to_tensor(batch_size, dtypes.int64)) \
            if drop_remainder is True else None
        structure = self._structure.batched(int(size) if size is not None else None)
        return self._apply("BatchDatasetV2", structure, {
            "input_dataset": self._variant_tensor,
            "batch_size": _int64(batch_size, "batch_size"),
            "drop_remainder": convert_to_tensor(drop_remainder, dtypes.bool,
                                                name="drop_remainder")})

    def repeat(self, count=None):
        """This dataset `count` times over (forever when None or -1)."""
        return self._apply("RepeatDataset", self._structure, {
            "input_dataset": self._variant_tensor,
            "count": _int64(-1 if count is None else count, "count")})

    def take(self, count):
        """At most the first `count` elements (all when -1)."""
        return self._apply("TakeDataset", self._structure, {
            "input_dataset": self._variant_tensor, "count": _int64(count, "count")})

    def skip(self, count):
        """All but the first `count` elements (none when -1)."""
        return self._apply("SkipDataset", self._structure, {
            "input_dataset": self._variant_tensor, "count": _int64(count, "count")})

    def prefetch(self, buffer_size):
        """Reads up to `buffer_size` elements ahead on a background thread."""
        return self._apply("PrefetchDataset", self._structure, {
            "input_dataset": self._variant_tensor,
            "buffer_size": _int64(buffer_size, "buffer_size")})

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a Dataset."""
        out = transformation_func(self)
        if not isinstance(out, DatasetV1):
            raise TypeError("`transformation_func` must return a Dataset. Got "
                            f"{type(out).__name__}.")
        return out

    # -- iterators ------------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator initialized on first use, over this dataset (no placeholders)."""
        return iterator_ops.one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator whose `initializer` (re)starts it; placeholders may be fed then."""
        return iterator_ops.initializable_iterator(self, shared_name)

    def __iter__(self):
        raise RuntimeError("__iter__() is only supported inside of tf.function or when "
                           "eager execution is enabled.")

    def __repr__(self):
        return f"<DatasetV1 shapes: {self.output_shapes}, types: {self.output_types}>"


st.DatasetSpec.dataset_class = DatasetV1

