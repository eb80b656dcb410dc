"""MethodNameUpdater: method names of chosen signatures changed, in binary and text
SavedModels, in place or into a new directory; TF's errors (the behaviour of TF's
method_name_updater_test)."""
import os
import shutil

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.saved_model import loader
from trainflow._src.saved_model.builder import SavedModelBuilder
from trainflow._src.saved_model.loader import parse_saved_model
from trainflow._src.saved_model.method_name_updater import MethodNameUpdater
from trainflow._src.saved_model.signature_def_utils import build_signature_def


def _write(export_dir, as_text=False):
    b = SavedModelBuilder(export_dir)
    sigs = {k: build_signature_def({}, {}, "old") for k in ("serving_default", "other")}
    with tf.Session(graph=tf.Graph()) as sess:
        tf.Variable(1, name="v")
        sess.run(tf.global_variables_initializer())
        b.add_meta_graph_and_variables(sess, ["serve"], signature_def_map=sigs)
    with tf.Session(graph=tf.Graph()):
        tf.Variable(1, name="v")
        b.add_meta_graph(["serve", "gpu"], signature_def_map=sigs)
    b.save(as_text=as_text)


def _methods(export_dir):
    return {tuple(m.meta_info_def.tags): {k: s.method_name for k, s in m.signature_def.items()}
            for m in parse_saved_model(export_dir).meta_graphs}


@pytest.mark.parametrize("as_text", [False, True])
def test_replace_method_names(tmp_path, as_text):
    export_dir = str(tmp_path / "m")
    _write(export_dir, as_text)
    updater = MethodNameUpdater(export_dir)
    updater.replace_method_name("serving_default", "classify", tags="serve")
    updater.replace_method_name("other", "regress")  # every meta graph
    updater.save()
    assert _methods(export_dir) == {
        ("serve",): {"serving_default": "classify", "other": "regress"},
        ("serve", "gpu"): {"serving_default": "old", "other": "regress"}}
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = loader.load(sess, ["serve"], export_dir)
        assert mgd.signature_def["serving_default"].method_name == "classify"


def test_save_into_a_new_directory(tmp_path):
    export_dir, new_dir = str(tmp_path / "m"), str(tmp_path / "new")
    _write(export_dir)
    shutil.copytree(export_dir, new_dir)
    updater = MethodNameUpdater(export_dir)
    updater.replace_method_name("other", "predict", tags=["gpu", "serve"])
    updater.save(new_dir)
    assert _methods(export_dir)[("serve", "gpu")]["other"] == "old"
    assert _methods(new_dir)[("serve", "gpu")]["other"] == "predict"
    assert os.path.exists(os.path.join(new_dir, "saved_model.pb"))


@pytest.mark.parametrize("key, method, tags, message", [
    ("", "m", None, "`signature_key` must be defined"),
    ("other", "", None, "`method_name` must be defined"),
    ("missing", "m", ["serve"], "does not have a signature_def with key: 'missing'"),
    ("other", "m", ["train"], "could not be found in SavedModel"),
])
def test_errors(tmp_path, key, method, tags, message):
    export_dir = str(tmp_path / "m")
    _write(export_dir)
    with pytest.raises(ValueError, match=message):
        MethodNameUpdater(export_dir).replace_method_name(key, method, tags)
