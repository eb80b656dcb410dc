"""tf.data.experimental's functions of the reordering area: shuffle_and_repeat, unbatch,
get_single_element, cardinality, enumerate_dataset, Counter, ignore_errors, take_while,
unique, dense_to_sparse_batch."""
import numpy as np

from trainflow._src.data import element_codec
from trainflow._src.data import random_seed
from trainflow._src.data import structure as st
from trainflow._src.data.convert import partial_shape_to_tensor
from trainflow._src.data.reordering import int64
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_util import constant_value_as_shape
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.dataset import experimental_ops, reduce_ops  # noqa: F401

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
_INT64_MAX = np.iinfo(np.int64).max


def _dataset_class():
    return st.DatasetSpec.dataset_class


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation: shuffle through `buffer_size` elements, `count` times over
    (forever when None or -1), a new order each epoch."""

    def _apply_fn(dataset):
        size = int64(buffer_size, "buffer_size")
        count_t = int64(-1 if count is None else count, "count")
        seed_t, seed2 = random_seed.get_seed(seed)
        return dataset._apply("ShuffleAndRepeatDataset", dataset._structure, {
            "input_dataset": dataset._variant_tensor, "buffer_size": size, "seed": seed_t,
            "seed2": seed2, "count": count_t})

    return _apply_fn


def unbatch():
    """A transformation: `Dataset.unbatch`."""
    return lambda dataset: dataset.unbatch()


def get_single_element(dataset):
    """The only element of `dataset`, as tensors (InvalidArgumentError when run if it
    has none or more than one)."""
    if not isinstance(dataset, _dataset_class()):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    s = dataset._structure
    op = apply_op("DatasetToSingleElement", dataset=dataset._variant_tensor,
                  output_types=s.flat_types, output_shapes=s.flat_shapes)
    return element_codec.decode(s, op.outputs)


def cardinality(dataset):
    """A scalar int64 tensor: the number of elements, INFINITE_CARDINALITY or
    UNKNOWN_CARDINALITY."""
    return apply_op("DatasetCardinality", input_dataset=dataset._variant_tensor).outputs[0]


def enumerate_dataset(start=0):
    """A transformation: (index, element) pairs, indices counting from `start`."""

    def _apply_fn(dataset):
        cls = type(dataset)
        return cls.zip((cls.range(start, _INT64_MAX), dataset))

    return _apply_fn


def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802 - TF's name
    """An endless dataset: start, start + step, start + 2 * step ..."""
    with name_scope("counter"):
        start = convert_to_tensor(start, dtype=dtype, name="start")
        step = convert_to_tensor(step, dtype=dtype, name="step")
        # An endless index (range(2**63 - 1) repeated: INFINITE cardinality, as TF's scan
        # over from_tensors(0).repeat()) mapped to start + i * step.
        return _dataset_class().range(_INT64_MAX).repeat().map(
            lambda i: start + cast(i, dtype) * step)


def ignore_errors(log_warning=False):
    """A transformation: the elements whose making raised no error."""

    def _apply_fn(dataset):
        return dataset._apply("IgnoreErrorsDataset", dataset._structure,
                              {"input_dataset": dataset._variant_tensor},
                              log_warning=bool(log_warning))

    return _apply_fn


def take_while(predicate):
    """A transformation: the elements up to the first for which `predicate` is False."""

    def _apply_fn(dataset):
        fn = dataset._traced(predicate, "take_while")
        comps = fn.output.components
        if len(comps) != 1 or comps[0].dtype != dtypes.bool or \
                not comps[0].shape.is_compatible_with(TensorShape([])):
            raise ValueError("`predicate` must return a scalar boolean tensor.")
        return dataset._apply("TakeWhileDataset", dataset._structure, {
            "input_dataset": dataset._variant_tensor, "other_arguments": fn.captured},
            predicate=fn.graph)

    return _apply_fn


def unique():
    """A transformation: each distinct element once, at its first occurrence."""

    def _apply_fn(dataset):
        comps = dataset._structure.components
        if len(comps) != 1 or comps[0].travels_as_variant() or \
                comps[0].dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError("`tf.data.experimental.unique()` only supports inputs with a "
                            "single `tf.int32`, `tf.int64`, or `tf.string` component.")
        return dataset._apply("UniqueDataset", dataset._structure,
                              {"input_dataset": dataset._variant_tensor})

    return _apply_fn


def dense_to_sparse_batch(batch_size, row_shape):
    """A transformation: batches of `batch_size` elements as one SparseTensor each, of
    dense shape [batch, *row_shape] (-1 or None: the batch's largest)."""

    def _apply_fn(dataset):
        comps = dataset._structure.components
        if len(comps) != 1 or st.is_nested(dataset._structure.template):
            raise TypeError(f"DenseToSparseDataset requires an input whose elements have a "
                            f"single component, whereas the input has "
                            f"{dataset.output_types!r}.")
        row = partial_shape_to_tensor(row_shape)
        static = constant_value_as_shape(row) if isinstance(row_shape, Tensor) \
            else as_shape(row_shape)
        structure = st.Structure(st.Component(
            comps[0].dtype, TensorShape([None]).concatenate(static), SparseTensor))
        return dataset._apply("DenseToSparseBatchDataset", structure, {
            "input_dataset": dataset._variant_tensor,
            "batch_size": batch_size, "row_shape": row})

    return _apply_fn
