"""simple_save: one call writes a servable SavedModel (tag `serve`, a `serving_default`
predict signature, assets, devices cleared) that loads with the same values."""
import os

import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.saved_model import loader, signature_constants, tag_constants
from trainflow._src.saved_model.loader import parse_saved_model
from trainflow._src.saved_model.simple_save import simple_save
from trainflow._src.saved_model.utils import get_tensor_from_tensor_info


def _init_and_validate_variable(sess, name, value):
    v = tf.Variable(value, name=name)
    sess.run(tf.global_variables_initializer())
    assert sess.run(v) == value
    return v


def _check_signature(signature_def, tensors, keys):
    assert set(signature_def) == set(keys)
    for key, tensor in zip(keys, tensors):
        assert signature_def[key].name == tensor.name


def test_simple_save(tmp_path):
    export_dir = str(tmp_path / "m")
    with tf.Graph().as_default(), tf.Session() as sess:
        with tf.device("/cpu:0"):
            var_x = _init_and_validate_variable(sess, "var_x", 3)
            var_y = _init_and_validate_variable(sess, "var_y", 4)
            var_z = _init_and_validate_variable(sess, "var_z", 5)
        inputs = {"x": var_x, "y": var_y}
        outputs = {"z": var_z}
        simple_save(sess, export_dir, inputs, outputs)
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = loader.load(sess, [tag_constants.SERVING], export_dir)
        assert sess.run(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)) == [3, 4, 5]
        sig = mgd.signature_def[signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        assert sig.method_name == signature_constants.PREDICT_METHOD_NAME
        _check_signature(sig.inputs, [var_x, var_y], ["x", "y"])
        _check_signature(sig.outputs, [var_z], ["z"])
    saved = parse_saved_model(export_dir).meta_graphs[0]
    assert all(n.device == "" for n in saved.graph_def.node)  # clear_devices


def test_simple_save_model_serves_and_copies_assets(tmp_path):
    export_dir = str(tmp_path / "m")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        y = tf.matmul(x, w, name="y")
        tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, tf.constant(str(vocab)))
        local = tf.Variable(0.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        init = tf.group(local.assign(7.0), name="legacy_init")
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign([[3.0], [4.0]]))
        simple_save(sess, export_dir, {"x": x}, {"y": y}, legacy_init_op=init)
    assert os.listdir(os.path.join(export_dir, "assets")) == ["vocab.txt"]
    with tf.Graph().as_default() as g, tf.Session() as sess:
        mgd = loader.load(sess, ["serve"], export_dir)
        sig = mgd.signature_def["serving_default"]
        x = get_tensor_from_tensor_info(sig.inputs["x"], g)
        y = get_tensor_from_tensor_info(sig.outputs["y"], g)
        np.testing.assert_allclose(sess.run(y, {x: [[1.0, 1.0], [2.0, 0.0]]}), [[7.0], [6.0]])
        assert sess.run("local:0") == 7.0  # the legacy init op ran
