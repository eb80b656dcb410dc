"""Lookup tables filled from a tf.data dataset of (key, value) pairs:
tf.data.experimental.DatasetInitializer (InitializeTableFromDataset), table_from_dataset
and index_table_from_dataset, as TensorFlow's `data/experimental/ops/lookup_ops` builds
them."""
from trainflow._src.data.experimental_utils import assert_cardinality
from trainflow._src.data.reordering_experimental import enumerate_dataset
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.lookup.tables import (StaticHashTable, TableInitializerBase,
                                          check_table_dtypes)
from trainflow._src.lookup.vocabulary import FastHashSpec, IdTableWithHashBuckets
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.lookup.dataset_init import initialize_table_from_dataset

_BASE_ERROR = ("Datasets used to initialize lookup tables must produce elements in the "
               "form (key, value), where the keys and values are scalar tensors. ")


def _check_element_spec(element_spec):
    """ValueError unless the elements are (scalar tensor, scalar tensor) pairs."""
    if not isinstance(element_spec, tuple) or len(element_spec) != 2:
        n = len(element_spec) if isinstance(element_spec, (tuple, dict)) else 1
        raise ValueError(_BASE_ERROR + f"However, the given dataset produces {n} components "
                         f"instead of two (key, value) components. Full dataset element "
                         f"spec: {element_spec}.")
    for which, spec in zip(("keys", "values"), element_spec):
        if getattr(spec, "cls", None) is not Tensor:
            kind = SparseTensor if getattr(spec, "cls", None) is SparseTensor else type(spec)
            raise ValueError(_BASE_ERROR + f"However, the given dataset produces non-Tensor "
                             f"{which} of type {kind}.")
    for which, spec in zip(("key", "value"), element_spec):
        if spec.shape.rank not in (None, 0):
            raise ValueError(_BASE_ERROR + f"However, the given dataset produces non-scalar "
                             f"{which} Tensors of rank {spec.shape.rank}.")


class DatasetInitializer(TableInitializerBase):
    """Initializes a table from `dataset`, whose elements are (key, value) scalar pairs."""

    def __init__(self, dataset):
        self.dataset = dataset
        spec = dataset.element_spec
        _check_element_spec(spec)
        super().__init__(spec[0].dtype, spec[1].dtype)

    def initialize(self, table):
        """The InitializeTableFromDataset op filling `table` (added to TABLE_INITIALIZERS).

        Raises:
          TypeError: when the dtypes are not the table's.
        """
        check_table_dtypes(table, self._key_dtype, self._value_dtype)
        init_op = initialize_table_from_dataset(table.resource_handle,
                                                self.dataset._variant_tensor)
        get_default_graph().add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


def table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None,
                       hasher_spec=FastHashSpec, key_dtype=dtypes.string, name=None):
    """A StaticHashTable filled from a dataset of (key, value) pairs (keys outside it give
    `default_value`, or one of `num_oov_buckets` hash buckets after the vocabulary).

    `vocab_size` (when given) takes that many pairs and checks there were that many.
    """
    spec = dataset.element_spec
    _check_element_spec(spec)
    if default_value is None:
        default_value = -1
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError("`default_value` must be specified when creating a table from a "
                             f"dataset that produces values of type {spec[1].dtype}.")
    if num_oov_buckets < 0:
        raise ValueError("`num_oov_buckets` must be greater than or equal to 0, got "
                         f"{num_oov_buckets}.")
    if not isinstance(vocab_size, Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype.base_dtype != dtypes.string:
        raise TypeError("`key_dtype` must be either an integer or string type, but got "
                        f"{key_dtype}")
    if vocab_size is not None:
        if isinstance(vocab_size, Tensor):
            vocab_size = cast(vocab_size, dtypes.int64)
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    with name_scope(name, "string_to_index"):
        initializer = DatasetInitializer(dataset)
        with name_scope(None, "hash_table"):
            table = StaticHashTable(initializer, default_value)
            if num_oov_buckets:
                table = IdTableWithHashBuckets(table, num_oov_buckets=num_oov_buckets,
                                               hasher_spec=hasher_spec, key_dtype=key_dtype)
            return table


def index_table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None,
                             default_value=-1, hasher_spec=FastHashSpec,
                             key_dtype=dtypes.string, name=None):
    """A table from each element of `dataset` to its position in it (see
    table_from_dataset for the other arguments)."""
    pairs = dataset.apply(enumerate_dataset()).map(lambda v, k: (k, v))
    return table_from_dataset(pairs, num_oov_buckets, vocab_size, default_value,
                              hasher_spec, key_dtype, name)
