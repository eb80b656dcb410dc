"""`input_layer`, `linear_model` and `make_parse_example_spec` of TF1's
`tf.feature_column`, over a _LazyBuilder that transforms each feature once; variables
named as TensorFlow names them (`input_layer/<column>_embedding/embedding_weights`,
`linear_model/<column>/weights`, `linear_model/bias_weights`)."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor_conversion import convert_to_tensor_or_sparse_tensor
from trainflow._src.feature_column.categorical import CategoricalColumn, DenseColumn, \
    FeatureColumn
from trainflow._src.ops.array.join import concat
from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.shape import expand_dims, reshape, shape, size
from trainflow._src.ops.array.shape import rank as rank_op
from trainflow._src.ops.control_flow.check_ops import assert_positive
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math.arith import equal
from trainflow._src.ops.math.arith import add_n, matmul
from trainflow._src.ops.nn.safe_embedding import safe_embedding_lookup_sparse
from trainflow._src.ops.nn.softmax import bias_add
from trainflow._src.ops.sparse.sparse_reshape import sparse_reshape
from trainflow._src.ops.state import init_ops
from trainflow._src.ops.state import variable_scope as vs

__all__ = ["input_layer", "linear_model", "make_parse_example_spec"]


class LazyBuilder:
    """Hands each feature column its input once: raw features by key (rank 1 made
    rank 2), transformed columns cached."""

    def __init__(self, features):
        self._features = features.copy()
        self._feature_tensors = {}

    def get(self, key):
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if isinstance(key, str):
            tensor = self._get_raw_feature_as_tensor(key)
            self._feature_tensors[key] = tensor
            return tensor
        if not isinstance(key, FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Given: {key}')
        transformed = key._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {key.name} is not supported.")
        self._feature_tensors[key] = transformed
        return transformed

    def _get_raw_feature_as_tensor(self, key):
        raw = self._features.get(key)
        if raw is None:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        if isinstance(raw, SparseTensorValue):
            raw = SparseTensor.from_value(raw)
        tensor = convert_to_tensor_or_sparse_tensor(raw)
        rank = (tensor.dense_shape.get_shape()[0] if isinstance(tensor, SparseTensor)
                else tensor.get_shape().ndims)
        rank = rank if isinstance(rank, int) or rank is None else rank.value
        if rank is not None:
            if rank == 0:
                raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {tensor}")
            return tensor if rank != 1 else _expand(tensor)
        # A rank known only at run time: checked, and a rank-1 feature expanded then.
        dyn_rank = size(tensor.dense_shape) if isinstance(tensor, SparseTensor) \
            else rank_op(tensor)
        with control_dependencies([assert_positive(
                dyn_rank, message=f"Feature (key: {key}) cannot have rank 0. Given: "
                                  f"{tensor}")]):
            return cond(equal(1, dyn_rank), lambda: _expand(tensor),
                        lambda: _identity(tensor))


def _identity(tensor):
    if isinstance(tensor, SparseTensor):
        return SparseTensor(identity(tensor.indices), identity(tensor.values),
                            identity(tensor.dense_shape))
    return identity(tensor)


def _expand(tensor):
    if isinstance(tensor, SparseTensor):
        return sparse_reshape(tensor, [tensor.dense_shape[0], -1])
    return expand_dims(tensor, -1)


def _normalize_feature_columns(feature_columns):
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    feature_columns = list(feature_columns)
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given "
                             f"(type {type(column)}): {column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    names = {}
    for column in feature_columns:
        if column.name in names:
            raise ValueError(f"Duplicate feature column name found for columns: {column} and "
                             f"{names[column.name]}. This usually means that these columns refer "
                             f"to same base feature. Either one must be discarded or a "
                             f"duplicated but renamed item must be inserted in features "
                             f"dict.")
        names[column.name] = column
    return feature_columns


def _verify_static_batch_size_equality(tensors, columns):
    """ValueError when two outputs have different known batch sizes."""
    expected, index = None, None
    for i, tensor in enumerate(tensors):
        dim = tensor.shape[0] if tensor.shape.rank else None
        size = getattr(dim, "value", dim)
        if size is None:
            continue
        if expected is None:
            expected, index = size, i
        elif expected != size:
            raise ValueError(f"Batch size (first dimension) of each feature must be same. "
                             f"Batch size of columns ({columns[index].name}, "
                             f"{columns[i].name}): ({expected}, {size})")


def _weight_collections(weight_collections):
    collections = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in collections:
            collections.append(key)
    return collections


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The dense [batch, sum of column widths] tensor of `feature_columns` (DenseColumns,
    in name order) over `features`.

    Raises:
      ValueError: for a column that is not dense, or an empty or duplicate list.
    """
    feature_columns = _normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, DenseColumn):
            raise ValueError(f"Items of feature_columns must be a _DenseColumn. You can wrap "
                             f"a categorical column with an embedding_column or "
                             f"indicator_column. Given: {column}")
    weight_collections = _weight_collections(weight_collections)
    with vs.variable_scope(None, default_name="input_layer", values=features.values()):
        builder = LazyBuilder(features)
        output_tensors = []
        ordered = sorted(feature_columns, key=lambda c: c.name)
        for column in ordered:
            with vs.variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(builder,
                                                  weight_collections=weight_collections,
                                                  trainable=trainable)
                num_elements = column._variable_shape.num_elements()
                output = reshape(tensor, shape=(shape(tensor)[0], num_elements))
                output_tensors.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_default_graph().get_collection(
                        GraphKeys.GLOBAL_VARIABLES, scope=vs.get_variable_scope().name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        _verify_static_batch_size_equality(output_tensors, ordered)
        return concat(output_tensors, 1)


def _weighted_sum(column, builder, units, sparse_combiner, weight_collections, trainable):
    if isinstance(column, CategoricalColumn):
        pair = column._get_sparse_tensors(builder, weight_collections=weight_collections,
                                          trainable=trainable)
        id_tensor = sparse_reshape(pair.id_tensor, [pair.id_tensor.dense_shape[0], -1])
        weight_tensor = pair.weight_tensor
        if weight_tensor is not None:
            weight_tensor = sparse_reshape(weight_tensor,
                                           [weight_tensor.dense_shape[0], -1])
        weight = vs.get_variable(name="weights", shape=(column._num_buckets, units),
                                 initializer=init_ops.zeros_initializer(),
                                 trainable=trainable, collections=weight_collections)
        return safe_embedding_lookup_sparse(weight, id_tensor, sparse_weights=weight_tensor,
                                            combiner=sparse_combiner, name="weighted_sum"), \
            weight
    tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                      trainable=trainable)
    num_elements = column._variable_shape.num_elements()
    tensor = reshape(tensor, shape=(shape(tensor)[0], num_elements))
    weight = vs.get_variable(name="weights", shape=[num_elements, units],
                             initializer=init_ops.zeros_initializer(), trainable=trainable,
                             collections=weight_collections)
    return matmul(tensor, weight, name="weighted_sum"), weight


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """The [batch, units] linear prediction of `feature_columns` over `features`: one
    zero-initialized `weights` variable per column plus `bias_weights`.

    Raises:
      ValueError: for columns that are neither dense nor categorical, or a bad combiner.
    """
    if sparse_combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"sparse_combiner must be one of 'sum', 'mean', 'sqrtn'. Given: "
                         f"{sparse_combiner}")
    feature_columns = _normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, (DenseColumn, CategoricalColumn)):
            raise ValueError(f"Items of feature_columns must be either a _DenseColumn or "
                             f"_CategoricalColumn. Given: {column}")
    weight_collections = _weight_collections(weight_collections)
    with vs.variable_scope(None, default_name="linear_model", values=features.values()):
        builder = LazyBuilder(features)
        weighted_sums = []
        ordered = sorted(feature_columns, key=lambda c: c.name)
        for column in ordered:
            with vs.variable_scope(None, default_name=column._var_scope_name):
                weighted_sum, weight = _weighted_sum(column, builder, units, sparse_combiner,
                                                     weight_collections, trainable)
                weighted_sums.append(weighted_sum)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [weight]
        _verify_static_batch_size_equality(weighted_sums, ordered)
        predictions_no_bias = add_n(weighted_sums, name="weighted_sum_no_bias")
        bias = vs.get_variable("bias_weights", shape=[units], dtype=dtypes.float32,
                               initializer=init_ops.zeros_initializer(), trainable=trainable,
                               collections=weight_collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return bias_add(predictions_no_bias, bias, name="weighted_sum")


def make_parse_example_spec(feature_columns):
    """The parse_example spec (key -> FixedLenFeature / VarLenFeature) of the columns.

    Raises:
      ValueError: for a non-column or two different specs of one key.
    """
    result = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: "
                             f"{column}")
        config = column._parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key "
                                 f"{key}. Given {value} and {result[key]}")
        result.update(config)
    return result


def transform_features(features, feature_columns):
    """{column: its transformed tensor} of `feature_columns` over `features` (TF's
    `_transform_features`)."""
    feature_columns = _normalize_feature_columns(feature_columns)
    outputs = {}
    with name_scope(None, default_name="transform_features", values=features.values()):
        builder = LazyBuilder(features)
        for column in sorted(feature_columns, key=lambda c: c.name):
            with name_scope(None, default_name=column.name):
                outputs[column] = builder.get(column)
    return outputs
