"""The sequence feature columns of `tf.feature_column` (TF's sequence_feature_column.py):
sequence_numeric_column and the sequence_categorical_column_with_* wrappers, whose ids are
rank 3 ([batch, time, k]) so embeddings are not combined across time steps. Their dense
form is a (dense_tensor [batch, T, ...], sequence_length [batch]) pair, what tf.contrib's
sequence_input_layer consumes."""
import collections

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.feature_column.categorical import CategoricalColumn, DenseColumn, \
    IdWeightPair
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import ones_like, zeros
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import reshape, shape
from trainflow._src.ops.io.parsing_config import VarLenFeature
from trainflow._src.ops.math.arith import ceil
from trainflow._src.ops.math.reductions import reduce_prod
from trainflow._src.ops.math.segment import segment_max
from trainflow._src.ops.sparse.sparse_ops import sparse_tensor_to_dense
from trainflow._src.ops.sparse.sparse_reshape import sparse_reshape

TensorSequenceLengthPair = collections.namedtuple("TensorSequenceLengthPair",
                                                  ("dense_tensor", "sequence_length"))


def sequence_length_from_sparse_tensor(sp_tensor, num_elements=1):
    """Each row's length: its largest column index + 1, grouped by `num_elements`; rows
    past the last one with values get 0."""
    with name_scope(None, "sequence_length") as scope:
        row_ids = sp_tensor.indices[:, 0]
        column_ids = sp_tensor.indices[:, 1]
        column_ids += ones_like(column_ids)
        seq_length = segment_max(column_ids, segment_ids=row_ids)
        seq_length = cast(ceil(seq_length / num_elements), dtypes.int64)
        n_pad = shape(sp_tensor)[:1] - shape(seq_length)[:1]
        padding = zeros(n_pad, dtype=seq_length.dtype)
        return concat([seq_length, padding], axis=0, name=scope)


class SequenceCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column over sequences: its ids reshaped to [batch, T, k]."""

    @property
    def name(self):
        return self.categorical_column.name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    parse_example_spec = _parse_example_spec

    def _transform_feature(self, inputs):
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    num_buckets = _num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections,
                                                           trainable)
        id_tensor, weight_tensor = pair.id_tensor, pair.weight_tensor
        # The third dimension is computed, not -1, so that empty batches reshape too.
        ids_shape = shape(id_tensor)
        target = [ids_shape[0], ids_shape[1], reduce_prod(ids_shape[2:])]
        id_tensor = sparse_reshape(id_tensor, target)
        if weight_tensor is not None:
            weight_tensor = sparse_reshape(weight_tensor, target)
        return IdWeightPair(id_tensor, weight_tensor)


class SequenceNumericColumn(DenseColumn, collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype",
                                  "normalizer_fn"))):
    """Sequences of numeric values of `shape` per time step."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    parse_example_spec = _parse_example_spec

    def _transform_feature(self, inputs):
        tensor = inputs.get(self.key)
        return self.normalizer_fn(tensor) if self.normalizer_fn is not None else tensor

    @property
    def _variable_shape(self):
        return TensorShape(self.shape)

    variable_shape = _variable_shape

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise ValueError(f"In sequence_numeric_column: {self.name}. A sequence column gives "
                         "a (dense_tensor, sequence_length) pair: use sequence_input_layer "
                         "instead of input_layer.")

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        """(values [batch, T] + shape padded with default_value, sequence_length)."""
        sp_tensor = inputs.get(self)
        dense = sparse_tensor_to_dense(sp_tensor, default_value=self.default_value)
        dense = reshape(dense, concat([shape(dense)[:1], [-1], list(self.shape)], axis=0))
        num_elements = (self._variable_shape.num_elements()
                        if sp_tensor.shape.ndims == 2 else 1)
        return TensorSequenceLengthPair(
            dense, sequence_length_from_sparse_tensor(sp_tensor, num_elements=num_elements))
