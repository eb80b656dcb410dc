"""The Saver against checkpoints and meta graphs written by TensorFlow: the same graph
nodes, byte-identical files, TF's state file, and restoring TF's checkpoints."""
import json
import os

import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.protos import meta_graph_pb2
from trainflow._version import __version__ as trainflow_version

from fixture_paths import FIXTURES

CKPTS = os.path.join(FIXTURES, "checkpoints")


def _load(sub, name):
    with open(os.path.join(CKPTS, sub, name)) as f:
        return json.load(f)


def _meta(sub, prefix="model.ckpt"):
    mgd = meta_graph_pb2.MetaGraphDef()
    with open(os.path.join(CKPTS, sub, prefix + ".meta"), "rb") as f:
        mgd.ParseFromString(f.read())
    return mgd


def _value(v):
    if v["dtype"] == "string":
        vals = v["value"]
        return bytes.fromhex(vals) if isinstance(vals, str) else [bytes.fromhex(x) for x in vals]
    value = v["value"]
    if v["dtype"].startswith("complex"):
        value = np.array(value, dtype=np.float64)
        value = value[..., 0] + 1j * value[..., 1]
    return np.array(value, dtype=tf.as_dtype(v["dtype"]).as_numpy_dtype).reshape(v["shape"])


def _dtypes_graph():
    """The variables of fixture a_dtypes, with their values, in creation order by name."""
    spec = _load("a_dtypes", "model.ckpt.json")
    for v in spec["variables"]:
        value = _value(v)
        dtype = tf.as_dtype(v["dtype"])
        tf.Variable(value if dtype != tf.string else np.array(value, dtype=object),
                    name=v["name"], dtype=dtype, trainable=v["name"] != "counter")
    return spec


def _partitioned_graph():
    tf.get_variable("part", [10, 3], partitioner=tf.fixed_size_partitioner(3),
                    initializer=tf.zeros_initializer())
    tf.get_variable("part_col", [2, 7], partitioner=tf.fixed_size_partitioner(3, axis=1),
                    initializer=tf.zeros_initializer())
    tf.Variable([0., 0.], name="plain")


def _nodes(graph_def):
    return {n.name: n for n in graph_def.node if n.name.startswith("save/")}


def test_saver_graph_matches_tensorflow():
    expected = _nodes(_meta("c_partitioned").graph_def)
    with tf.Graph().as_default():
        _partitioned_graph()
        saver = tf.train.Saver(save_relative_paths=True)
        mine = _nodes(saver.export_meta_graph().graph_def)
    assert sorted(mine) == sorted(expected)
    for name, node in expected.items():
        ours = mine[name]
        assert (ours.op, list(ours.input), ours.device) == (node.op, list(node.input),
                                                             node.device), name
        for key, value in node.attr.items():
            if key != "_has_manual_control_dependencies":
                assert ours.attr[key] == value, (name, key)
    tf_def = _meta("c_partitioned").saver_def
    assert saver.saver_def == tf_def


def test_meta_graph_matches_tensorflow():
    expected = _meta("c_partitioned")
    with tf.Graph().as_default():
        _partitioned_graph()
        mgd = tf.train.Saver().export_meta_graph()
    assert mgd.meta_info_def.stripped_op_list == expected.meta_info_def.stripped_op_list
    # TensorFlow records its release; trainflow the API level it implements and its own build.
    assert expected.meta_info_def.tensorflow_version == "2.21.0"
    assert (mgd.meta_info_def.tensorflow_version, mgd.meta_info_def.tensorflow_git_version) == \
        ("1.15.0", "trainflow-" + trainflow_version)
    assert mgd.collection_def == expected.collection_def
    assert mgd.graph_def.versions == expected.graph_def.versions


def test_save_is_byte_identical_to_tensorflow(tmp_path):
    with tf.Graph().as_default():
        _dtypes_graph()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            cwd = os.getcwd()
            os.chdir(tmp_path)
            try:
                assert saver.save(sess, "model.ckpt") == "model.ckpt"
            finally:
                os.chdir(cwd)
    for name in ("model.ckpt.index", "model.ckpt.data-00000-of-00001", "checkpoint"):
        with open(os.path.join(CKPTS, "a_dtypes", name), "rb") as f:
            assert (tmp_path / name).read_bytes() == f.read(), name


def test_partitioned_save_is_byte_identical(tmp_path):
    full = {k: _value(v) for k, v in _load("c_partitioned", "model.ckpt.json")[
        "full_values"].items()}
    with tf.Graph().as_default():
        _partitioned_graph()
        saver = tf.train.Saver(save_relative_paths=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.global_variables():
                info = v._get_save_slice_info()
                if info is None:
                    v.load(full[v.op.name], sess)
                    continue
                idx = tuple(slice(o, o + s) for o, s in zip(info.var_offset, info.var_shape))
                v.load(full[info.full_name][idx], sess)
            saver.save(sess, str(tmp_path / "model.ckpt"))
    for name in ("model.ckpt.index", "model.ckpt.data-00000-of-00001"):
        with open(os.path.join(CKPTS, "c_partitioned", name), "rb") as f:
            assert (tmp_path / name).read_bytes() == f.read(), name
    with open(os.path.join(CKPTS, "c_partitioned", "checkpoint")) as f:
        assert (tmp_path / "checkpoint").read_text() == f.read()


def test_restores_every_dtype_written_by_tensorflow():
    with tf.Graph().as_default():
        spec = _dtypes_graph()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.global_variables():
                if v.dtype.base_dtype not in (tf.string, tf.bool):
                    v.load(np.zeros(v.shape.as_list(), v.dtype.base_dtype.as_numpy_dtype), sess)
            saver.restore(sess, os.path.join(CKPTS, "a_dtypes", "model.ckpt"))
            got = {v.op.name: sess.run(v) for v in tf.global_variables()}
    for v in spec["variables"]:
        want = _value(v)
        if v["dtype"] == "string":
            assert (got[v["name"]] == want) if v["shape"] == [] else \
                list(got[v["name"]]) == want
        else:
            np.testing.assert_array_equal(got[v["name"]], want)


def test_restores_partitioned_into_other_partitioning():
    reader = tf.train.load_checkpoint(os.path.join(CKPTS, "c_partitioned"))
    with tf.Graph().as_default():
        part = tf.get_variable("part", [10, 3], initializer=tf.zeros_initializer())
        col = tf.get_variable("part_col", [2, 7], partitioner=tf.fixed_size_partitioner(2, 1),
                              initializer=tf.zeros_initializer())
        tf.Variable([0., 0.], name="plain")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(CKPTS, "c_partitioned", "model.ckpt"))
            np.testing.assert_array_equal(sess.run(part), reader.get_tensor("part"))
            np.testing.assert_array_equal(sess.run(col.as_tensor()),
                                          reader.get_tensor("part_col"))


def test_rotation_matches_tensorflow(tmp_path):
    spec = _load("b_max_to_keep", "model.ckpt.json")
    with tf.Graph().as_default():
        w = tf.Variable([0., 0.], name="w")
        step = tf.train.get_or_create_global_step()
        saver = tf.train.Saver(max_to_keep=2, save_relative_paths=True)
        history = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in (1, 2, 3):
                sess.run([w.assign([float(i), -0.5 * i]), step.assign(i)])
                saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step)
                history.append([os.path.basename(p) for p in saver.last_checkpoints])
    files = sorted(os.listdir(tmp_path))
    with open(os.path.join(CKPTS, "b_max_to_keep", "checkpoint")) as f:
        assert (tmp_path / "checkpoint").read_text() == f.read()
    assert files == sorted(f for f in os.listdir(os.path.join(CKPTS, "b_max_to_keep"))
                           if not f.endswith(".json"))
    assert history == [["model.ckpt-1"], ["model.ckpt-1", "model.ckpt-2"],
                       ["model.ckpt-2", "model.ckpt-3"]]
    assert "last_checkpoints" in json.dumps(spec) or spec


def test_import_tf_meta_graph_restores_and_trains():
    """TF's Adam graph: import, restore after 2 steps, run a third step; the result is
    Adam's update from the restored state (checked against NumPy)."""
    spec = _load("d_adam_slots", "model.ckpt.json")
    x = np.array(spec["x"], np.float32)
    y = np.array(spec["y"], np.float32)
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(os.path.join(CKPTS, "d_adam_slots", "model.ckpt.meta"))
        train_op = g.get_collection("train_op")[0]
        names = [v.op.name for v in tf.global_variables()]
        assert sorted(names) == sorted(v["name"] for v in spec["variables"])
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(CKPTS, "d_adam_slots", "model.ckpt"))
            before = {n: sess.run(n + ":0") for n in names}
            sess.run(train_op)
            after = {n: sess.run(n + ":0") for n in names}
    for v in spec["variables"]:
        np.testing.assert_array_equal(before[v["name"]], _value(v))
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    w, b = before["w"], before["b"]
    err = x @ w + b - y
    grads = {"w": 2 * x.T @ err, "b": 2 * err.sum(0)}
    b1p, b2p = before["beta1_power"], before["beta2_power"]
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    for name in ("w", "b"):
        m = b1 * before[name + "/Adam"] + (1 - b1) * grads[name]
        v = b2 * before[name + "/Adam_1"] + (1 - b2) * grads[name] ** 2
        np.testing.assert_allclose(after[name], before[name] - lr_t * m / (np.sqrt(v) + eps),
                                   rtol=1e-5, atol=1e-6)
    assert after["global_step"] == before["global_step"] + 1
    np.testing.assert_allclose(after["beta1_power"], b1p * b1, rtol=1e-6)
