"""Port of TensorFlow's feature_column_test (python/feature_column/feature_column_test.py),
part 2: LinearModelTest and InputLayerTest.
Each test names the TF test method it ports."""

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.feature_column.categorical import FeatureColumn

fc = tf.feature_column


def _initialized_session():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(tf.tables_initializer())
    return sess


def _linear_var(name):
    return [v for v in tf.global_variables() if v.op.name == f"linear_model/{name}"][0]


_WIRE = {"values": ["omar", "stringer", "marlo"], "indices": [[0, 0], [1, 0], [1, 1]],
         "dense_shape": [2, 2]}


# -- LinearModelTest -------------------------------------------------------------------------
def test_linear_model_argument_errors():
    # test_raises_if_empty_feature_columns, test_should_be_feature_column,
    # test_should_be_dense_or_categorical_column, test_does_not_support_dict_columns,
    # test_raises_if_duplicate_name
    class NotSupportedColumn(FeatureColumn):
        name = "NotSupportedColumn"
        _parse_example_spec = None

        def _transform_feature(self, cache):
            return None

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="feature_columns must not be empty"):
            fc.linear_model(features={}, feature_columns=[])
        with pytest.raises(ValueError, match="must be a _FeatureColumn"):
            fc.linear_model(features={"a": [[0]]}, feature_columns="NotSupported")
        with pytest.raises(ValueError, match="must be either a _DenseColumn or "
                                             "_CategoricalColumn"):
            fc.linear_model(features={"a": [[0]]}, feature_columns=[NotSupportedColumn()])
        with pytest.raises(ValueError, match="Expected feature_columns to be iterable, found "
                                             "dict."):
            fc.linear_model(features={"a": [[0]]},
                            feature_columns={"a": fc.numeric_column("a")})
        with pytest.raises(ValueError, match="Duplicate feature column name found for "
                                             "columns"):
            fc.linear_model(features={"a": [[0]]},
                            feature_columns=[fc.numeric_column("a"), fc.numeric_column("a")])


@pytest.mark.parametrize("columns, want", [  # test_dense_bias, test_sparse_bias,
    (["price"], [[15.0], [55.0]]),  # test_dense_and_sparse_bias
    (["wire_cast"], [[1005.0], [10015.0]]),
    (["wire_cast", "price"], [[1015.0], [10065.0]]),
])
def test_linear_model_bias(columns, want):
    cols = {"price": fc.numeric_column("price"),
            "wire_cast": fc.categorical_column_with_hash_bucket("wire_cast", 4)}
    with tf.Graph().as_default():
        features = {"price": [[1.0], [5.0]], "wire_cast": tf.SparseTensor(**_WIRE)}
        predictions = fc.linear_model(features, [cols[c] for c in columns])
        with _initialized_session() as sess:
            assert sess.run(_linear_var("bias_weights")).tolist() == [0.0]
            if "wire_cast" in columns:  # omar, stringer, marlo hash to 2, 0, 3
                sess.run(_linear_var("wire_cast/weights").assign([[10.0], [100.0], [1000.0],
                                                                  [10000.0]]))
            if "price" in columns:
                sess.run(_linear_var("price/weights").assign([[10.0]]))
            sess.run(_linear_var("bias_weights").assign([5.0]))
            np.testing.assert_allclose(sess.run(predictions), want)


def test_linear_model_dense_and_sparse_column():  # test_dense_and_sparse_column
    from trainflow._src.feature_column.categorical import (CategoricalColumn, DenseColumn,
                                                           IdWeightPair)

    class _DenseAndSparseColumn(DenseColumn, CategoricalColumn):
        name = "dense_and_sparse_column"
        _parse_example_spec = None
        _num_buckets = 4

        def _transform_feature(self, inputs):
            return inputs.get(self.name)

        def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
            raise ValueError("Should not use this method.")

        def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
            return IdWeightPair(tf.SparseTensor(indices=[[0, 0], [1, 0], [1, 1]],
                                                values=[2, 0, 3], dense_shape=[2, 2]), None)

    column = _DenseAndSparseColumn()
    with tf.Graph().as_default():
        predictions = fc.linear_model({column.name: tf.SparseTensor(**_WIRE)}, [column])
        with _initialized_session() as sess:
            sess.run(_linear_var("dense_and_sparse_column/weights").assign(
                [[10.0], [100.0], [1000.0], [10000.0]]))
            sess.run(_linear_var("bias_weights").assign([5.0]))
            np.testing.assert_allclose(sess.run(predictions), [[1005.0], [10015.0]])


@pytest.mark.parametrize("shape, features, units, weights, bias, want", [
    # test_dense_multi_output
    (1, [[1.0], [5.0]], 3, [[10.0, 100.0, 1000.0]], [5.0, 6.0, 7.0],
     [[15.0, 106.0, 1007.0], [55.0, 506.0, 5007.0]]),
    # test_dense_multi_dimension
    (2, [[1.0, 2.0], [5.0, 6.0]], 1, [[10.0], [100.0]], [0.0], [[210.0], [650.0]]),
    # test_dense_multi_dimension_multi_output
    (2, [[1.0, 2.0], [5.0, 6.0]], 3, [[1.0, 2.0, 3.0], [10.0, 100.0, 1000.0]],
     [2.0, 3.0, 4.0], [[23.0, 205.0, 2007.0], [67.0, 613.0, 6019.0]]),
    # test_dense_reshaping
    ([1, 2], [[[1.0, 2.0]], [[5.0, 6.0]]], 1, [[10.0], [100.0]], [0.0], [[210.0], [650.0]]),
])
def test_linear_model_dense_outputs(shape, features, units, weights, bias, want):
    price = fc.numeric_column("price", shape=shape)
    with tf.Graph().as_default():
        predictions = fc.linear_model({"price": features}, [price], units=units)
        var, b = _linear_var("price/weights"), _linear_var("bias_weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(b), np.zeros(units))
            np.testing.assert_allclose(sess.run(var), np.zeros(np.shape(weights)))
            sess.run([var.assign(weights), b.assign(bias)])
            np.testing.assert_allclose(sess.run(predictions), want)


@pytest.mark.parametrize("units, combiner, weights, bias, want", [
    # test_sparse_multi_output
    (3, "sum", [[10.0, 11.0, 12.0], [100.0, 110.0, 120.0], [1000.0, 1100.0, 1200.0],
                [10000.0, 11000.0, 12000.0]], [5.0, 6.0, 7.0],
     [[1005.0, 1106.0, 1207.0], [10015.0, 11017.0, 12019.0]]),
    # test_sparse_combiner
    (1, "mean", [[10.0], [100.0], [1000.0], [10000.0]], [5.0], [[1005.0], [5010.0]]),
])
def test_linear_model_sparse_outputs(units, combiner, weights, bias, want):
    wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
    with tf.Graph().as_default():
        predictions = fc.linear_model({"wire_cast": tf.SparseTensor(**_WIRE)}, [wire_cast],
                                      units=units, sparse_combiner=combiner)
        var, b = _linear_var("wire_cast/weights"), _linear_var("bias_weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(var), np.zeros((4, units)))
            sess.run([var.assign(weights), b.assign(bias)])
            np.testing.assert_allclose(sess.run(predictions), want)


def test_linear_model_sparse_multi_rank():  # test_sparse_multi_rank
    wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
    with tf.Graph().as_default():
        wire_tensor = tf.sparse_placeholder(tf.string)
        wire_value = tf.SparseTensorValue(
            values=["omar", "stringer", "marlo", "omar"],
            indices=[[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 1]], dense_shape=[2, 2, 2])
        predictions = fc.linear_model({"wire_cast": wire_tensor}, [wire_cast])
        var = _linear_var("wire_cast/weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions, {wire_tensor: wire_value}),
                                       np.zeros((2, 1)))
            sess.run(var.assign([[10.0], [100.0], [1000.0], [10000.0]]))
            np.testing.assert_allclose(sess.run(predictions, {wire_tensor: wire_value}),
                                       [[1010.0], [11000.0]])


def test_linear_model_raises_if_shape_mismatch():  # test_raises_if_shape_mismatch
    # r1.8 failed at run time ("requested shape has 4"); TF 2.21's shape inference, like
    # trainflow's, already refuses the Reshape when the graph is built.
    price = fc.numeric_column("price", shape=2)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot reshape a tensor with 2 elements to "
                                             r"shape \[2,2\]"):
            fc.linear_model({"price": [[1.0], [5.0]]}, [price])


def test_linear_model_dense_multi_column():  # test_dense_multi_column
    price1, price2 = fc.numeric_column("price1", shape=2), fc.numeric_column("price2")
    with tf.Graph().as_default():
        predictions = fc.linear_model({"price1": [[1.0, 2.0], [5.0, 6.0]],
                                       "price2": [[3.0], [4.0]]}, [price1, price2])
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions), [[0.0], [0.0]])
            sess.run([_linear_var("price1/weights").assign([[10.0], [100.0]]),
                      _linear_var("price2/weights").assign([[1000.0]]),
                      _linear_var("bias_weights").assign([7.0])])
            np.testing.assert_allclose(sess.run(predictions), [[3217.0], [4657.0]])


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_linear_model_collections_and_trainable(sparse):
    # test_{dense,sparse}_collection, test_{dense,sparse}_trainable_default,
    # test_{dense,sparse}_trainable_false
    column = fc.categorical_column_with_hash_bucket("wire_cast", 4) if sparse \
        else fc.numeric_column("price")
    feature = tf.SparseTensorValue(values=["omar"], indices=[[0, 0]], dense_shape=[1, 1]) \
        if sparse else [[1.0], [5.0]]
    with tf.Graph().as_default() as g:
        fc.linear_model({column.name: feature}, [column], weight_collections=["my-vars"])
        bias, var = _linear_var("bias_weights"), _linear_var(f"{column.name}/weights")
        assert bias in g.get_collection("my-vars") and var in g.get_collection("my-vars")
        trainable = g.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
        assert bias in trainable and var in trainable
    with tf.Graph().as_default() as g:
        fc.linear_model({column.name: feature}, [column], trainable=False)
        assert g.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == []


def test_linear_model_column_order():  # test_column_order
    price_a, price_b = fc.numeric_column("price_a"), fc.numeric_column("price_b")
    wire_cast = fc.categorical_column_with_hash_bucket("wire_cast", 4)
    for columns in ([price_a, wire_cast, price_b], [wire_cast, price_b, price_a]):
        with tf.Graph().as_default() as g:
            features = {"price_a": [[1.0]], "price_b": [[3.0]], "wire_cast": tf.SparseTensor(
                values=["omar"], indices=[[0, 0]], dense_shape=[1, 1])}
            fc.linear_model(features, columns, weight_collections=["my-vars"])
            names = [v.name for v in g.get_collection("my-vars")]
            assert "price_a" in names[0] and "price_b" in names[1] and "wire_cast" in names[2]


def test_linear_model_static_batch_size_mismatch():
    # test_static_batch_size_mismatch, test_subset_of_static_batch_size_mismatch
    price1, price2, price3 = (fc.numeric_column(f"price{i}") for i in (1, 2, 3))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Batch size \(first dimension\) of each feature "
                                             r"must be same."):
            fc.linear_model({"price1": [[1.0], [5.0], [7.0]], "price2": [[3.0], [4.0]]},
                            [price1, price2])
        with pytest.raises(ValueError, match=r"Batch size \(first dimension\) of each feature "
                                             r"must be same."):
            fc.linear_model({"price1": tf.placeholder(dtype=tf.int64),
                             "price2": [[3.0], [4.0]], "price3": [[3.0], [4.0], [5.0]]},
                            [price1, price2, price3])


def test_linear_model_runtime_batch_size():
    # test_runtime_batch_size_mismatch, test_runtime_batch_size_matches
    price1, price2 = fc.numeric_column("price1"), fc.numeric_column("price2")
    with tf.Graph().as_default():
        features = {"price1": tf.placeholder(dtype=tf.int64), "price2": [[3.0], [4.0]]}
        predictions = fc.linear_model(features, [price1, price2])
        with _initialized_session() as sess:
            with pytest.raises(tf.errors.OpError, match="must have the same size and shape"):
                sess.run(predictions, feed_dict={features["price1"]: [[1.0], [5.0], [7.0]]})
    with tf.Graph().as_default():
        features = {"price1": tf.placeholder(dtype=tf.int64),
                    "price2": tf.placeholder(dtype=tf.int64)}
        predictions = fc.linear_model(features, [price1, price2])
        with _initialized_session() as sess:
            sess.run(predictions, feed_dict={features["price1"]: [[1.0], [5.0]],
                                             features["price2"]: [[1.0], [5.0]]})


def _vocab_body_style():
    return fc.categorical_column_with_vocabulary_list(
        "body-style", vocabulary_list=["hardtop", "wagon", "sedan"])


@pytest.mark.parametrize("placeholders", [False, True], ids=["static", "unknown_rank"])
def test_linear_model_with_1d_features(placeholders):
    # test_with_1d_sparse_tensor, test_with_1d_unknown_shape_sparse_tensor
    price_buckets = fc.bucketized_column(fc.numeric_column("price"), [0.0, 10.0, 100.0])
    body_style = _vocab_body_style()
    price_data = np.array([-1.0, 12.0], np.float32)
    body_data = tf.SparseTensorValue(indices=((0,), (1,)), values=("sedan", "hardtop"),
                                     dense_shape=(2,))
    with tf.Graph().as_default():
        if placeholders:
            features = {"price": tf.placeholder(tf.float32),
                        "body-style": tf.sparse_placeholder(tf.string)}
            feed = {features["price"]: price_data, features["body-style"]: body_data}
        else:
            features = {"price": tf.constant(price_data),
                        "body-style": tf.SparseTensor.from_value(body_data)}
            feed = None
        net = fc.linear_model(features, [price_buckets, body_style])
        with _initialized_session() as sess:
            sess.run([_linear_var("price_bucketized/weights").assign(
                [[10.0], [100.0], [1000.0], [10000.0]]),
                _linear_var("body-style/weights").assign([[-10.0], [-100.0], [-1000.0]]),
                _linear_var("bias_weights").assign([5.0])])
            np.testing.assert_allclose(sess.run(net, feed),
                                       [[10 - 1000 + 5.0], [1000 - 10 + 5.0]])


@pytest.mark.parametrize("layer", ["linear_model", "input_layer"])
def test_with_rank_0_feature(layer):  # {LinearModel,InputLayer}Test.test_with_rank_0_feature
    price = fc.numeric_column("price")
    build = getattr(fc, layer)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Feature .* cannot have rank 0"):
            build({"price": tf.constant(0)}, [price])
        features = {"price": tf.placeholder(tf.float32)}
        net = build(features, [price])
        assert net.shape[1] == 1
        with _initialized_session() as sess:
            with pytest.raises(tf.errors.OpError, match="Feature .* cannot have rank 0"):
                sess.run(net, feed_dict={features["price"]: np.array(1)})


# -- InputLayerTest --------------------------------------------------------------------------
def test_input_layer_argument_errors():
    # test_raises_if_empty_feature_columns, test_should_be_dense_column,
    # test_does_not_support_dict_columns, test_raises_if_duplicate_name,
    # test_fails_for_categorical_column
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="feature_columns must not be empty"):
            fc.input_layer(features={}, feature_columns=[])
        with pytest.raises(ValueError, match="must be a _DenseColumn"):
            fc.input_layer(features={"a": [[0]]}, feature_columns=[
                fc.categorical_column_with_hash_bucket("wire_cast", 4)])
        with pytest.raises(ValueError, match="Expected feature_columns to be iterable, found "
                                             "dict."):
            fc.input_layer(features={"a": [[0]]}, feature_columns={"a": fc.numeric_column("a")})
        with pytest.raises(ValueError, match="Duplicate feature column name found for "
                                             "columns"):
            fc.input_layer(features={"a": [[0]]},
                           feature_columns=[fc.numeric_column("a"), fc.numeric_column("a")])
        with pytest.raises(ValueError, match="must be a _DenseColumn"):
            fc.input_layer({"animal": tf.SparseTensor(indices=[[0, 0], [0, 1]], values=[1, 2],
                                                      dense_shape=[1, 2])},
                           [fc.categorical_column_with_identity("animal", num_buckets=4)])


@pytest.mark.parametrize("columns, features, want", [
    ([("price", 1)], {"price": [[1.0], [5.0]]}, [[1.0], [5.0]]),  # test_one_column
    ([("price", 2)], {"price": [[1.0, 2.0], [5.0, 6.0]]}, [[1.0, 2.0], [5.0, 6.0]]),
    # test_multi_dimension
    ([("price", [1, 2])], {"price": [[[1.0, 2.0]], [[5.0, 6.0]]]}, [[1.0, 2.0], [5.0, 6.0]]),
    # test_reshaping
    ([("price1", 2), ("price2", 1)], {"price1": [[1.0, 2.0], [5.0, 6.0]],
                                      "price2": [[3.0], [4.0]]},
     [[1.0, 2.0, 3.0], [5.0, 6.0, 4.0]]),  # test_multi_column
    ([("price_b", 1), ("price_a", 1)], {"price_a": [[1.0]], "price_b": [[3.0]]},
     [[1.0, 3.0]]),  # test_column_order
])
def test_input_layer_numeric(columns, features, want):
    with tf.Graph().as_default():
        net = fc.input_layer(features, [fc.numeric_column(k, shape=s) for k, s in columns])
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(net), want)


def test_input_layer_raises_if_shape_mismatch():  # test_raises_if_shape_mismatch
    # As TF 2.21 (r1.8 failed only at run time): the Reshape is refused when built.
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot reshape a tensor with 2 elements"):
            fc.input_layer({"price": [[1.0], [5.0]]}, [fc.numeric_column("price", shape=2)])


def test_input_layer_batch_sizes():
    # test_static_batch_size_mismatch, test_subset_of_static_batch_size_mismatch,
    # test_runtime_batch_size_mismatch, test_runtime_batch_size_matches
    price1, price2, price3 = (fc.numeric_column(f"price{i}") for i in (1, 2, 3))
    message = r"Batch size \(first dimension\) of each feature must be same."
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            fc.input_layer({"price1": [[1.0], [5.0], [7.0]], "price2": [[3.0], [4.0]]},
                           [price1, price2])
        with pytest.raises(ValueError, match=message):
            fc.input_layer({"price1": tf.placeholder(dtype=tf.int64), "price2": [[3.0], [4.0]],
                            "price3": [[3.0], [4.0], [5.0]]}, [price1, price2, price3])
        features = {"price1": tf.placeholder(dtype=tf.int64), "price2": [[3.0], [4.0]]}
        net = fc.input_layer(features, [price1, price2])
        with _initialized_session() as sess:
            # (r1.8's ConcatOp said "Dimensions of inputs should match"; TF 2.21 says this)
            with pytest.raises(tf.errors.OpError, match="Dimension 0 in both shapes must be "
                                                        "equal"):
                sess.run(net, feed_dict={features["price1"]: [[1.0], [5.0], [7.0]]})
        features = {"price1": tf.placeholder(dtype=tf.int64),
                    "price2": tf.placeholder(dtype=tf.int64)}
        net = fc.input_layer(features, [price1, price2])
        with _initialized_session() as sess:
            sess.run(net, feed_dict={features["price1"]: [[1.0], [5.0]],
                                     features["price2"]: [[1.0], [5.0]]})


_EMBEDDING_VALUES = ((1.0, 2.0, 3.0, 4.0, 5.0), (6.0, 7.0, 8.0, 9.0, 10.0),
                     (11.0, 12.0, 13.0, 14.0, 15.0))


def _embedding_initializer(shape, dtype=None, partition_info=None):
    return tf.constant(_EMBEDDING_VALUES, dtype=dtype)


@pytest.mark.parametrize("placeholders", [False, True], ids=["static", "unknown_rank"])
def test_input_layer_with_1d_features(placeholders):
    # test_with_1d_sparse_tensor, test_with_1d_unknown_shape_sparse_tensor
    price = fc.numeric_column("price")
    one_hot_body_style = fc.indicator_column(_vocab_body_style())
    country = fc.categorical_column_with_vocabulary_list("country", ["US", "JP", "CA"])
    embedded_country = fc.embedding_column(country, dimension=5,
                                           initializer=_embedding_initializer)
    body_data = tf.SparseTensorValue(indices=((0,), (1,)), values=("sedan", "hardtop"),
                                     dense_shape=(2,))
    with tf.Graph().as_default():
        if placeholders:
            features = {"price": tf.placeholder(tf.float32),
                        "body-style": tf.sparse_placeholder(tf.string)}
            feed = {features["price"]: np.array([11.0, 12.0]), features["body-style"]:
                    body_data}
            net = fc.input_layer(features, [price, one_hot_body_style])
            want = [[0.0, 0.0, 1.0, 11.0], [1.0, 0.0, 0.0, 12.0]]
        else:
            features = {"price": tf.constant([11.0, 12.0]),
                        "body-style": tf.SparseTensor.from_value(body_data),
                        "country": tf.constant(["CA", "US"])}
            feed = None
            net = fc.input_layer(features, [price, one_hot_body_style, embedded_country])
            want = [[0.0, 0.0, 1.0, 11.0, 12.0, 13.0, 14.0, 15.0, 11.0],
                    [1.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 12.0]]
        assert net.shape[1] == len(want[0])
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(net, feed), want)
