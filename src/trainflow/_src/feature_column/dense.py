"""The dense feature columns of TF1's `tf.feature_column`: numeric, bucketized (also
categorical), embedding (and shared embedding) and indicator columns, as TensorFlow
1.15's feature_column.py builds them (variables `<column>_embedding/embedding_weights`)."""
import collections

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.feature_column.categorical import (CategoricalColumn, DenseColumn,
                                                       IdWeightPair)
from trainflow._src.feature_column.sequence import (SequenceCategoricalColumn,
                                                    TensorSequenceLengthPair,
                                                    sequence_length_from_sparse_tensor)
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import one_hot
from trainflow._src.ops.array.create import range as range_op
from trainflow._src.ops.array.gather import scatter_nd
from trainflow._src.ops.array.join import stack
from trainflow._src.ops.array.layout import tile, transpose
from trainflow._src.ops.array.shape import expand_dims, reshape, shape
from trainflow._src.ops.io.parsing_config import FixedLenFeature
from trainflow._src.ops.math.histogram_ops import bucketize
from trainflow._src.ops.math.reductions import reduce_sum
from trainflow._src.ops.nn.safe_embedding import safe_embedding_lookup_sparse
from trainflow._src.ops.math.arith import greater_equal
from trainflow._src.ops.sparse.sparse_compose import sparse_retain
from trainflow._src.ops.sparse.sparse_ops import sparse_tensor_to_dense
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.train.checkpoint_init import init_from_checkpoint


class NumericColumn(DenseColumn, collections.namedtuple(
        "_NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    """A real-valued feature of `shape`, cast to float32 (after normalizer_fn)."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs):
        input_tensor = inputs.get(self.key)
        if isinstance(input_tensor, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            input_tensor = self.normalizer_fn(input_tensor)
        return cast(input_tensor, dtypes.float32)

    @property
    def _variable_shape(self):
        return TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


class BucketizedColumn(DenseColumn, CategoricalColumn, collections.namedtuple(
        "_BucketizedColumn", ["source_column", "boundaries"])):
    """A numeric column's values as bucket ids by `boundaries` (one-hot when dense)."""

    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self):
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs):
        return bucketize(inputs.get(self.source_column), boundaries=self.boundaries)

    @property
    def _variable_shape(self):
        return TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return one_hot(cast(inputs.get(self), dtypes.int64), depth=len(self.boundaries) + 1,
                       on_value=1.0, off_value=0.0)

    @property
    def _num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        input_tensor = inputs.get(self)
        batch_size = shape(input_tensor)[0]
        source_dimension = self.source_column.shape[0]
        i1 = reshape(tile(expand_dims(range_op(0, batch_size), 1), [1, source_dimension]),
                     (-1,))
        i2 = tile(range_op(0, source_dimension), [batch_size])
        bucket_indices = reshape(input_tensor, (-1,)) + (len(self.boundaries) + 1) * i2
        indices = cast(transpose(stack((i1, i2))), dtypes.int64)
        dense_shape = cast(stack([batch_size, source_dimension]), dtypes.int64)
        return IdWeightPair(SparseTensor(indices=indices, values=bucket_indices,
                                         dense_shape=dense_shape), None)


class EmbeddingColumn(DenseColumn, collections.namedtuple(
        "_EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                             "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                             "trainable"])):
    """A categorical column's ids as the combined rows of an embedding variable
    `embedding_weights` [num_buckets, dimension]."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return TensorShape([self.dimension])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _refuse_sequence(self, "embedding_column")
        return self._dense_internal(inputs, weight_collections, trainable)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        """(embeddings [batch, T, dimension], sequence_length) of a sequence column."""
        _require_sequence(self, "embedding_column")
        return _sequence_pair(self, self._dense_internal(inputs, weight_collections,
                                                         trainable), inputs)

    def _dense_internal(self, inputs, weight_collections, trainable):
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs,
                                                                     weight_collections,
                                                                     trainable)
        embedding_weights = vs.get_variable(
            name="embedding_weights",
            shape=(self.categorical_column._num_buckets, self.dimension),
            dtype=dtypes.float32, initializer=self.initializer,
            trainable=self.trainable and trainable is not False,
            collections=weight_collections)
        if self.ckpt_to_load_from is not None:
            init_from_checkpoint(self.ckpt_to_load_from,
                                 {self.tensor_name_in_ckpt: embedding_weights})
        return safe_embedding_lookup_sparse(
            embedding_weights, sparse_tensors.id_tensor,
            sparse_weights=sparse_tensors.weight_tensor, combiner=self.combiner,
            name=f"{self.name}_weights", max_norm=self.max_norm)


class SharedEmbeddingColumn(DenseColumn, collections.namedtuple(
        "_SharedEmbeddingColumn", ["categorical_column", "dimension", "combiner",
                                   "initializer", "shared_embedding_collection_name",
                                   "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                                   "trainable"])):
    """An embedding column whose `embedding_weights` the other columns of its
    shared_embedding_columns call share (kept in the graph collection named
    shared_embedding_collection_name)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return TensorShape([self.dimension])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _refuse_sequence(self, "embedding_column")
        return self._dense_internal(inputs, weight_collections, trainable)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        """(embeddings [batch, T, dimension], sequence_length) of a sequence column."""
        _require_sequence(self, "embedding_column")
        return _sequence_pair(self, self._dense_internal(inputs, weight_collections,
                                                         trainable), inputs)

    def _dense_internal(self, inputs, weight_collections, trainable):
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs,
                                                                     weight_collections,
                                                                     trainable)
        shape_ = (self.categorical_column._num_buckets, self.dimension)
        graph = get_default_graph()
        shared = graph.get_collection(self.shared_embedding_collection_name)
        if shared:
            if len(shared) > 1:
                raise ValueError(f"Collection {self.shared_embedding_collection_name} can "
                                 f"only contain one variable. Suggested fix A: Choose a "
                                 f"unique name for this collection. Suggested fix B: remove "
                                 f"all other variables from this collection.")
            embedding_weights = shared[0]
            if embedding_weights.get_shape() != shape_:
                raise ValueError(f"Shared embedding collection "
                                 f"{self.shared_embedding_collection_name} contains variable "
                                 f"{embedding_weights.name} of unexpected shape "
                                 f"{embedding_weights.get_shape()}. Expected shape is "
                                 f"{shape_}.")
        else:
            embedding_weights = vs.get_variable(
                name="embedding_weights", shape=shape_, dtype=dtypes.float32,
                initializer=self.initializer,
                trainable=self.trainable and trainable is not False,
                collections=weight_collections)
            graph.add_to_collection(self.shared_embedding_collection_name, embedding_weights)
        return safe_embedding_lookup_sparse(
            embedding_weights, sparse_tensors.id_tensor,
            sparse_weights=sparse_tensors.weight_tensor, combiner=self.combiner,
            name=f"{self.name}_weights", max_norm=self.max_norm)


class IndicatorColumn(DenseColumn, collections.namedtuple("_IndicatorColumn",
                                                          ["categorical_column"])):
    """A categorical column as a multi-hot [batch, num_buckets] tensor (summed weights for
    a weighted column)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        id_weight_pair = self.categorical_column._get_sparse_tensors(inputs)
        id_tensor = id_weight_pair.id_tensor
        weight_tensor = id_weight_pair.weight_tensor
        depth = int(self._variable_shape[-1])
        if weight_tensor is not None:
            # Ids outside the vocabulary (-1) carry no weight (TF slices them off).
            valid = greater_equal(id_tensor.values, 0)
            id_tensor = sparse_retain(id_tensor, valid)
            weight_tensor = sparse_retain(weight_tensor, valid)
            rows = cast(id_tensor.indices[:, 0], dtypes.int64)
            indices = transpose(stack([rows, cast(id_tensor.values, dtypes.int64)]))
            dense_shape = stack([id_tensor.dense_shape[0], cast(depth, dtypes.int64)])
            return scatter_nd(indices, weight_tensor.values, dense_shape)
        dense_id_tensor = sparse_tensor_to_dense(id_tensor, default_value=-1)
        one_hot_id_tensor = one_hot(dense_id_tensor, depth=depth, on_value=1.0,
                                    off_value=0.0)
        return reduce_sum(one_hot_id_tensor, axis=[-2])

    @property
    def _variable_shape(self):
        return TensorShape([1, self.categorical_column._num_buckets])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _refuse_sequence(self, "indicator_column")
        return inputs.get(self)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        """(multi-hot [batch, T, num_buckets], sequence_length) of a sequence column."""
        _require_sequence(self, "indicator_column")
        return _sequence_pair(self, inputs.get(self), inputs)


def _refuse_sequence(column, kind):
    if isinstance(column.categorical_column, SequenceCategoricalColumn):
        raise ValueError(
            f"In {kind}: {column.name}. categorical_column must not be of type "
            "_SequenceCategoricalColumn. Suggested fix A: If you wish to use input_layer, use "
            "a non-sequence categorical_column_with_*. Suggested fix B: If you wish to create "
            "sequence input, use sequence_input_layer instead of input_layer. Given (type "
            f"{type(column.categorical_column)}): {column.categorical_column}")


def _require_sequence(column, kind):
    if not isinstance(column.categorical_column, SequenceCategoricalColumn):
        raise ValueError(
            f"In {kind}: {column.name}. categorical_column must be of type "
            "_SequenceCategoricalColumn to use sequence_input_layer. Suggested fix: Use one "
            "of sequence_categorical_column_with_*. Given (type "
            f"{type(column.categorical_column)}): {column.categorical_column}")


def _sequence_pair(column, dense_tensor, inputs):
    ids = column.categorical_column._get_sparse_tensors(inputs).id_tensor
    return TensorSequenceLengthPair(dense_tensor, sequence_length_from_sparse_tensor(ids))
