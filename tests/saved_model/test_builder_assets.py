"""SavedModel assets: copied once to assets/ under their base names (made unique when two
different files share one), listed in the graph's `saved_model_assets` collection, and fed
to the init op as paths inside the export directory when loaded (import scopes too)."""
import os

import pytest
from google.protobuf import text_format

import trainflow.compat.v1 as tf
from trainflow._src.protos._pool import POOL
from trainflow._src.protos import meta_graph_pb2
from trainflow._src.saved_model import constants, loader
from trainflow._src.saved_model.loader import parse_saved_model
from trainflow._src.saved_model.builder import SavedModelBuilder


def _asset(tmp_path, name, contents, tensor_name, subdir=""):
    parent = tmp_path / "src" / subdir
    parent.mkdir(parents=True, exist_ok=True)
    (parent / name).write_text(contents)
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS,
                         tf.constant(str(parent / name), name=tensor_name))
    return tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)


def _init_var(sess):
    tf.Variable(42, name="v")
    sess.run(tf.global_variables_initializer())


def _assets(export_dir, tags):
    """[(file name, tensor name, contents of assets/<file name>)] of the loaded graph."""
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = loader.load(sess, tags, export_dir)
    out = []
    for packed in mgd.collection_def[constants.ASSETS_KEY].any_list.value:
        assert packed.type_url == "type.googleapis.com/tensorflow.AssetFileDef"
        a = meta_graph_pb2.AssetFileDef.FromString(packed.value)
        with open(os.path.join(export_dir, constants.ASSETS_DIRECTORY, a.filename)) as f:
            out.append((a.filename, a.tensor_info.name, f.read()))
    return out


# name: [(file name, contents, tensor name, subdir)] -> expected [(name, tensor, contents)]
COLLISIONS = {
    "one": ([("hello42.txt", "foo bar baz", "asset_file_tensor", "")],
            [("hello42.txt", "asset_file_tensor:0", "foo bar baz")]),
    "diff_file": ([("hello42.txt", "foo bar bak", "asset_file_tensor", "1"),
                   ("hello42.txt", "foo bar baz", "asset_file_tensor_1", "2")],
                  [("hello42.txt", "asset_file_tensor:0", "foo bar bak"),
                   ("hello42.txt_1", "asset_file_tensor_1:0", "foo bar baz")]),
    "same_filepath": ([("hello42.txt", "foo bar baz", "asset_file_tensor", ""),
                       ("hello42.txt", "foo bar baz", "asset_file_tensor_1", "")],
                      [("hello42.txt", "asset_file_tensor:0", "foo bar baz"),
                       ("hello42.txt", "asset_file_tensor_1:0", "foo bar baz")]),
    "same_file": ([("hello42.txt", "foo bar baz", "asset_file_tensor", "1"),
                   ("hello42.txt", "foo bar baz", "asset_file_tensor_1", "2")],
                  [("hello42.txt", "asset_file_tensor:0", "foo bar baz"),
                   ("hello42.txt", "asset_file_tensor_1:0", "foo bar baz")]),
    "many_files": ([("hello42.txt", f"foo bar baz {i}", f"asset_file_tensor_{i}", str(i))
                    for i in range(5)],
                   [("hello42.txt" + (f"_{i}" if i else ""), f"asset_file_tensor_{i}:0",
                     f"foo bar baz {i}") for i in range(5)]),
}


@pytest.mark.parametrize("case", sorted(COLLISIONS))
def test_asset_names(tmp_path, case):
    files, want = COLLISIONS[case]
    export_dir = str(tmp_path / "m")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ignored.txt").write_text("will be ignored")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        _init_var(sess)
        for name, contents, tensor_name, subdir in files:
            assets = _asset(tmp_path, name, contents, tensor_name, subdir)
        b.add_meta_graph_and_variables(sess, ["foo"], assets_collection=assets)
    b.save()
    assert _assets(export_dir, ["foo"]) == want
    assert sorted(os.listdir(os.path.join(export_dir, "assets"))) == sorted(
        {name for name, _, _ in want})


@pytest.mark.parametrize("second_name, want_second", [
    ("bar.txt", [("bar.txt", "asset_file_tensor:0", "content_bar")]),
    # a name already written keeps the first graph's file
    ("foo.txt", [("foo.txt", "asset_file_tensor:0", "content_foo")]),
])
def test_assets_of_several_meta_graphs(tmp_path, second_name, want_second):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        _init_var(sess)
        b.add_meta_graph_and_variables(
            sess, ["foo"], assets_collection=_asset(tmp_path, "foo.txt", "content_foo",
                                                    "asset_file_tensor", "a"))
    with tf.Session(graph=tf.Graph()) as sess:
        _init_var(sess)
        b.add_meta_graph(["bar"], assets_collection=_asset(
            tmp_path, second_name, "content_bar", "asset_file_tensor", "b"))
    b.save()
    assert _assets(export_dir, ["foo"]) == [("foo.txt", "asset_file_tensor:0", "content_foo")]
    assert _assets(export_dir, ["bar"]) == want_second


@pytest.mark.parametrize("bad, error", [
    (lambda: tf.constant(1.0), "must be of dtype string"),
    (lambda: tf.identity(tf.constant("a")), "must be of type constant"),
    (lambda: tf.constant(["a", "b"]), "must be a scalar"),
    (lambda: "not a tensor", "must be a Tensor"),
])
def test_bad_asset_tensors(tmp_path, bad, error):
    b = SavedModelBuilder(str(tmp_path / "m"))
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(TypeError, match=error):
            b.add_meta_graph_and_variables(sess, ["foo"], assets_collection=[bad()])


def test_init_op_gets_asset_paths_and_import_scope(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        tf.Variable(42, name="v")
        assets = _asset(tmp_path, "foo.txt", "content_foo", "asset_file_tensor")
        tf.constant("constant value", name="constant_tensor_name")
        seen = tf.Variable("", name="seen", trainable=False, collections=[])
        tf.add_to_collection("seen", seen)
        sess.run(tf.global_variables_initializer())
        source_path = sess.run(assets[0])
        init = tf.group(tf.assign(seen, assets[0]), name="init")
        b.add_meta_graph_and_variables(sess, ["tag_name"], assets_collection=assets,
                                       main_op=init)
    b.save()
    want = os.path.join(export_dir, "assets", "foo.txt").encode()
    for scope in (None, "scope_name"):
        with tf.Session(graph=tf.Graph()) as sess:
            loader.load(sess, ["tag_name"], export_dir, import_scope=scope)
            prefix = scope + "/" if scope else ""
            variables = sess.graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
            assert [v.name for v in variables] == [prefix + "v:0"]
            assert sess.run(variables) == [42]
            asset_list = sess.graph.get_collection(tf.GraphKeys.ASSET_FILEPATHS)
            assert [t.name for t in asset_list] == [prefix + "asset_file_tensor:0"]
            assert sess.run(asset_list[0]) == source_path  # the constant is unchanged
            # the init op ran with the path inside the export directory fed
            assert sess.run(sess.graph.get_collection("seen")[0]) == want
            assert sess.run(prefix + "constant_tensor_name:0") == b"constant value"


def test_text_saved_model_with_expanded_asset_protos(tmp_path):
    """TF's `saved_model.pbtxt` spells the packed AssetFileDefs out under TF's type name
    (`[type.googleapis.com/tensorflow.AssetFileDef] {...}`): they load, and the init op
    gets the asset's path."""
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        assets = _asset(tmp_path, "foo.txt", "x", "asset_file_tensor")
        seen = tf.Variable("", name="seen", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        b.add_meta_graph_and_variables(sess, ["foo"], assets_collection=assets,
                                       main_op=tf.group(seen.assign(assets[0])))
    b.save()
    saved = parse_saved_model(export_dir)
    text = text_format.MessageToString(saved, descriptor_pool=POOL)
    assert "[type.googleapis.com/tensorflow.AssetFileDef] {" in text
    os.remove(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB))
    with open(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT), "w") as f:
        f.write(text)
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["foo"], export_dir)
        assert sess.run("seen:0") == os.path.join(export_dir, "assets", "foo.txt").encode()


def test_assets_extra_is_left_to_the_user(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        _init_var(sess)
        b.add_meta_graph_and_variables(sess, ["foo"])
    b.save()
    extra = os.path.join(export_dir, constants.EXTRA_ASSETS_DIRECTORY)
    os.makedirs(extra)
    with open(os.path.join(extra, "tf_serving_warmup_requests"), "wb") as f:
        f.write(b"\x00")
    assert loader.maybe_saved_model_directory(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["foo"], export_dir)
        assert sess.run("v:0") == 42
