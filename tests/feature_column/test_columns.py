"""Port of TensorFlow's feature_column_test (python/feature_column/feature_column_test.py),
part 1: LazyColumnTest and the column tests (numeric, bucketized, hashed, crossed ...).
Each test names the TF test method it ports."""
import copy

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.feature_column.categorical import FeatureColumn
from trainflow._src.feature_column.layers import LazyBuilder, transform_features

fc = tf.feature_column


def _initialized_session():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    sess.run(tf.tables_initializer())
    return sess


def _linear_var(name):
    return [v for v in tf.global_variables() if v.op.name == f"linear_model/{name}"][0]


def _example(**floats):
    return tf.train.Example(features=tf.train.Features(feature={
        k: tf.train.Feature(float_list=tf.train.FloatList(value=v))
        for k, v in floats.items()})).SerializeToString()


# -- LazyColumnTest --------------------------------------------------------------------------
class _Counter(FeatureColumn):
    def __init__(self, out=None):
        self.num_transform = 0
        self.out = out

    name = "TransformCounter"
    _parse_example_spec = None

    def _transform_feature(self, cache):
        self.num_transform += 1
        return self.out if self.out is not None else cache.get("a")


def test_transformations_called_once():  # test_transormations_called_once
    with tf.Graph().as_default():
        builder = LazyBuilder(features={"a": [[2], [3.0]]})
        column = _Counter()
        builder.get(column)
        builder.get(column)
        assert column.num_transform == 1


def test_returns_transform_output():  # test_returns_transform_output
    builder = LazyBuilder(features={"a": [[2], [3.0]]})
    column = _Counter("Output")
    assert builder.get(column) == "Output" and builder.get(column) == "Output"


def test_does_not_pollute_given_features_dict():  # test_does_not_pollute_given_features_dict
    features = {"a": [[2], [3.0]]}
    LazyBuilder(features=features).get(_Counter("Output"))
    assert list(features) == ["a"]


def test_error_if_feature_is_not_found():  # test_error_if_feature_is_not_found
    with pytest.raises(ValueError, match="bbb is not in features dictionary"):
        LazyBuilder(features={"a": [[2], [3.0]]}).get("bbb")


def test_not_supported_feature_column():  # test_not_supported_feature_column
    class NotAProperColumn(FeatureColumn):
        name = "NotAProperColumn"
        _parse_example_spec = None

        def _transform_feature(self, cache):
            return None

    with pytest.raises(ValueError, match="NotAProperColumn is not supported"):
        LazyBuilder(features={"a": [[2], [3.0]]}).get(NotAProperColumn())


def test_key_should_be_string_or_feature_column():  # test_key_should_be_string_or_feature_colum
    with pytest.raises(TypeError, match='"key" must be either a "str" or "_FeatureColumn".'):
        LazyBuilder(features={"a": [[2], [3.0]]}).get(object())


# -- NumericColumnTest -----------------------------------------------------------------------
def test_numeric_defaults():  # test_defaults
    a = fc.numeric_column("aaa")
    assert (a.key, a.shape, a.default_value, a.dtype, a.normalizer_fn) == (
        "aaa", (1,), None, tf.float32, None)


@pytest.mark.parametrize("kwargs, shape, default", [
    ({"shape": [1, 2], "default_value": [[3, 2.0]]}, (1, 2), ((3.0, 2.0),)),  # ..._as_tuple
    ({"default_value": 4.0}, (1,), (4.0,)),  # test_default_value_saved_as_tuple
    ({"shape": [2, 3], "default_value": 2.0}, (2, 3), ((2.0,) * 3, (2.0,) * 3)),
    # test_scalar_deafult_value_fills_the_shape
    ({"shape": [1, 2], "default_value": np.array([[3.0, 2.0]])}, (1, 2), ((3.0, 2.0),)),
    # test_numpy_default_value
])
def test_numeric_shape_and_default_saved_as_tuples(kwargs, shape, default):
    # test_shape_saved_as_tuple, test_default_value_saved_as_tuple,
    # test_scalar_deafult_value_fills_the_shape, test_numpy_default_value
    a = fc.numeric_column("aaa", **kwargs)
    assert a.shape == shape and a.default_value == default


def test_shape_and_default_value_compatibility():  # test_shape_and_default_value_compatibility
    fc.numeric_column("aaa", shape=[2], default_value=[1, 2.0])
    fc.numeric_column("aaa", shape=[3, 2], default_value=[[2, 3], [1, 2], [2, 3.0]])
    for shape, value in (([2], [1, 2, 3.0]), ([3, 1], [[2, 3], [1, 2], [2, 3.0]]),
                         ([3, 3], [[2, 3], [1, 2], [2, 3.0]])):
        with pytest.raises(ValueError, match="The shape of default_value"):
            fc.numeric_column("aaa", shape=shape, default_value=value)


def test_default_value_type_check():  # test_default_value_type_check
    fc.numeric_column("aaa", shape=[2], default_value=[1, 2.0], dtype=tf.float32)
    fc.numeric_column("aaa", shape=[2], default_value=[1, 2], dtype=tf.int32)
    with pytest.raises(TypeError, match="must be compatible with dtype"):
        fc.numeric_column("aaa", shape=[2], default_value=[1, 2.0], dtype=tf.int32)
    with pytest.raises(TypeError, match="default_value must be compatible with dtype"):
        fc.numeric_column("aaa", default_value=["string"])


def test_shape_must_be_positive_integer():  # test_shape_must_be_positive_integer
    with pytest.raises(TypeError, match="shape dimensions must be integer"):
        fc.numeric_column("aaa", shape=[1.0])
    with pytest.raises(ValueError, match="shape dimensions must be greater than 0"):
        fc.numeric_column("aaa", shape=[0])


def test_dtype_is_convertible_to_float():  # test_dtype_is_convertable_to_float
    with pytest.raises(ValueError, match="dtype must be convertible to float"):
        fc.numeric_column("aaa", dtype=tf.string)


def test_numeric_parse_spec():  # test_parse_spec
    a = fc.numeric_column("aaa", shape=[2, 3], dtype=tf.int32)
    assert a._parse_example_spec == {"aaa": tf.FixedLenFeature((2, 3), dtype=tf.int32)}


@pytest.mark.parametrize("default, want", [  # test_parse_example_{no,with}_default_value
    (None, [[20.0, 110.0]]), (11.0, [[20.0, 110.0], [11.0, 11.0]])])
def test_numeric_parse_example(default, want):
    price = fc.numeric_column("price", shape=[2], default_value=default)
    serialized = [_example(price=[20.0, 110.0])]
    if default is not None:
        serialized.append(_example(something_else=[20.0, 110.0]))
    with tf.Graph().as_default(), tf.Session() as sess:
        features = tf.parse_example(serialized=serialized,
                                    features=fc.make_parse_example_spec([price]))
        assert "price" in features
        np.testing.assert_array_equal(sess.run(features["price"]), want)


def test_normalizer_fn_must_be_callable():  # test_normalizer_fn_must_be_callable
    with pytest.raises(TypeError, match="must be a callable"):
        fc.numeric_column("price", normalizer_fn="NotACallable")


def test_normalizer_fn_transform_feature():  # test_normalizer_fn_transform_feature
    price = fc.numeric_column("price", shape=[2], normalizer_fn=lambda t: t + 2.0)
    with tf.Graph().as_default(), tf.Session() as sess:
        output = transform_features({"price": [[1.0, 2.0], [5.0, 6.0]]}, [price])
        np.testing.assert_array_equal(sess.run(output[price]), [[3.0, 4.0], [7.0, 8.0]])


def test_numeric_get_dense_tensor():  # test_get_dense_tensor
    price = fc.numeric_column("price", shape=[2], normalizer_fn=lambda t: t + 2.0)
    with tf.Graph().as_default():
        builder = LazyBuilder({"price": [[1.0, 2.0], [5.0, 6.0]]})
        assert builder.get(price) is price._get_dense_tensor(builder)


def test_sparse_tensor_not_supported():  # test_sparse_tensor_not_supported
    price = fc.numeric_column("price")
    with tf.Graph().as_default():
        builder = LazyBuilder({"price": tf.SparseTensor(indices=[[0, 0]], values=[0.3],
                                                        dense_shape=[1, 1])})
        with pytest.raises(ValueError, match="must be a Tensor"):
            price._transform_feature(builder)


def test_numeric_deep_copy():  # test_deep_copy
    a_copy = copy.deepcopy(fc.numeric_column("aaa", shape=[1, 2], default_value=[[3.0, 2.0]]))
    assert (a_copy.name, a_copy.shape, a_copy.default_value) == ("aaa", (1, 2), ((3.0, 2.0),))


def test_numeric_linear_model():  # NumericColumnTest.test_linear_model
    price = fc.numeric_column("price")
    with tf.Graph().as_default():
        predictions = fc.linear_model({"price": [[1.0], [5.0]]}, [price])
        bias, price_var = _linear_var("bias_weights"), _linear_var("price/weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(bias), [0.0])
            np.testing.assert_allclose(sess.run(price_var), [[0.0]])
            np.testing.assert_allclose(sess.run(predictions), [[0.0], [0.0]])
            sess.run(price_var.assign([[10.0]]))
            np.testing.assert_allclose(sess.run(predictions), [[10.0], [50.0]])


# -- BucketizedColumnTest --------------------------------------------------------------------
def test_invalid_source_column_type_and_shape():
    # test_invalid_source_column_type, test_invalid_source_column_shape
    with pytest.raises(ValueError, match="source_column must be a column generated with "
                                         "numeric_column"):
        fc.bucketized_column(fc.categorical_column_with_hash_bucket("aaa", 10), [0, 1])
    with pytest.raises(ValueError, match="source_column must be one-dimensional column"):
        fc.bucketized_column(fc.numeric_column("aaa", shape=[2, 3]), [0, 1])


@pytest.mark.parametrize("boundaries", [None, 1.0, [1, 0], [1, 1]])
def test_invalid_boundaries(boundaries):  # test_invalid_boundaries
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("aaa"), boundaries=boundaries)


def test_bucketized_name_spec_shapes():
    # test_name, test_parse_spec, test_variable_shape, test_num_buckets
    b = fc.bucketized_column(fc.numeric_column("aaa", shape=[2], dtype=tf.int32), [0, 1])
    assert b.name == "aaa_bucketized"
    assert b._parse_example_spec == {"aaa": tf.FixedLenFeature((2,), dtype=tf.int32)}
    assert tuple(b._variable_shape.as_list()) == (2, 3)
    assert b._num_buckets == 6


def test_bucketized_parse_example():  # test_parse_example
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0, 50])
    with tf.Graph().as_default(), tf.Session() as sess:
        features = tf.parse_example(serialized=[_example(price=[20.0, 110.0])],
                                    features=fc.make_parse_example_spec([bucketized]))
        np.testing.assert_array_equal(sess.run(features["price"]), [[20.0, 110.0]])


def test_bucketized_transform_feature():  # test_transform_feature
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0, 2, 4, 6])
    with tf.Graph().as_default(), _initialized_session() as sess:
        out = transform_features({"price": [[-1.0, 1.0], [5.0, 6.0]]}, [bucketized])
        np.testing.assert_array_equal(sess.run(out[bucketized]), [[0, 1], [3, 4]])


def test_bucketized_get_dense_tensor_one_input_value():  # test_get_dense_tensor_one_input_value
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[1]), [0, 2, 4, 6])
    with tf.Graph().as_default(), _initialized_session() as sess:
        builder = LazyBuilder({"price": [[-1.0], [1.0], [5.0], [6.0]]})
        np.testing.assert_allclose(sess.run(bucketized._get_dense_tensor(builder)), [
            [[1.0, 0, 0, 0, 0]], [[0, 1.0, 0, 0, 0]], [[0, 0, 0, 1.0, 0]],
            [[0, 0, 0, 0, 1.0]]])


def test_bucketized_get_sparse_tensors_two_input_values():
    # test_get_sparse_tensors_two_input_values
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0, 2, 4, 6])
    with tf.Graph().as_default(), _initialized_session() as sess:
        builder = LazyBuilder({"price": [[-1.0, 1.0], [5.0, 6.0]]})
        ids = sess.run(bucketized._get_sparse_tensors(builder).id_tensor)
        np.testing.assert_array_equal(ids.indices, [[0, 0], [0, 1], [1, 0], [1, 1]])
        np.testing.assert_array_equal(ids.values, [0, 6, 3, 9])
        np.testing.assert_array_equal(ids.dense_shape, [2, 2])


def test_bucketized_linear_model_two_input_values():  # BucketizedColumnTest.test_linear_model
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0, 2, 4, 6])
    with tf.Graph().as_default():
        predictions = fc.linear_model({"price": [[-1.0, 1.0], [5.0, 6.0]]}, [bucketized])
        bias = _linear_var("bias_weights")
        weights = _linear_var("price_bucketized/weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(weights), np.zeros((10, 1)))
            sess.run(weights.assign([[10.0], [20.0], [30.0], [40.0], [50.0],
                                     [60.0], [70.0], [80.0], [90.0], [100.0]]))
            # price -1. is in the 0th bucket (weight 10); 1. is in the 6th (70): 80.
            np.testing.assert_allclose(sess.run(predictions), [[80.0], [140.0]])
            sess.run(bias.assign([1.0]))
            np.testing.assert_allclose(sess.run(predictions), [[81.0], [141.0]])


def test_bucketized_get_dense_tensor_two_input_values():  # test_get_dense_tensor_two_input_values
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0, 2, 4, 6])
    with tf.Graph().as_default(), _initialized_session() as sess:
        builder = LazyBuilder({"price": [[-1.0, 1.0], [5.0, 6.0]]})
        np.testing.assert_allclose(sess.run(bucketized._get_dense_tensor(builder)), [
            [[1.0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0]], [[0, 0, 0, 1.0, 0], [0, 0, 0, 0, 1.0]]])


def test_bucketized_get_sparse_tensors_one_input_value():  # test_get_sparse_tensors_one_input_value
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[1]), [0, 2, 4, 6])
    with tf.Graph().as_default(), _initialized_session() as sess:
        pair = bucketized._get_sparse_tensors(LazyBuilder({"price": [[-1.0], [1.0], [5.0],
                                                                     [6.0]]}))
        assert pair.weight_tensor is None
        ids = sess.run(pair.id_tensor)
        np.testing.assert_array_equal(ids.indices, [[0, 0], [1, 0], [2, 0], [3, 0]])
        np.testing.assert_array_equal(ids.values, [0, 1, 3, 4])
        np.testing.assert_array_equal(ids.dense_shape, [4, 1])


def test_bucketized_sparse_tensor_input_not_supported():  # test_sparse_tensor_input_not_supported
    bucketized = fc.bucketized_column(fc.numeric_column("price"), boundaries=[0, 1])
    with tf.Graph().as_default():
        builder = LazyBuilder({"price": tf.SparseTensor(indices=[[0, 0]], values=[0.3],
                                                        dense_shape=[1, 1])})
        with pytest.raises(ValueError, match="must be a Tensor"):
            bucketized._transform_feature(builder)


def test_bucketized_deep_copy():  # BucketizedColumnTest.test_deep_copy
    b = copy.deepcopy(fc.bucketized_column(fc.numeric_column("aaa", shape=[2]), [0, 1]))
    assert b.name == "aaa_bucketized" and b.boundaries == (0, 1)
    assert tuple(b._variable_shape.as_list()) == (2, 3)


def test_bucketized_linear_model_one_input_value():  # test_linear_model_one_input_value
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[1]), [0, 2, 4, 6])
    with tf.Graph().as_default():
        predictions = fc.linear_model({"price": [[-1.0], [1.0], [5.0], [6.0]]}, [bucketized])
        bias, weights = _linear_var("bias_weights"), _linear_var("price_bucketized/weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions), np.zeros((4, 1)))
            sess.run(weights.assign([[10.0], [20.0], [30.0], [40.0], [50.0]]))
            np.testing.assert_allclose(sess.run(predictions), [[10.0], [20.0], [40.0], [50.0]])
            sess.run(bias.assign([1.0]))
            np.testing.assert_allclose(sess.run(predictions), [[11.0], [21.0], [41.0], [51.0]])


# -- HashedCategoricalColumnTest -------------------------------------------------------------
_WIRE = {"values": ["omar", "stringer", "marlo"], "indices": [[0, 0], [1, 0], [1, 1]],
         "dense_shape": [2, 2]}


def test_hashed_defaults_and_deep_copy():  # test_defaults, test_deep_copy
    original = fc.categorical_column_with_hash_bucket("aaa", 10)
    for column in (original, copy.deepcopy(original)):
        assert (column.name, column.key, column.hash_bucket_size, column._num_buckets,
                column.dtype) == ("aaa", "aaa", 10, 10, tf.string)


def test_hashed_argument_errors():
    # test_bucket_size_should_be_given, test_bucket_size_should_be_positive,
    # test_dtype_should_be_string_or_integer
    with pytest.raises(ValueError, match="hash_bucket_size must be set."):
        fc.categorical_column_with_hash_bucket("aaa", None)
    with pytest.raises(ValueError, match="hash_bucket_size must be at least 1"):
        fc.categorical_column_with_hash_bucket("aaa", 0)
    fc.categorical_column_with_hash_bucket("aaa", 10, dtype=tf.string)
    fc.categorical_column_with_hash_bucket("aaa", 10, dtype=tf.int32)
    with pytest.raises(ValueError, match="dtype must be string or integer"):
        fc.categorical_column_with_hash_bucket("aaa", 10, dtype=tf.float32)


@pytest.mark.parametrize("dtype", [tf.string, tf.int32])  # test_parse_spec_{string,int}
def test_hashed_parse_spec(dtype):
    a = fc.categorical_column_with_hash_bucket("aaa", 10, dtype=dtype)
    assert a._parse_example_spec == {"aaa": tf.VarLenFeature(dtype)}


def test_hashed_parse_example():  # HashedCategoricalColumnTest.test_parse_example
    a = fc.categorical_column_with_hash_bucket("aaa", 10)
    data = tf.train.Example(features=tf.train.Features(feature={"aaa": tf.train.Feature(
        bytes_list=tf.train.BytesList(value=[b"omar", b"stringer"]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        features = tf.parse_example(serialized=[data.SerializeToString()],
                                    features=fc.make_parse_example_spec([a]))
        got = sess.run(features["aaa"])
    np.testing.assert_array_equal(got.indices, [[0, 0], [0, 1]])
    np.testing.assert_array_equal(got.values, [b"omar", b"stringer"])
    np.testing.assert_array_equal(got.dense_shape, [1, 2])


def test_strings_should_be_hashed():  # test_strings_should_be_hashed (TF's exact buckets)
    hashed = fc.categorical_column_with_hash_bucket("wire", 10)
    with tf.Graph().as_default(), tf.Session() as sess:
        wire = tf.SparseTensor(**_WIRE)
        output = transform_features({"wire": wire}, [hashed])[hashed]
        assert output.values.dtype == tf.int64
        got, want = sess.run([output, wire])
    np.testing.assert_array_equal(got.values, [6, 4, 1])
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.dense_shape, want.dense_shape)


@pytest.mark.parametrize("dtype", [tf.int64, tf.int32])
def test_ints_should_be_hashed(dtype):  # test_ints_should_be_hashed, test_int32_64_is_compatible
    hashed = fc.categorical_column_with_hash_bucket("wire", 10, dtype=tf.int64)
    with tf.Graph().as_default(), tf.Session() as sess:
        wire = tf.SparseTensor(values=tf.constant([101, 201, 301], dtype=dtype),
                               indices=[[0, 0], [1, 0], [1, 1]], dense_shape=[2, 2])
        output = LazyBuilder({"wire": wire}).get(hashed)
        np.testing.assert_array_equal(sess.run(output.values), [3, 7, 5])


def test_hashed_tensor_dtype_checks():
    # test_tensor_dtype_should_be_string_or_integer, test_dtype_should_match_with_tensor
    with tf.Graph().as_default():
        builder = LazyBuilder({
            "a_int": tf.SparseTensor(values=[101], indices=[[0, 0]], dense_shape=[1, 1]),
            "a_string": tf.SparseTensor(values=["101"], indices=[[0, 0]], dense_shape=[1, 1]),
            "a_float": tf.SparseTensor(values=[101.0], indices=[[0, 0]], dense_shape=[1, 1])})
        builder.get(fc.categorical_column_with_hash_bucket("a_string", 10))
        builder.get(fc.categorical_column_with_hash_bucket("a_int", 10, dtype=tf.int32))
        with pytest.raises(ValueError, match="dtype must be string or integer"):
            builder.get(fc.categorical_column_with_hash_bucket("a_float", 10))
        with pytest.raises(ValueError, match="dtype must be compatible"):
            LazyBuilder({"wire": tf.SparseTensor(values=["omar"], indices=[[0, 0]],
                                                 dense_shape=[1, 1])}).get(
                fc.categorical_column_with_hash_bucket("wire", 10, dtype=tf.int64))


@pytest.mark.parametrize("wire", [
    tf.SparseTensorValue(**_WIRE),  # test_get_sparse_tensors
    (("omar", ""), ("stringer", "marlo")),  # test_get_sparse_tensors_dense_input
])
def test_hashed_get_sparse_tensors(wire):
    hashed = fc.categorical_column_with_hash_bucket("wire", 10)
    with tf.Graph().as_default():
        builder = LazyBuilder({"wire": wire})
        pair = hashed._get_sparse_tensors(builder)
        assert pair.weight_tensor is None and builder.get(hashed) is pair.id_tensor


def test_hashed_get_sparse_tensors_weight_collections():
    # test_get_sparse_tensors_weight_collections
    column = fc.categorical_column_with_hash_bucket("aaa", 10)
    with tf.Graph().as_default():
        column._get_sparse_tensors(LazyBuilder({"aaa": tf.SparseTensor(**_WIRE)}),
                                   weight_collections=("my_weights",))
        assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == []
        assert tf.get_collection("my_weights") == []


def test_hashed_linear_model():  # HashedCategoricalColumnTest.test_linear_model
    wire_column = fc.categorical_column_with_hash_bucket("wire", 4)
    with tf.Graph().as_default():
        predictions = fc.linear_model({"wire": tf.SparseTensorValue(
            indices=((0, 0), (1, 0), (1, 1)), values=("marlo", "skywalker", "omar"),
            dense_shape=(2, 2))}, (wire_column,))
        bias, wire_var = _linear_var("bias_weights"), _linear_var("wire/weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(bias), (0.0,))
            np.testing.assert_allclose(sess.run(predictions), ((0.0,), (0.0,)))
            sess.run(wire_var.assign(((1.0,), (2.0,), (3.0,), (4.0,))))
            # 'marlo' -> 3: 4; 'skywalker' -> 2, 'omar' -> 2: 3 + 3.
            np.testing.assert_allclose(sess.run(predictions), ((4.0,), (6.0,)))


# -- CrossedColumnTest -----------------------------------------------------------------------
def test_crossed_argument_errors():
    # test_keys_empty, test_keys_length_one, test_key_type_unsupported,
    # test_hash_bucket_size_negative, _zero, _none
    for keys in ([], ["a"]):
        with pytest.raises(ValueError, match="keys must be a list with length > 1"):
            fc.crossed_column(keys, 10)
    with pytest.raises(ValueError, match="Unsupported key type"):
        fc.crossed_column(["a", fc.numeric_column("c")], 10)
    with pytest.raises(ValueError, match="categorical_column_with_hash_bucket is not supported"):
        fc.crossed_column(["a", fc.categorical_column_with_hash_bucket("c", 10)], 10)
    for size in (-1, 0, None):
        with pytest.raises(ValueError, match="hash_bucket_size must be > 1"):
            fc.crossed_column(["a", "c"], size)


def _ab():
    return fc.bucketized_column(fc.numeric_column("a", dtype=tf.int32), boundaries=[0, 1])


@pytest.mark.parametrize("order", [  # test_name, test_name_ordered_alphabetically,
    lambda b: [b, "c", fc.crossed_column(["d1", "d2"], 10)],  # test_name_leaf_keys_ordered...
    lambda b: [fc.crossed_column(["d1", "d2"], 10), "c", b],
    lambda b: [fc.crossed_column(["d2", "c"], 10), "d1", b],
])
def test_crossed_name(order):
    assert fc.crossed_column(order(_ab()), 10).name == "a_bucketized_X_c_X_d1_X_d2"


def test_crossed_parse_spec_num_buckets_deep_copy():
    # test_parse_spec, test_num_buckets, test_deep_copy
    b = fc.bucketized_column(fc.numeric_column("a", shape=[2], dtype=tf.int32), [0, 1])
    crossed = fc.crossed_column([b, "c"], 15)
    assert crossed._parse_example_spec == {"a": tf.FixedLenFeature((2,), dtype=tf.int32),
                                           "c": tf.VarLenFeature(tf.string)}
    assert crossed._num_buckets == 15
    copied = copy.deepcopy(fc.crossed_column(
        [_ab(), "c", fc.crossed_column(["d1", "d2"], 10)], 15, hash_key=5))
    assert (copied.name, copied.hash_bucket_size, copied.hash_key) == (
        "a_bucketized_X_c_X_d1_X_d2", 15, 5)


def test_crossed_parse_example():  # CrossedColumnTest.test_parse_example
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0, 50])
    cross = fc.crossed_column([bucketized, "wire"], 10)
    data = tf.train.Example(features=tf.train.Features(feature={
        "price": tf.train.Feature(float_list=tf.train.FloatList(value=[20.0, 110.0])),
        "wire": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"omar",
                                                                      b"stringer"]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        features = tf.parse_example(serialized=[data.SerializeToString()],
                                    features=fc.make_parse_example_spec([cross]))
        price, wire = sess.run([features["price"], features["wire"]])
    np.testing.assert_array_equal(price, [[20.0, 110.0]])
    np.testing.assert_array_equal(wire.indices, [[0, 0], [0, 1]])
    np.testing.assert_array_equal(wire.values, [b"omar", b"stringer"])
    np.testing.assert_array_equal(wire.dense_shape, [1, 2])


def test_crossed_transform_feature():  # CrossedColumnTest.test_transform_feature
    bucketized = fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0, 50])
    cross = fc.crossed_column([bucketized, "wire"], 10)
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(transform_features({
            "price": tf.constant([[1.0, 2.0], [5.0, 6.0]]),
            "wire": tf.SparseTensor(**_WIRE)}, [cross])[cross])
    np.testing.assert_array_equal(out.indices, [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2],
                                                [1, 3]])
    assert all(0 <= v < 10 for v in out.values)
    np.testing.assert_array_equal(out.dense_shape, [2, 4])


def _c(prefix):
    return tf.SparseTensor(indices=((0, 0), (1, 0), (1, 1)),
                           values=[f"{prefix}A", f"{prefix}B", f"{prefix}C"],
                           dense_shape=(2, 2))


def test_crossed_get_sparse_tensors():  # CrossedColumnTest.test_get_sparse_tensors
    b = fc.bucketized_column(fc.numeric_column("a", dtype=tf.int32, shape=(2,)), (0, 1))
    crossed = fc.crossed_column([b, "c", fc.crossed_column(["d1", "d2"], 10)], 15,
                                hash_key=5)
    with tf.Graph().as_default(), _initialized_session() as sess:
        builder = LazyBuilder({"a": tf.constant(((-1.0, 0.5), (0.5, 1.0))), "c": _c("c"),
                               "d1": _c("d1"), "d2": _c("d2")})
        ids = sess.run(crossed._get_sparse_tensors(builder).id_tensor)
    np.testing.assert_array_equal(ids.indices, [(0, 0), (0, 1)] + [(1, k) for k in range(16)])
    # TF's exact hashed output.
    np.testing.assert_array_equal(ids.values, (6, 14, 0, 13, 8, 8, 10, 12, 2, 0, 1, 9, 8, 12,
                                               2, 0, 10, 11))
    np.testing.assert_array_equal(ids.dense_shape, (2, 16))


def _crossed_simple():
    b = fc.bucketized_column(fc.numeric_column("a", dtype=tf.int32, shape=(2,)), (0, 1))
    return fc.crossed_column([b, "c"], hash_bucket_size=5, hash_key=5)


def test_crossed_get_sparse_tensors_simple():  # test_get_sparse_tensors_simple
    crossed = _crossed_simple()
    with tf.Graph().as_default(), _initialized_session() as sess:
        builder = LazyBuilder({"a": tf.constant(((-1.0, 0.5), (0.5, 1.0))), "c": _c("c")})
        ids = sess.run(crossed._get_sparse_tensors(builder).id_tensor)
    np.testing.assert_array_equal(ids.indices, ((0, 0), (0, 1), (1, 0), (1, 1), (1, 2),
                                                (1, 3)))
    np.testing.assert_array_equal(ids.values, (1, 0, 1, 3, 4, 2))
    np.testing.assert_array_equal(ids.dense_shape, (2, 4))


def test_crossed_linear_model():  # CrossedColumnTest.test_linear_model
    crossed = _crossed_simple()
    with tf.Graph().as_default():
        predictions = fc.linear_model({"a": tf.constant(((-1.0, 0.5), (0.5, 1.0))),
                                       "c": _c("c")}, (crossed,))
        bias, var = _linear_var("bias_weights"), _linear_var("a_bucketized_X_c/weights")
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions), ((0.0,), (0.0,)))
            sess.run(var.assign(((1.0,), (2.0,), (3.0,), (4.0,), (5.0,))))
            np.testing.assert_allclose(sess.run(predictions), ((3.0,), (14.0,)))
            sess.run(bias.assign((0.1,)))
            np.testing.assert_allclose(sess.run(predictions), ((3.1,), (14.1,)))


def test_crossed_linear_model_with_weights():  # test_linear_model_with_weights
    weighted = fc.weighted_categorical_column(fc.categorical_column_with_identity("t", 5),
                                              "t_weights")
    crossed = fc.crossed_column([weighted, "c"], hash_bucket_size=5, hash_key=5)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="crossed_column does not support weight_tensor"):
            fc.linear_model({
                "t": tf.SparseTensor(indices=((0, 0), (1, 0), (1, 1)), values=[0, 1, 2],
                                     dense_shape=(2, 2)),
                "t_weights": tf.SparseTensor(indices=((0, 0), (1, 0), (1, 1)),
                                             values=[1.0, 10.0, 2.0], dense_shape=(2, 2)),
                "c": _c("c")}, (crossed,))


# -- MakeParseExampleSpecTest ----------------------------------------------------------------
class _SpecColumn(FeatureColumn):
    def __init__(self, spec):
        self._spec = spec

    name = "spec"

    @property
    def _parse_example_spec(self):
        return self._spec


_SPEC1 = tf.FixedLenFeature(shape=(2,), dtype=tf.float32, default_value=0.0)
_SPEC2 = tf.VarLenFeature(dtype=tf.string)
_SPEC3 = tf.VarLenFeature(dtype=tf.int32)


@pytest.mark.parametrize("specs, want", [
    ([], {}),  # test_no_feature_columns
    ([{"key1": _SPEC1}], {"key1": _SPEC1}),  # test_one_feature_column
    ([{"key1": _SPEC1}, {"key2": _SPEC2}], {"key1": _SPEC1, "key2": _SPEC2}),
    # test_two_feature_columns
    ([{"key1": _SPEC1}, {"key1": _SPEC1}], {"key1": _SPEC1}),  # test_equal_keys_equal_...
    ([{"key1": _SPEC1}, {"key2": _SPEC2, "key3": _SPEC3}],
     {"key1": _SPEC1, "key2": _SPEC2, "key3": _SPEC3}),  # test_multiple_features_dict
])
def test_make_parse_example_spec(specs, want):
    assert fc.make_parse_example_spec([_SpecColumn(s) for s in specs]) == want


def test_make_parse_example_spec_errors():
    # test_invalid_type, test_equal_keys_different_parse_spec
    with pytest.raises(ValueError, match="All feature_columns must be _FeatureColumn "
                                         "instances.*invalid_column"):
        fc.make_parse_example_spec((_SpecColumn({"key1": _SPEC1}), "invalid_column"))
    with pytest.raises(ValueError, match="feature_columns contain different parse_spec for "
                                         "key key1"):
        fc.make_parse_example_spec((_SpecColumn({"key1": _SPEC1}),
                                    _SpecColumn({"key1": _SPEC2})))


# -- VocabularyFileCategoricalColumnTest -----------------------------------------------------
@pytest.fixture
def wire_vocabulary(tmp_path):
    """'The Wire' characters (TF's testdata/wire_vocabulary.txt)."""
    path = tmp_path / "wire_vocabulary.txt"
    path.write_text("omar\nstringer\nmarlo\n")
    return str(path)


@pytest.fixture
def warriors_vocabulary(tmp_path):
    """Golden State Warriors jersey numbers (TF's testdata/warriors_vocabulary.txt)."""
    path = tmp_path / "warriors_vocabulary.txt"
    path.write_text("30\n35\n11\n23\n22\n")
    return str(path)


_MARLO = tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1)),
                              values=("marlo", "skywalker", "omar"), dense_shape=(2, 2))


def test_vocabulary_file_column_args():  # test_defaults, test_all_constructor_args, test_deep_copy
    column = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file="path_to_file", vocabulary_size=3)
    assert (column.name, column._num_buckets) == ("aaa", 3)
    assert column._parse_example_spec == {"aaa": tf.VarLenFeature(tf.string)}
    original = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file="path_to_file", vocabulary_size=3, num_oov_buckets=4,
        dtype=tf.int32)
    for column in (original, copy.deepcopy(original)):
        assert (column.name, column._num_buckets) == ("aaa", 7)
        assert column._parse_example_spec == {"aaa": tf.VarLenFeature(tf.int32)}


def test_vocabulary_file_column_argument_errors(wire_vocabulary):
    # test_vocabulary_file_none, test_vocabulary_file_empty_string,
    # test_invalid_vocabulary_size (its -1 and 0: TF 2.21 counts the lines when None),
    # test_invalid_num_oov_buckets, test_invalid_dtype, test_invalid_buckets_and_default_value
    for path in (None, ""):
        with pytest.raises(ValueError, match="Missing vocabulary_file"):
            fc.categorical_column_with_vocabulary_file(key="aaa", vocabulary_file=path,
                                                       vocabulary_size=3)
    for size in (-1, 0):
        with pytest.raises(ValueError, match="Invalid vocabulary_size"):
            fc.categorical_column_with_vocabulary_file(key="aaa",
                                                       vocabulary_file=wire_vocabulary,
                                                       vocabulary_size=size)
    assert fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file=wire_vocabulary)._num_buckets == 3
    with pytest.raises(ValueError, match="Invalid num_oov_buckets"):
        fc.categorical_column_with_vocabulary_file(key="aaa", vocabulary_file="path",
                                                   vocabulary_size=3, num_oov_buckets=-1)
    with pytest.raises(ValueError, match="dtype must be string or integer"):
        fc.categorical_column_with_vocabulary_file(key="aaa", vocabulary_file="path",
                                                   vocabulary_size=3, dtype=tf.float64)
    with pytest.raises(ValueError, match="both num_oov_buckets and default_value"):
        fc.categorical_column_with_vocabulary_file(key="aaa", vocabulary_file=wire_vocabulary,
                                                   vocabulary_size=3, num_oov_buckets=100,
                                                   default_value=2)


@pytest.mark.parametrize("path, size, message", [
    ("file_does_not_exist", 10, "file_does_not_exist"),  # test_invalid_vocabulary_file
    (None, 4, "Invalid vocab_size"),  # test_too_large_vocabulary_size
])
def test_vocabulary_file_init_errors(wire_vocabulary, path, size, message):
    column = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file=path or wire_vocabulary, vocabulary_size=size)
    with tf.Graph().as_default(), tf.Session() as sess:
        column._get_sparse_tensors(LazyBuilder({"aaa": _MARLO}))
        with pytest.raises(tf.errors.OpError, match=message):
            sess.run(tf.tables_initializer())


def test_vocabulary_file_input_dtype_errors(wire_vocabulary, warriors_vocabulary):
    # test_invalid_input_dtype_int32, test_invalid_input_dtype_string
    ints = tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1)), values=(12, 24, 36),
                                dense_shape=(2, 2))
    with tf.Graph().as_default():
        column = fc.categorical_column_with_vocabulary_file(
            key="aaa", vocabulary_file=wire_vocabulary, vocabulary_size=3, dtype=tf.string)
        with pytest.raises(ValueError, match="dtype must be compatible"):
            column._get_sparse_tensors(LazyBuilder({"aaa": ints}))
        column = fc.categorical_column_with_vocabulary_file(
            key="aaa", vocabulary_file=warriors_vocabulary, vocabulary_size=5, dtype=tf.int32)
        with pytest.raises(ValueError, match="dtype must be compatible"):
            column._get_sparse_tensors(LazyBuilder({"aaa": _MARLO}))


def test_vocabulary_file_parse_example():  # VocabularyFile...Test.test_parse_example
    a = fc.categorical_column_with_vocabulary_file(key="aaa", vocabulary_file="path_to_file",
                                                   vocabulary_size=3)
    data = tf.train.Example(features=tf.train.Features(feature={"aaa": tf.train.Feature(
        bytes_list=tf.train.BytesList(value=[b"omar", b"stringer"]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.parse_example(serialized=[data.SerializeToString()],
                                        features=fc.make_parse_example_spec([a]))["aaa"])
    assert got.indices.tolist() == [[0, 0], [0, 1]]
    assert got.values.tolist() == [b"omar", b"stringer"] and got.dense_shape.tolist() == [1, 2]


@pytest.mark.parametrize("kwargs, inputs, want", [
    ({}, _MARLO, (2, -1, 0)),  # test_get_sparse_tensors
    ({}, (("marlo", ""), ("skywalker", "omar")), (2, -1, 0)),  # ..._dense_input
    ({"default_value": 2}, _MARLO, (2, 2, 0)),  # ..._default_value_in_vocabulary
    ({"num_oov_buckets": 100}, tf.SparseTensorValue(
        indices=((0, 0), (1, 0), (1, 1), (1, 2)),
        values=("marlo", "skywalker", "omar", "heisenberg"), dense_shape=(2, 3)),
     (2, 33, 0, 62)),  # test_get_sparse_tensors_with_oov_buckets (TF's exact buckets)
])
def test_vocabulary_file_get_sparse_tensors(wire_vocabulary, kwargs, inputs, want):
    column = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file=wire_vocabulary, vocabulary_size=3, **kwargs)
    with tf.Graph().as_default():
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))
        assert pair.weight_tensor is None
        with _initialized_session() as sess:
            got = sess.run(pair.id_tensor)
    assert got.values.dtype == np.int64 and got.values.tolist() == list(want)
    if isinstance(inputs, tf.SparseTensorValue):
        assert got.indices.tolist() == [list(i) for i in inputs.indices]
        assert got.dense_shape.tolist() == list(inputs.dense_shape)


def test_vocabulary_file_transform_feature(wire_vocabulary):  # test_transform_feature
    column = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file=wire_vocabulary, vocabulary_size=3)
    with tf.Graph().as_default():
        id_tensor = transform_features({"aaa": _MARLO}, [column])[column]
        with _initialized_session() as sess:
            assert sess.run(id_tensor).values.tolist() == [2, -1, 0]


def test_vocabulary_file_weight_collections(wire_vocabulary):
    # test_get_sparse_tensors_weight_collections
    column = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file=wire_vocabulary, vocabulary_size=3)
    with tf.Graph().as_default():
        column._get_sparse_tensors(LazyBuilder({"aaa": tf.SparseTensor(**_WIRE)}),
                                   weight_collections=("my_weights",))
        assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == []
        assert tf.get_collection("my_weights") == []


_WARRIORS_INPUT = tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1), (2, 2)),
                                       values=(11, 100, 30, 22), dense_shape=(3, 3))


@pytest.mark.parametrize("kwargs, inputs, want", [
    ({}, _WARRIORS_INPUT, (2, -1, 0, 4)),  # test_get_sparse_tensors_int32
    ({"default_value": -100}, ((11, -1, -1), (100, 30, -1), (-1, -1, 22)),
     (2, -100, 0, 4)),  # test_get_sparse_tensors_int32_dense_input
    ({"num_oov_buckets": 100}, _WARRIORS_INPUT, (2, 60, 0, 4)),
    # test_get_sparse_tensors_int32_with_oov_buckets (TF's exact bucket)
])
def test_vocabulary_file_int32(warriors_vocabulary, kwargs, inputs, want):
    column = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file=warriors_vocabulary, vocabulary_size=5, dtype=tf.int32,
        **kwargs)
    with tf.Graph().as_default():
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))
        with _initialized_session() as sess:
            got = sess.run(pair.id_tensor)
    assert got.indices.tolist() == [[0, 0], [1, 0], [1, 1], [2, 2]]
    assert got.values.tolist() == list(want) and got.dense_shape.tolist() == [3, 3]


def test_vocabulary_file_small_vocabulary_size(wire_vocabulary):
    # test_get_sparse_tensors_small_vocabulary_size: 'marlo' (the last line) left out
    column = fc.categorical_column_with_vocabulary_file(
        key="aaa", vocabulary_file=wire_vocabulary, vocabulary_size=2)
    with tf.Graph().as_default():
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": _MARLO}))
        with _initialized_session() as sess:
            assert sess.run(pair.id_tensor).values.tolist() == [-1, -1, 0]


def test_vocabulary_file_linear_model(wire_vocabulary):  # VocabularyFile...Test.test_linear_model
    wire_column = fc.categorical_column_with_vocabulary_file(
        key="wire", vocabulary_file=wire_vocabulary, vocabulary_size=3, num_oov_buckets=1)
    assert wire_column._num_buckets == 4
    with tf.Graph().as_default():
        predictions = fc.linear_model({"wire": _MARLO}, (wire_column,))
        wire_var = [v for v in tf.global_variables() if v.op.name == "linear_model/wire/weights"]
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions), ((0.0,), (0.0,)))
            sess.run(wire_var[0].assign(((1.0,), (2.0,), (3.0,), (4.0,))))
            # 'marlo' -> 2: 3; 'skywalker' -> 3, 'omar' -> 0: 4 + 1.
            np.testing.assert_allclose(sess.run(predictions), ((3.0,), (5.0,)))


# -- VocabularyListCategoricalColumnTest -----------------------------------------------------
@pytest.mark.parametrize("kwargs, spec_dtype", [
    ({"vocabulary_list": ("omar", "stringer", "marlo")}, tf.string),  # test_defaults_string
    ({"vocabulary_list": (12, 24, 36)}, tf.int64),  # test_defaults_int
    ({"vocabulary_list": (12, 24, 36), "dtype": tf.int32, "default_value": -99}, tf.int32),
    # test_all_constructor_args, test_deep_copy
])
def test_vocabulary_list_column_args(kwargs, spec_dtype):
    original = fc.categorical_column_with_vocabulary_list(key="aaa", **kwargs)
    for column in (original, copy.deepcopy(original)):
        assert (column.name, column._num_buckets) == ("aaa", 3)
        assert column._parse_example_spec == {"aaa": tf.VarLenFeature(spec_dtype)}


@pytest.mark.parametrize("kwargs, message", [
    ({"vocabulary_list": ("omar", "stringer", "marlo"), "dtype": tf.float32},
     "dtype must be string or integer"),  # test_invalid_dtype
    ({"vocabulary_list": (12.0, 24.0, 36.0)}, "vocabulary dtype must be string or integer"),
    # test_invalid_mapping_dtype
    ({"vocabulary_list": ("omar", "stringer", "marlo"), "dtype": tf.int32},
     "dtype.*and vocabulary dtype.*do not match"),  # test_mismatched_int_dtype
    ({"vocabulary_list": (12, 24, 36), "dtype": tf.string},
     "dtype.*and vocabulary dtype.*do not match"),  # test_mismatched_string_dtype
    ({"vocabulary_list": None}, "vocabulary_list.*must be non-empty"),  # test_none_mapping
    ({"vocabulary_list": ()}, "vocabulary_list.*must be non-empty"),  # test_empty_mapping
    ({"vocabulary_list": (12, 24, 12)}, "Duplicate keys"),  # test_duplicate_mapping
    ({"vocabulary_list": (12, 24, 36), "num_oov_buckets": -1}, "Invalid num_oov_buckets"),
    # test_invalid_num_oov_buckets
    ({"vocabulary_list": (12, 24, 36), "num_oov_buckets": 100, "default_value": 2},
     "both num_oov_buckets and default_value"),  # test_invalid_buckets_and_default_value
])
def test_vocabulary_list_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fc.categorical_column_with_vocabulary_list(key="aaa", **kwargs)


@pytest.mark.parametrize("vocabulary, inputs", [
    (("omar", "stringer", "marlo"), tf.SparseTensorValue(
        indices=((0, 0), (1, 0), (1, 1)), values=(12, 24, 36), dense_shape=(2, 2))),
    # test_invalid_input_dtype_int32
    ((12, 24, 36), _MARLO),  # test_invalid_input_dtype_string
])
def test_vocabulary_list_input_dtype_errors(vocabulary, inputs):
    column = fc.categorical_column_with_vocabulary_list(key="aaa", vocabulary_list=vocabulary)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="dtype must be compatible"):
            column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))


@pytest.mark.parametrize("vocabulary, feature, want_values", [
    (("omar", "stringer", "marlo"), tf.train.Feature(bytes_list=tf.train.BytesList(
        value=[b"omar", b"stringer"])), [b"omar", b"stringer"]),  # test_parse_example_string
    ((11, 21, 31), tf.train.Feature(int64_list=tf.train.Int64List(value=[11, 21])),
     [11, 21]),  # test_parse_example_int
])
def test_vocabulary_list_parse_example(vocabulary, feature, want_values):
    a = fc.categorical_column_with_vocabulary_list(key="aaa", vocabulary_list=vocabulary)
    data = tf.train.Example(features=tf.train.Features(feature={"aaa": feature}))
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.parse_example(serialized=[data.SerializeToString()],
                                        features=fc.make_parse_example_spec([a]))["aaa"])
    assert got.indices.tolist() == [[0, 0], [0, 1]] and got.values.tolist() == want_values


@pytest.mark.parametrize("kwargs, inputs, want", [
    ({}, _MARLO, (2, -1, 0)),  # test_get_sparse_tensors
    ({}, (("marlo", ""), ("skywalker", "omar")), (2, -1, 0)),  # ..._dense_input
    ({"default_value": 2}, _MARLO, (2, 2, 0)),  # ..._default_value_in_vocabulary
    ({"num_oov_buckets": 100}, tf.SparseTensorValue(
        indices=((0, 0), (1, 0), (1, 1), (1, 2)),
        values=("marlo", "skywalker", "omar", "heisenberg"), dense_shape=(2, 3)),
     (2, 33, 0, 62)),  # test_get_sparse_tensors_with_oov_buckets
])
def test_vocabulary_list_get_sparse_tensors(kwargs, inputs, want):
    column = fc.categorical_column_with_vocabulary_list(
        key="aaa", vocabulary_list=("omar", "stringer", "marlo"), **kwargs)
    with tf.Graph().as_default():
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))
        assert pair.weight_tensor is None
        with _initialized_session() as sess:
            assert sess.run(pair.id_tensor).values.tolist() == list(want)


def test_vocabulary_list_transform_and_collections():
    # test_transform_feature, test_get_sparse_tensors_weight_collections
    column = fc.categorical_column_with_vocabulary_list(
        key="aaa", vocabulary_list=("omar", "stringer", "marlo"))
    with tf.Graph().as_default():
        id_tensor = transform_features({"aaa": _MARLO}, [column])[column]
        column._get_sparse_tensors(LazyBuilder({"aaa": tf.SparseTensor(**_WIRE)}),
                                   weight_collections=("my_weights",))
        assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == []
        assert tf.get_collection("my_weights") == []
        with _initialized_session() as sess:
            assert sess.run(id_tensor).values.tolist() == [2, -1, 0]


_WARRIORS = np.array((30, 35, 11, 23, 22), dtype=np.int32)


@pytest.mark.parametrize("kwargs, inputs, want", [
    ({}, tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1), (2, 2)),
                              values=np.array((11, 100, 30, 22), np.int32), dense_shape=(3, 3)),
     (2, -1, 0, 4)),  # test_get_sparse_tensors_int32
    ({"default_value": -100}, np.array(((11, -1, -1), (100, 30, -1), (-1, -1, 22)), np.int32),
     (2, -100, 0, 4)),  # test_get_sparse_tensors_int32_dense_input
    ({"num_oov_buckets": 100}, _WARRIORS_INPUT, (2, 60, 0, 4)),
    # test_get_sparse_tensors_int32_with_oov_buckets
])
def test_vocabulary_list_int32(kwargs, inputs, want):
    column = fc.categorical_column_with_vocabulary_list(key="aaa", vocabulary_list=_WARRIORS,
                                                        dtype=tf.int32, **kwargs)
    with tf.Graph().as_default():
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))
        with _initialized_session() as sess:
            got = sess.run(pair.id_tensor)
    assert got.indices.tolist() == [[0, 0], [1, 0], [1, 1], [2, 2]]
    assert got.values.tolist() == list(want)


def test_vocabulary_list_linear_model():  # VocabularyList...Test.test_linear_model
    wire_column = fc.categorical_column_with_vocabulary_list(
        key="aaa", vocabulary_list=("omar", "stringer", "marlo"), num_oov_buckets=1)
    assert wire_column._num_buckets == 4
    with tf.Graph().as_default():
        predictions = fc.linear_model({"aaa": _MARLO}, (wire_column,))
        var = [v for v in tf.global_variables() if v.op.name == "linear_model/aaa/weights"][0]
        with _initialized_session() as sess:
            sess.run(var.assign(((1.0,), (2.0,), (3.0,), (4.0,))))
            np.testing.assert_allclose(sess.run(predictions), ((3.0,), (5.0,)))


# -- IdentityCategoricalColumnTest -----------------------------------------------------------
def test_identity_constructor_and_deep_copy():  # test_constructor, test_deep_copy
    original = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
    for column in (original, copy.deepcopy(original)):
        assert (column.name, column._num_buckets) == ("aaa", 3)
        assert column._parse_example_spec == {"aaa": tf.VarLenFeature(tf.int64)}


@pytest.mark.parametrize("kwargs, message", [
    ({"num_buckets": 0}, "num_buckets 0 < 1"),  # test_invalid_num_buckets_zero
    ({"num_buckets": -1}, "num_buckets -1 < 1"),  # test_invalid_num_buckets_negative
    ({"num_buckets": 3, "default_value": -1}, "default_value -1 not in range"),
    ({"num_buckets": 3, "default_value": 3}, "default_value 3 not in range"),
    # test_invalid_default_value_too_small / _too_big
])
def test_identity_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fc.categorical_column_with_identity(key="aaa", **kwargs)


def test_identity_invalid_input_dtype():  # test_invalid_input_dtype
    column = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Invalid input, not integer"):
            column._get_sparse_tensors(LazyBuilder({"aaa": _WIRE_VALUE}))


_WIRE_VALUE = tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1)),
                                   values=("omar", "stringer", "marlo"), dense_shape=(2, 2))


def test_identity_parse_example():  # IdentityCategoricalColumnTest.test_parse_example
    a = fc.categorical_column_with_identity(key="aaa", num_buckets=30)
    data = tf.train.Example(features=tf.train.Features(feature={"aaa": tf.train.Feature(
        int64_list=tf.train.Int64List(value=[11, 21]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.parse_example(serialized=[data.SerializeToString()],
                                        features=fc.make_parse_example_spec([a]))["aaa"])
    assert got.values.dtype == np.int64 and got.values.tolist() == [11, 21]


_IDS = tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1)), values=(0, 1, 0),
                            dense_shape=(2, 2))


@pytest.mark.parametrize("inputs, kwargs, want", [
    (_IDS, {}, (0, 1, 0)),  # test_get_sparse_tensors
    (((0, -1), (1, 0)), {}, (0, 1, 0)),  # test_get_sparse_tensors_dense_input
    (tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1)), values=(1, -1, 99),
                          dense_shape=(2, 2)), {"num_buckets": 4, "default_value": 3},
     (1, 3, 3)),  # test_get_sparse_tensors_with_default_value
])
def test_identity_get_sparse_tensors(inputs, kwargs, want):
    column = fc.categorical_column_with_identity(key="aaa", **{"num_buckets": 3, **kwargs})
    with tf.Graph().as_default():
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))
        assert pair.weight_tensor is None
        with _initialized_session() as sess:
            got = sess.run(pair.id_tensor)
    assert got.indices.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert got.values.dtype == np.int64 and got.values.tolist() == list(want)


def test_identity_transform_and_collections():
    # test_transform_feature, test_get_sparse_tensors_weight_collections
    column = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
    with tf.Graph().as_default():
        id_tensor = transform_features({"aaa": _IDS}, [column])[column]
        column._get_sparse_tensors(LazyBuilder({"aaa": _IDS}),
                                   weight_collections=("my_weights",))
        assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == []
        assert tf.get_collection("my_weights") == []
        with _initialized_session() as sess:
            assert sess.run(id_tensor).values.tolist() == [0, 1, 0]


@pytest.mark.parametrize("values", [(1, -1, 0), (1, 99, 0)])
def test_identity_out_of_range_inputs(values):
    # test_get_sparse_tensors_with_inputs_too_small / _too_big. TF 1.x's asserts fail the
    # run (TF 2.21's v1 path no longer checks: both pass there unchecked); trainflow's
    # assert_less / assert_greater_equal fail as soon as the ids are known: at build time
    # for constant ids, else at run time.
    column = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
    inputs = tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 1)), values=values,
                                  dense_shape=(2, 2))
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError):
            column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))
        ids = tf.placeholder(tf.int64, [None])
        fed = tf.SparseTensor(indices=[[0, 0], [1, 0], [1, 1]], values=ids, dense_shape=[2, 2])
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": fed}))
        with _initialized_session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(pair.id_tensor, {ids: values})


def test_identity_default_value_and_placeholder_inputs():
    # test_get_sparse_tensors_with_default_value_and_placeholder_inputs
    column = fc.categorical_column_with_identity(key="aaa", num_buckets=4, default_value=3)
    with tf.Graph().as_default():
        indices = tf.placeholder(dtype=tf.int64)
        values = tf.placeholder(dtype=tf.int32)
        shape = tf.placeholder(dtype=tf.int64)
        inputs = tf.SparseTensorValue(indices=indices, values=values, dense_shape=shape)
        pair = column._get_sparse_tensors(LazyBuilder({"aaa": inputs}))
        with _initialized_session() as sess:
            got = sess.run(pair.id_tensor, feed_dict={
                indices: ((0, 0), (1, 0), (1, 1)), values: (1, -1, 99), shape: (2, 2)})
    assert got.indices.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert got.values.tolist() == [1, 3, 3] and got.dense_shape.tolist() == [2, 2]


def test_identity_linear_model():  # IdentityCategoricalColumnTest.test_linear_model
    column = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
    with tf.Graph().as_default():
        predictions = fc.linear_model({"aaa": tf.SparseTensorValue(
            indices=((0, 0), (1, 0), (1, 1)), values=(0, 2, 1), dense_shape=(2, 2))}, (column,))
        var = [v for v in tf.global_variables() if v.op.name == "linear_model/aaa/weights"][0]
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions), ((0.0,), (0.0,)))
            sess.run(var.assign(((1.0,), (2.0,), (3.0,))))
            np.testing.assert_allclose(sess.run(predictions), ((1.0,), (5.0,)))


def test_transform_features_column_order():  # TransformFeaturesTest.test_column_order
    calls = []

    class _LoggerColumn(FeatureColumn):
        def __init__(self, name):
            self._name = name

        @property
        def name(self):
            return self._name

        _parse_example_spec = None

        def _transform_feature(self, inputs):
            calls.append(self._name)
            return "Anything"

    with tf.Graph().as_default():
        for order in (["1", "2"], ["2", "1"]):
            calls.clear()
            transform_features({}, [_LoggerColumn(n) for n in order])
            assert calls == ["1", "2"]


# -- IndicatorColumnTest ---------------------------------------------------------------------
def test_indicator_column_and_deep_copy():  # test_indicator_column, test_deep_copy
    for key, size in (("a", 4), ("b", 100)):
        column = fc.indicator_column(fc.categorical_column_with_hash_bucket(key, size))
        for c in (column, copy.deepcopy(column)):
            assert c.categorical_column.name == key and c.name == f"{key}_indicator"
            assert c._variable_shape.as_list() == [1, size]


@pytest.mark.parametrize("column, feature, want", [
    (lambda: fc.categorical_column_with_hash_bucket("animal", 4), ["fox", "fox"],
     [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]]),  # test_1D_shape_succeeds
    (lambda: fc.categorical_column_with_hash_bucket("animal", 4),
     lambda: tf.SparseTensor(indices=[[0, 0], [1, 0]], values=["fox", "fox"],
                             dense_shape=[2, 1]),
     [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]]),  # test_2D_shape_succeeds
    (lambda: fc.categorical_column_with_identity("animal", num_buckets=4),
     lambda: tf.SparseTensor(indices=[[0, 0], [0, 1]], values=[1, 1], dense_shape=[1, 2]),
     [[0.0, 2.0, 0.0, 0.0]]),  # test_multi_hot
    (lambda: fc.categorical_column_with_identity("animal", num_buckets=4),
     lambda: tf.SparseTensor(indices=[[0, 0], [0, 1]], values=[1, 2], dense_shape=[1, 2]),
     [[0.0, 1.0, 1.0, 0.0]]),  # test_multi_hot2
])
def test_indicator_values(column, feature, want):
    animal = fc.indicator_column(column())
    with tf.Graph().as_default(), _initialized_session() as sess:
        feature = feature() if callable(feature) else feature
        np.testing.assert_array_equal(sess.run(LazyBuilder({"animal": feature}).get(animal)),
                                      want)


def test_indicator_parse_example():  # IndicatorColumnTest.test_parse_example
    a = fc.indicator_column(fc.categorical_column_with_vocabulary_list(
        key="aaa", vocabulary_list=("omar", "stringer", "marlo")))
    data = tf.train.Example(features=tf.train.Features(feature={"aaa": tf.train.Feature(
        bytes_list=tf.train.BytesList(value=[b"omar", b"stringer"]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.parse_example(serialized=[data.SerializeToString()],
                                        features=fc.make_parse_example_spec([a]))["aaa"])
    assert got.values.tolist() == [b"omar", b"stringer"]


@pytest.mark.parametrize("weighted, ids, want", [
    (False, _MARLO, [[0, 0, 1], [1, 0, 0]]),  # test_transform
    (True, [["c", "b", "a"]], [[6.0, 4.0, 2.0]]),  # test_transform_with_weighted_column
    (True, [["c", "b", "unknown"]], [[0.0, 4.0, 2.0]]),
    # test_transform_with_missing_value_in_weighted_column
    (False, [["c", "b", "unknown"]], [[0.0, 1.0, 1.0]]),
    # test_transform_with_missing_value_in_categorical_column
])
def test_indicator_transform(weighted, ids, want):
    vocabulary = ("omar", "stringer", "marlo") if isinstance(ids, tf.SparseTensorValue) \
        else ("a", "b", "c")
    column = fc.categorical_column_with_vocabulary_list(key="ids", vocabulary_list=vocabulary)
    if weighted:
        column = fc.weighted_categorical_column(column, "weights")
    indicator = fc.indicator_column(column)
    with tf.Graph().as_default():
        features = {"ids": ids if isinstance(ids, tf.SparseTensorValue) else tf.constant(ids),
                    "weights": tf.constant([[2.0, 4.0, 6.0]])}
        out = transform_features(features, [indicator])[indicator]
        with _initialized_session() as sess:
            np.testing.assert_array_equal(sess.run(out), want)


def test_indicator_linear_model_and_input_layer():  # test_linear_model, test_input_layer
    animal = fc.indicator_column(fc.categorical_column_with_identity("animal", num_buckets=4))
    with tf.Graph().as_default():
        features = {"animal": tf.SparseTensor(indices=[[0, 0], [0, 1]], values=[1, 2],
                                              dense_shape=[1, 2])}
        predictions = fc.linear_model(features, [animal])
        net = fc.input_layer(features, [animal])
        var = [v for v in tf.global_variables()
               if v.op.name == "linear_model/animal_indicator/weights"][0]
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(var), np.zeros((4, 1)))
            np.testing.assert_allclose(sess.run(predictions), [[0.0]])
            sess.run(var.assign([[1.0], [2.0], [3.0], [4.0]]))
            np.testing.assert_allclose(sess.run(predictions), [[2.0 + 3.0]])
            np.testing.assert_allclose(sess.run(net), [[0.0, 1.0, 1.0, 0.0]])


# -- EmbeddingColumnTest ---------------------------------------------------------------------
def test_embedding_defaults():  # EmbeddingColumnTest.test_defaults
    categorical = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
    column = fc.embedding_column(categorical, dimension=2)
    assert column.categorical_column is categorical and column.dimension == 2
    assert column.combiner == "mean" and column.initializer is not None
    assert (column.ckpt_to_load_from, column.tensor_name_in_ckpt, column.max_norm) == (
        None, None, None)
    assert column.trainable and column.name == "aaa_embedding"
    assert column._variable_shape.as_list() == [2]
    assert column._parse_example_spec == {"aaa": tf.VarLenFeature(tf.int64)}


def test_embedding_all_constructor_args_and_deep_copy():
    # test_all_constructor_args, test_deep_copy
    original = fc.embedding_column(
        fc.categorical_column_with_identity(key="aaa", num_buckets=3), dimension=2,
        combiner="my_combiner", initializer=lambda: "my_initializer",
        ckpt_to_load_from="my_ckpt", tensor_name_in_ckpt="my_ckpt_tensor", max_norm=42.0,
        trainable=False)
    for column in (original, copy.deepcopy(original)):
        assert column.categorical_column.name == "aaa"
        assert column.categorical_column._num_buckets == 3
        assert (column.dimension, column.combiner, column.initializer()) == (
            2, "my_combiner", "my_initializer")
        assert (column.ckpt_to_load_from, column.tensor_name_in_ckpt, column.max_norm) == (
            "my_ckpt", "my_ckpt_tensor", 42.0)
        assert not column.trainable and column.name == "aaa_embedding"
        assert column._parse_example_spec == {"aaa": tf.VarLenFeature(tf.int64)}


def test_embedding_invalid_initializer():  # test_invalid_initializer
    with pytest.raises(ValueError, match="initializer must be callable"):
        fc.embedding_column(fc.categorical_column_with_identity(key="aaa", num_buckets=3),
                            dimension=2, initializer="not_fn")


def test_embedding_transform_feature():  # EmbeddingColumnTest.test_transform_feature
    a = fc.categorical_column_with_identity(key="aaa", num_buckets=3)
    a_embedded = fc.embedding_column(a, dimension=2)
    with tf.Graph().as_default():
        outputs = transform_features({"aaa": tf.SparseTensor(
            indices=((0, 0), (1, 0), (1, 1)), values=(0, 1, 0), dense_shape=(2, 2))},
            [a, a_embedded])
        with _initialized_session() as sess:
            got_a, got_e = sess.run([outputs[a], outputs[a_embedded]])
    assert got_a.indices.tolist() == got_e.indices.tolist()
    assert got_a.values.tolist() == got_e.values.tolist()


@pytest.mark.parametrize("indices, values, dense_shape, embedding_values, want", [
    # test_get_dense_tensor
    (((0, 0), (1, 0), (1, 4), (3, 0)), (2, 0, 1, 1), (4, 5),
     ((1.0, 2.0), (3.0, 5.0), (7.0, 11.0)),
     ((7.0, 11.0), (2.0, 3.5), (0.0, 0.0), (3.0, 5.0))),
    # test_get_dense_tensor_3d
    (((0, 0, 0), (1, 1, 0), (1, 1, 4), (3, 0, 0), (3, 1, 2)), (2, 0, 1, 1, 2), (4, 2, 5),
     ((1.0, 2.0, 4.0), (3.0, 5.0, 1.0), (7.0, 11.0, 2.0), (2.0, 7.0, 12.0)),
     (((7.0, 11.0, 2.0), (0.0, 0.0, 0.0)), ((0.0, 0.0, 0.0), (2.0, 3.5, 2.5)),
      ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), ((3.0, 5.0, 1.0), (7.0, 11.0, 2.0)))),
])
def test_embedding_get_dense_tensor(indices, values, dense_shape, embedding_values, want):
    seen = {}

    def _initializer(shape, dtype, partition_info):
        seen.update(shape=tuple(shape), dtype=dtype, partition_info=partition_info)
        return embedding_values

    column = fc.embedding_column(
        fc.categorical_column_with_identity(key="aaa", num_buckets=len(embedding_values)),
        dimension=len(embedding_values[0]), initializer=_initializer)
    with tf.Graph().as_default():
        lookup = column._get_dense_tensor(LazyBuilder({"aaa": tf.SparseTensorValue(
            indices=indices, values=values, dense_shape=dense_shape)}))
        global_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
        assert [v.name for v in global_vars] == ["embedding_weights:0"]
        with _initialized_session() as sess:
            np.testing.assert_array_equal(sess.run(global_vars[0]), embedding_values)
            np.testing.assert_array_equal(sess.run(lookup), want)
    assert seen == {"shape": (len(embedding_values), len(embedding_values[0])),
                    "dtype": tf.float32, "partition_info": None}


_EMB_INPUT = tf.SparseTensorValue(indices=((0, 0), (1, 0), (1, 4), (3, 0)), values=(2, 0, 1, 1),
                                  dense_shape=(4, 5))
_EMB_VALUES = ((1.0, 2.0), (3.0, 5.0), (7.0, 11.0))
_EMB_LOOKUPS = ((7.0, 11.0), (2.0, 3.5), (0.0, 0.0), (3.0, 5.0))


def _emb_column(values=_EMB_VALUES, **kwargs):
    return fc.embedding_column(fc.categorical_column_with_identity(key="aaa", num_buckets=3),
                               dimension=2, initializer=lambda shape, dtype, partition_info:
                               values, **kwargs)


def test_embedding_get_dense_tensor_weight_collections():
    # test_get_dense_tensor_weight_collections
    with tf.Graph().as_default():
        _emb_column()._get_dense_tensor(LazyBuilder({"aaa": _EMB_INPUT}),
                                        weight_collections=("my_vars",))
        assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == []
        assert [v.name for v in tf.get_collection("my_vars")] == ["embedding_weights:0"]


def test_embedding_get_dense_tensor_placeholder_inputs():
    # test_get_dense_tensor_placeholder_inputs
    with tf.Graph().as_default():
        indices, values, shape = (tf.placeholder(dtype=tf.int64) for _ in range(3))
        lookup = _emb_column()._get_dense_tensor(LazyBuilder({"aaa": tf.SparseTensorValue(
            indices=indices, values=values, dense_shape=shape)}))
        with _initialized_session() as sess:
            np.testing.assert_array_equal(sess.run(lookup, {
                indices: _EMB_INPUT.indices, values: _EMB_INPUT.values,
                shape: _EMB_INPUT.dense_shape}), _EMB_LOOKUPS)


def test_embedding_get_dense_tensor_restore_from_ckpt(tmp_path):
    # test_get_dense_tensor_restore_from_ckpt (the checkpoint written here, not TF's testdata)
    ckpt = str(tmp_path / "embedding.ckpt")
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(np.array(_EMB_VALUES, np.float32), name="my_embedding")
        sess.run(v.initializer)
        tf.train.Saver([v]).save(sess, ckpt)
    column = fc.embedding_column(fc.categorical_column_with_identity(key="aaa", num_buckets=3),
                                 dimension=2, ckpt_to_load_from=ckpt,
                                 tensor_name_in_ckpt="my_embedding")
    with tf.Graph().as_default():
        lookup = column._get_dense_tensor(LazyBuilder({"aaa": _EMB_INPUT}))
        global_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
        assert [v.name for v in global_vars] == ["embedding_weights:0"]
        with _initialized_session() as sess:
            np.testing.assert_array_equal(sess.run(global_vars[0]), _EMB_VALUES)
            np.testing.assert_array_equal(sess.run(lookup), _EMB_LOOKUPS)


def test_embedding_linear_model():  # EmbeddingColumnTest.test_linear_model
    with tf.Graph().as_default():
        predictions = fc.linear_model({"aaa": _EMB_INPUT},
                                      (_emb_column(values=np.zeros((3, 2))),))
        names = ["linear_model/bias_weights:0", "linear_model/aaa_embedding/weights:0",
                 "linear_model/aaa_embedding/embedding_weights:0"]
        assert sorted(v.name for v in tf.global_variables()) == sorted(names)
        trainable = {v.name: v for v in tf.trainable_variables()}
        assert sorted(trainable) == sorted(names)
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions), np.zeros((4, 1)))
            sess.run([trainable[names[2]].assign(_EMB_VALUES),
                      trainable[names[1]].assign(((4.0,), (6.0,)))])
            np.testing.assert_allclose(sess.run(predictions), ((94.0,), (29.0,), (0.0,),
                                                               (42.0,)))


@pytest.mark.parametrize("trainable", [True, False])
def test_embedding_input_layer(trainable):  # test_input_layer, test_input_layer_not_trainable
    with tf.Graph().as_default():
        net = fc.input_layer({"aaa": _EMB_INPUT}, (_emb_column(trainable=trainable),))
        names = ["input_layer/aaa_embedding/embedding_weights:0"]
        assert [v.name for v in tf.global_variables()] == names
        assert [v.name for v in tf.trainable_variables()] == (names if trainable else [])
        with _initialized_session() as sess:
            np.testing.assert_array_equal(sess.run(net), _EMB_LOOKUPS)


# -- WeightedCategoricalColumnTest -----------------------------------------------------------
def _weighted(key="ids", weight_key="values", **kwargs):
    return fc.weighted_categorical_column(
        categorical_column=fc.categorical_column_with_identity(key=key, num_buckets=3),
        weight_feature_key=weight_key, **kwargs)


def test_weighted_defaults_and_deep_copy():  # test_defaults, test_deep_copy
    original = _weighted()
    for column in (original, copy.deepcopy(original)):
        assert (column.name, column._num_buckets) == ("ids_weighted_by_values", 3)
        assert column._parse_example_spec == {"ids": tf.VarLenFeature(tf.int64),
                                              "values": tf.VarLenFeature(tf.float32)}


def test_weighted_argument_errors():
    # test_invalid_dtype_none, test_invalid_dtype_string, test_column_name_collision
    for dtype in (None, tf.string):
        with pytest.raises(ValueError, match="is not convertible to float"):
            _weighted(dtype=dtype)
    with pytest.raises(ValueError, match="Parse config.*already exists"):
        _weighted(key="aaa", weight_key="aaa")._parse_example_spec()


def test_weighted_input_errors():  # test_invalid_input_dtype, test_missing_weights
    column = _weighted()
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Bad dtype"):
            transform_features({"ids": _WIRE_VALUE, "values": _WIRE_VALUE}, (column,))
        with pytest.raises(ValueError, match="values is not in features dictionary"):
            transform_features({"ids": _WIRE_VALUE}, (column,))


def test_weighted_parse_example():  # WeightedCategoricalColumnTest.test_parse_example
    a = fc.weighted_categorical_column(fc.categorical_column_with_vocabulary_list(
        key="aaa", vocabulary_list=("omar", "stringer", "marlo")), weight_feature_key="weights")
    data = tf.train.Example(features=tf.train.Features(feature={
        "aaa": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"omar", b"stringer"])),
        "weights": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 10.0]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.parse_example(serialized=[data.SerializeToString()],
                                        features=fc.make_parse_example_spec([a])))
    assert got["aaa"].values.tolist() == [b"omar", b"stringer"]
    assert got["weights"].values.dtype == np.float32
    assert got["weights"].values.tolist() == [1.0, 10.0]


_W_INDICES = ((0, 0), (1, 0), (1, 1))


@pytest.mark.parametrize("ids, values, want_ids", [
    (tf.SparseTensorValue(indices=_W_INDICES, values=(0, 1, 0), dense_shape=(2, 2)),
     tf.SparseTensorValue(indices=_W_INDICES, values=(0.5, 1.0, 0.1), dense_shape=(2, 2)),
     (0, 1, 0)),  # test_transform_features
    (((0, -1), (1, 0)),
     tf.SparseTensorValue(indices=_W_INDICES, values=(0.5, 1.0, 0.1), dense_shape=(2, 2)),
     (0, 1, 0)),  # test_transform_features_dense_input
    (tf.SparseTensorValue(indices=_W_INDICES, values=(2, 1, 0), dense_shape=(2, 2)),
     ((0.5, 0.0), (1.0, 0.1)), (2, 1, 0)),  # test_transform_features_dense_weights
])
def test_weighted_transform_features(ids, values, want_ids):
    column = _weighted()
    with tf.Graph().as_default():
        id_tensor, weight_tensor = transform_features({"ids": ids, "values": values},
                                                      (column,))[column]
        with _initialized_session() as sess:
            got_ids, got_w = sess.run([id_tensor, weight_tensor])
    assert got_ids.indices.tolist() == [list(i) for i in _W_INDICES]
    assert got_ids.values.dtype == np.int64 and got_ids.values.tolist() == list(want_ids)
    assert got_w.indices.tolist() == [list(i) for i in _W_INDICES]
    np.testing.assert_allclose(got_w.values, (0.5, 1.0, 0.1), rtol=1e-6)
    assert got_w.values.dtype == np.float32


_W_IDS = tf.SparseTensorValue(indices=_W_INDICES, values=(0, 2, 1), dense_shape=(2, 2))


@pytest.mark.parametrize("values", [
    tf.SparseTensorValue(indices=_W_INDICES, values=(0.5, 1.0, 0.1), dense_shape=(2, 2)),
    # test_linear_model
    ((0.5,), (1.0,), (0.1,)),  # test_linear_model_mismatched_dense_shape
])
def test_weighted_linear_model(values):
    with tf.Graph().as_default():
        predictions = fc.linear_model({"ids": _W_IDS, "values": values}, (_weighted(),))
        var = [v for v in tf.global_variables()
               if v.op.name == "linear_model/ids_weighted_by_values/weights"][0]
        with _initialized_session() as sess:
            np.testing.assert_allclose(sess.run(predictions), ((0.0,), (0.0,)))
            sess.run(var.assign(((1.0,), (2.0,), (3.0,))))
            # 1 * .5 = .5; 3 * 1 + 2 * .1 = 3.2
            np.testing.assert_allclose(sess.run(predictions), ((0.5,), (3.2,)), rtol=1e-6)


def test_weighted_linear_model_mismatched_shape():  # test_linear_model_mismatched_shape
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions.*are not compatible"):
            fc.linear_model({"ids": _W_IDS, "values": tf.SparseTensorValue(
                indices=((0, 0), (0, 1), (1, 0), (1, 1)), values=(0.5, 11.0, 1.0, 0.1),
                dense_shape=(2, 2))}, (_weighted(),))


def test_weighted_linear_model_mismatched_dense_values():
    # test_linear_model_mismatched_dense_values
    with tf.Graph().as_default():
        predictions = fc.linear_model({"ids": _W_IDS, "values": ((0.5,), (1.0,))},
                                      (_weighted(),))
        with _initialized_session() as sess:
            with pytest.raises(tf.errors.OpError, match="Incompatible shapes"):
                sess.run(predictions)


def test_embedding_parse_example():  # EmbeddingColumnTest.test_parse_example
    a_embedded = fc.embedding_column(fc.categorical_column_with_vocabulary_list(
        key="aaa", vocabulary_list=("omar", "stringer", "marlo")), dimension=2)
    data = tf.train.Example(features=tf.train.Features(feature={"aaa": tf.train.Feature(
        bytes_list=tf.train.BytesList(value=[b"omar", b"stringer"]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.parse_example(serialized=[data.SerializeToString()],
                                        features=fc.make_parse_example_spec([a_embedded]))["aaa"])
    assert got.indices.tolist() == [[0, 0], [0, 1]]
    assert got.values.tolist() == [b"omar", b"stringer"] and got.dense_shape.tolist() == [1, 2]
