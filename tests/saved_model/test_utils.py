"""saved_model.utils: TensorInfo of dense and sparse tensors and back, in other graphs and
under import scopes, and its errors (the behaviour of TF's saved_model utils_test)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.protos import types_pb2
from trainflow._src.saved_model import utils


def test_build_tensor_info_dense():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, 1, name="x")
        info = utils.build_tensor_info(x)
    assert info.name == "x:0"
    assert info.dtype == types_pb2.DT_FLOAT
    assert [d.size for d in info.tensor_shape.dim] == [1]


def test_build_tensor_info_sparse():
    with tf.Graph().as_default():
        x = tf.sparse_placeholder(tf.float32, [42, 69], name="x")
        info = utils.build_tensor_info(x)
    assert info.coo_sparse.values_tensor_name == x.values.name
    assert info.coo_sparse.indices_tensor_name == x.indices.name
    assert info.coo_sparse.dense_shape_tensor_name == x.dense_shape.name
    assert info.dtype == types_pb2.DT_FLOAT
    assert [d.size for d in info.tensor_shape.dim] == [42, 69]


def test_build_tensor_info_op():
    with tf.Graph().as_default():
        op = tf.no_op(name="x")
        info = utils.build_tensor_info_from_op(op)
    assert info.name == "x"
    assert info.dtype == types_pb2.DT_INVALID
    assert info.tensor_shape.unknown_rank


def test_get_tensor_from_info_dense():
    with tf.Graph().as_default():
        expected = tf.placeholder(tf.float32, 1, name="x")
        assert utils.get_tensor_from_tensor_info(utils.build_tensor_info(expected)) is expected


def test_get_tensor_from_info_sparse():
    with tf.Graph().as_default():
        expected = tf.sparse_placeholder(tf.float32, name="x")
        actual = utils.get_tensor_from_tensor_info(utils.build_tensor_info(expected))
        assert isinstance(actual, tf.SparseTensor)
        assert (actual.values, actual.indices, actual.dense_shape) == (
            expected.values, expected.indices, expected.dense_shape)


def test_get_tensor_from_info_in_other_graph():
    with tf.Graph().as_default() as expected_graph:
        expected = tf.placeholder(tf.float32, 1, name="right")
        info = utils.build_tensor_info(expected)
    with tf.Graph().as_default():  # a different default graph
        tf.placeholder(tf.float32, 1, name="other")
        actual = utils.get_tensor_from_tensor_info(info, graph=expected_graph)
    assert actual is expected


def test_get_tensor_from_info_in_scope():
    with tf.Graph().as_default():
        with tf.name_scope("scope"):
            expected = tf.placeholder(tf.float32, 1, name="x")
        info = utils.build_tensor_info(expected)
        info.name = "x:0"  # names are relative to the import scope
        assert utils.get_tensor_from_tensor_info(info, import_scope="scope") is expected


def test_get_tensor_from_info_raises_errors():
    with tf.Graph().as_default():
        info = utils.build_tensor_info(tf.placeholder(tf.float32, 1, name="x"))
        info.name = "blah:0"
        with pytest.raises(KeyError):
            utils.get_tensor_from_tensor_info(info)
        info.ClearField("name")
        with pytest.raises(ValueError, match="Invalid TensorInfo.encoding"):
            utils.get_tensor_from_tensor_info(info)


def test_build_tensor_info_needs_a_tensor():
    with pytest.raises(TypeError):
        utils.build_tensor_info([1.0])


def test_paths(tmp_path):
    export_dir = str(tmp_path)
    assert utils.get_variables_path(export_dir) == str(tmp_path / "variables" / "variables")
    assert utils.get_or_create_assets_dir(export_dir.encode()) == str(tmp_path / "assets")
    assert (tmp_path / "assets").is_dir()
    assert utils.get_or_create_variables_dir(tmp_path) == str(tmp_path / "variables")
    assert (tmp_path / "variables").is_dir()
