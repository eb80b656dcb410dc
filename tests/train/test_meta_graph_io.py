"""export_meta_graph / import_meta_graph / write_graph: collections, scopes, savers,
VariableDef round trips, and TF's graph files."""
import os

import numpy as np
import pytest
from google.protobuf import text_format

import trainflow.compat.v1 as tf
from trainflow._src.protos import graph_pb2, meta_graph_pb2

from fixture_paths import FIXTURES

CKPTS = os.path.join(FIXTURES, "checkpoints")


def _model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.variable_scope("model"):
        w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[1.0], [-1.0]]))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    y = tf.add(tf.matmul(x, w), b, name="y")
    loss = tf.reduce_sum(tf.square(y), name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step, name="train")
    tf.add_to_collection("my_tensors", y)
    tf.add_to_collection("my_ints", 7)
    tf.add_to_collection("my_floats", 0.5)
    tf.add_to_collection("my_bytes", b"raw")
    tf.add_to_collection("my_strings", "text")
    tf.add_to_collection(tf.GraphKeys.LOSSES, loss)
    return x, loss, train


def test_collections_serialize_by_kind():
    with tf.Graph().as_default():
        _model()
        tf.train.Saver()
        mgd = tf.train.export_meta_graph()
    c = mgd.collection_def
    assert list(c["my_tensors"].node_list.value) == ["y:0"]
    assert list(c["train_op"].node_list.value) == ["train"]
    assert list(c["my_ints"].int64_list.value) == [7]
    assert list(c["my_floats"].float_list.value) == [0.5]
    assert list(c["my_bytes"].bytes_list.value) == [b"raw"]
    assert list(c["my_strings"].bytes_list.value) == [b"text"]
    var_def = tf.VariableDef.FromString(c["variables"].bytes_list.value[0]) \
        if hasattr(tf, "VariableDef") else None
    from trainflow._src.protos import variable_pb2
    names = [variable_pb2.VariableDef.FromString(v).variable_name
             for v in c["variables"].bytes_list.value]
    assert names == ["model/w:0", "model/b:0", "global_step:0"]
    assert var_def is None or var_def.variable_name == "model/w:0"
    assert mgd.meta_info_def.tensorflow_version == tf.VERSION == "1.15.0"
    assert mgd.meta_info_def.tensorflow_git_version == tf.GIT_VERSION
    ops = [o.name for o in mgd.meta_info_def.stripped_op_list.op]
    assert ops == sorted(ops) and "MatMul" in ops and "ApplyGradientDescent" in ops


def test_roundtrip_imports_collections_and_trains(tmp_path):
    with tf.Graph().as_default():
        x, loss, train = _model()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {x: [[1.0, 2.0]]})
            path = saver.save(sess, str(tmp_path / "m"), global_step=1)
            sess.run(train, {x: [[1.0, 2.0]]})
            want = sess.run(loss, {x: [[1.0, 2.0]]})
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(path + ".meta")
        assert [v.op.name for v in tf.trainable_variables()] == ["model/w", "model/b"]
        assert g.get_collection("my_ints") == [7] and g.get_collection("my_floats") == [0.5]
        assert g.get_collection("my_bytes") == [b"raw"]
        assert g.get_collection("my_tensors")[0].name == "y:0"
        assert tf.train.get_global_step().op.name == "global_step"
        assert g.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)[0] is \
            g.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)[0]
        with tf.Session() as sess:
            saver.restore(sess, path)
            sess.run(g.get_collection("train_op")[0], {"x:0": [[1.0, 2.0]]})
            assert sess.run("loss:0", {"x:0": [[1.0, 2.0]]}) == want
            assert sess.run("global_step:0") == 2


def test_import_scope_and_scoped_saver(tmp_path):
    with tf.Graph().as_default():
        _model()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default() as g:
        tf.Variable(1.0, name="outside")
        saver = tf.train.import_meta_graph(path + ".meta", import_scope="imp")
        assert saver.saver_def.restore_op_name == "imp/save/restore_all"
        assert g.get_operation_by_name("imp/model/w").type == "VariableV2"
        with tf.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run("imp/model/w:0"), [[1.0], [-1.0]])


def test_export_scope_strips_names_and_marks_unbound_inputs():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        with tf.name_scope("inner"):
            v = tf.Variable([1.0, 2.0], name="v")
            tf.add(a, v, name="out")
        mgd = tf.train.export_meta_graph(export_scope="inner", clear_devices=True)
    names = {n.name for n in mgd.graph_def.node}
    assert "out" in names and "v" in names and "a" not in names
    out_node = next(n for n in mgd.graph_def.node if n.name == "out")
    assert list(out_node.input) == ["$unbound_inputs_a", "v/read"]
    assert list(mgd.collection_def["unbound_inputs"].bytes_list.value) == [b"$unbound_inputs_a"]
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Graph contains unbound inputs"):
            tf.train.import_meta_graph(mgd)
        b = tf.constant([5.0, 5.0])
        tf.train.import_meta_graph(mgd, import_scope="new", input_map={"$unbound_inputs_a": b})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run("new/out:0"), [6.0, 7.0])


def test_clear_extraneous_savers_and_strip_default_attrs():
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        tf.train.Saver()
        second = tf.train.Saver()
        tf.add_to_collection(tf.GraphKeys.SAVERS, second)
        mgd = second.export_meta_graph(clear_extraneous_savers=True, strip_default_attrs=True)
    names = {n.name for n in mgd.graph_def.node}
    assert "save_1/restore_all" in names and not any(n.startswith("save/") for n in names)
    assert mgd.meta_info_def.stripped_default_attrs
    assign = next(n for n in mgd.graph_def.node if n.name == "save_1/Assign")
    assert "use_locking" not in assign.attr and "validate_shape" not in assign.attr
    assert len(mgd.collection_def["savers"].bytes_list.value) == 1


def test_clear_devices_on_import():
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            tf.Variable(1.0, name="v")
        mgd = tf.train.export_meta_graph()
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(mgd, clear_devices=True)
        assert g.get_operation_by_name("v").device == ""
        assert g.get_operation_by_name("v/read").device == ""


def test_text_and_binary_meta_graph_files(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        tf.train.export_meta_graph(str(tmp_path / "g.pbtxt"), as_text=True)
        tf.train.export_meta_graph(str(tmp_path / "g.meta"), save_debug_info=True)
    text = meta_graph_pb2.MetaGraphDef()
    text_format.Merge((tmp_path / "g.pbtxt").read_text(), text)
    assert text == meta_graph_pb2.MetaGraphDef.FromString((tmp_path / "g.meta").read_bytes())
    assert (tmp_path / "g_debug").exists()
    with tf.Graph().as_default():
        # No SaverDef in the file, but variables: a default Saver for them.
        assert isinstance(tf.train.import_meta_graph(str(tmp_path / "g.pbtxt")), tf.train.Saver)
        assert tf.global_variables()[0].op.name == "v"
    with tf.Graph().as_default():
        tf.constant(1.0)
        assert tf.train.import_meta_graph(tf.train.export_meta_graph()) is None
    with pytest.raises(IOError, match="File does not exist"):
        tf.train.import_meta_graph(str(tmp_path / "none.meta"))
    (tmp_path / "bad").write_bytes(b"\xff\xfe not a proto")
    with pytest.raises(IOError, match="Cannot parse file"):
        tf.train.import_meta_graph(str(tmp_path / "bad"))


def test_write_graph_text_and_binary_match_tensorflow_files(tmp_path):
    src = os.path.join(FIXTURES, "graphs", "mlp_graph.pb")
    with open(src, "rb") as f:
        gd = graph_pb2.GraphDef.FromString(f.read())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        text_path = tf.train.write_graph(g, str(tmp_path), "g.pbtxt")
        bin_path = tf.train.write_graph(gd, str(tmp_path / "sub"), "g.pb", as_text=False)
    with open(src, "rb") as f:
        assert open(bin_path, "rb").read() == f.read()
    parsed = graph_pb2.GraphDef()
    text_format.Merge(open(text_path).read(), parsed)
    assert [n.name for n in parsed.node] == [n.name for n in gd.node]
    with open(os.path.join(FIXTURES, "graphs", "mlp_graph.pbtxt")) as f:
        assert text_format.MessageToString(gd) == f.read()


def test_variable_def_round_trip_with_slices():
    with tf.Graph().as_default():
        p = tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2))
        protos = [v.to_proto() for v in p]
        mgd = tf.train.export_meta_graph()
    assert protos[1].save_slice_info_def.var_offset == [2, 0]
    with tf.Graph().as_default():
        tf.train.import_meta_graph(mgd)
        back = tf.global_variables()
        assert [v.to_proto() for v in back] == protos
        assert back[1]._get_save_slice_info().full_name == "p"


def test_tensorflow_graph_files_reimport_as_written():
    with open(os.path.join(CKPTS, "a_dtypes", "model.ckpt.meta"), "rb") as f:
        mgd = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(mgd)
        again = saver.export_meta_graph()
    assert again.saver_def == mgd.saver_def
    assert again.collection_def == mgd.collection_def
    assert again.meta_info_def.stripped_op_list == mgd.meta_info_def.stripped_op_list
    assert [n.name for n in again.graph_def.node] == [n.name for n in mgd.graph_def.node]
    assert len(g.get_operations()) == len(mgd.graph_def.node)
