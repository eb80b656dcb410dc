"""SavedModelBuilder and loader.load: the behaviour of TensorFlow's saved_model_test (tags,
variables shared between meta graphs, collections, signatures, assets and their name
collisions, main / legacy init ops, savers, import scopes, devices, default attrs)."""
import os

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.protos import meta_graph_pb2, types_pb2
from trainflow._src.saved_model import constants, loader, tag_constants
from trainflow._src.saved_model.builder import SavedModelBuilder
from trainflow._src.saved_model.signature_def_utils import build_signature_def


def _var(sess, name, value):
    v = tf.Variable(value, name=name)
    sess.run(tf.global_variables_initializer())
    assert sess.run(v) == value
    return v


def _asset(tmp_path, name, contents, tensor_name, subdir=""):
    parent = tmp_path / "src" / subdir
    parent.mkdir(parents=True, exist_ok=True)
    (parent / name).write_text(contents)
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS,
                         tf.constant(str(parent / name), name=tensor_name))
    return tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)


def _load(export_dir, tags, **kwargs):
    """Loads into a new graph; returns (MetaGraphDef, the values of the global variables,
    the session's graph, the session)."""
    sess = tf.Session(graph=tf.Graph())
    with sess.graph.as_default():
        mgd = loader.load(sess, tags, export_dir, **kwargs)
        values = sess.run(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES))
    return mgd, values, sess


def _assets_of(mgd):
    out = []
    for packed in mgd.collection_def[constants.ASSETS_KEY].any_list.value:
        assert packed.type_url == "type.googleapis.com/tensorflow.AssetFileDef"
        out.append(meta_graph_pb2.AssetFileDef.FromString(packed.value))
    return [(a.filename, a.tensor_info.name) for a in out]


def test_maybe_saved_model_directory(tmp_path):
    assert not loader.maybe_saved_model_directory(str(tmp_path))
    assert not loader.maybe_saved_model_directory("complete_garbage")
    export_dir = tmp_path / "m"
    b = SavedModelBuilder(str(export_dir))
    with tf.Session(graph=tf.Graph()) as sess:
        b.add_meta_graph_and_variables(sess, ["foo"])
    b.save()
    assert loader.maybe_saved_model_directory(str(export_dir))
    assert loader.maybe_saved_model_directory(export_dir)  # path-like


def test_bad_saved_model_file_format(tmp_path):
    export_dir = str(tmp_path / "bad")
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(IOError, match="SavedModel file does not exist at: " + export_dir):
            loader.load(sess, ["foo"], export_dir)
    os.makedirs(export_dir)
    for name in (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT):
        for stale in os.listdir(export_dir):
            os.remove(os.path.join(export_dir, stale))
        for content in (b"invalid content", b"\x80 not UTF-8"):
            with open(os.path.join(export_dir, name), "wb") as f:
                f.write(content)
            with tf.Session(graph=tf.Graph()) as sess:
                with pytest.raises(IOError,
                                   match="Cannot parse file.*" + name.replace(".", r"\.")):
                    loader.load(sess, ["foo"], export_dir)


def test_session_graph_is_used(tmp_path):
    b = SavedModelBuilder(str(tmp_path / "m"))
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 42)
        b.add_meta_graph_and_variables(sess, [tag_constants.TRAINING])
    b.save()
    sess = tf.Session(graph=tf.Graph())
    loader.load(sess, [tag_constants.TRAINING], str(tmp_path / "m"))
    with sess:
        assert sess.graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)[0].eval() == 42


def test_sequence(tmp_path):
    b = SavedModelBuilder(str(tmp_path / "m"))
    with tf.Session(graph=tf.Graph()):
        with pytest.raises(AssertionError, match="add_meta_graph_and_variables"):
            b.add_meta_graph(["foo"])
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 42)
        b.add_meta_graph_and_variables(sess, ["bar"])
        with pytest.raises(AssertionError, match="already been saved"):
            b.add_meta_graph_and_variables(sess, ["baz"])


def test_tags(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 42)
        b.add_meta_graph_and_variables(sess, [tag_constants.TRAINING])
    for value, tags in [(43, [tag_constants.SERVING]),
                        (45, [tag_constants.SERVING, tag_constants.GPU]),
                        (45, [tag_constants.SERVING, tag_constants.TPU]),
                        (44, ["foo", "bar"])]:
        with tf.Session(graph=tf.Graph()) as sess:
            _var(sess, "v", value)
            b.add_meta_graph(tags)
    b.save()
    for tags in ([tag_constants.TRAINING], [tag_constants.SERVING],
                 [tag_constants.SERVING, tag_constants.GPU],
                 [tag_constants.SERVING, tag_constants.TPU], ["foo", "bar", "foo"]):
        assert _load(export_dir, tags)[1] == [42]  # the saved value, whatever the graph held
    for tags in (["INVALID"], ["foo", "baz"]):
        with tf.Session(graph=tf.Graph()) as sess:
            with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
                loader.load(sess, tags, export_dir)


def test_variables_shared_between_meta_graphs(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v1", 1)
        _var(sess, "v2", 2)
        b.add_meta_graph_and_variables(sess, ["foo"])
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v2", 3)
        b.add_meta_graph(["bar"])
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v3", 4)
        b.add_meta_graph(["baz"])
    b.save()
    assert _load(export_dir, ["foo"])[1] == [1, 2]
    assert _load(export_dir, ["bar"])[1] == [2]
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(errors.NotFoundError):
            loader.load(sess, ["baz"], export_dir)


def test_graph_without_variables(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        name5 = tf.constant(5.0).name
        b.add_meta_graph_and_variables(sess, ["foo"])
    with tf.Session(graph=tf.Graph()):
        name6 = tf.constant(6.0).name
        b.add_meta_graph(["bar"])
    b.save()
    for tags, name, other in ((["foo"], name5, 6.0), (["bar"], name6, 5.0)):
        _, _, sess = _load(export_dir, tags)
        with sess.graph.as_default():
            c = sess.graph.get_tensor_by_name(name) * tf.constant(other)
            assert sess.run(c) == 30.0


@pytest.mark.parametrize("as_text", [False, True])
def test_save_binary_or_text_and_no_overwrite(tmp_path, as_text):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 42)
        b.add_meta_graph_and_variables(sess, ["foo"])
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 43)
        b.add_meta_graph(["bar"])
    path = b.save(as_text=as_text)
    want = constants.SAVED_MODEL_FILENAME_PBTXT if as_text else constants.SAVED_MODEL_FILENAME_PB
    assert path == os.path.join(export_dir, want)
    assert sorted(os.listdir(export_dir)) == sorted([want, "variables"])
    assert sorted(os.listdir(os.path.join(export_dir, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    assert _load(export_dir, ["foo"])[1] == [42]
    assert _load(export_dir, ["bar"])[1] == [42]
    with pytest.raises(AssertionError, match="Export directory already exists"):
        SavedModelBuilder(export_dir)


def test_collections(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    for tags, key, value in ((["foo"], "foo_vars", 42), (["bar"], "bar_vars", 43)):
        with tf.Session(graph=tf.Graph()) as sess:
            v = tf.Variable(value, name="v")
            tf.add_to_collection(key, v)
            sess.run(tf.global_variables_initializer())
            if tags == ["foo"]:
                b.add_meta_graph_and_variables(sess, tags)
            else:
                b.add_meta_graph(tags)
    b.save()
    for tags, key, absent in ((["foo"], "foo_vars", "bar_vars"), (["bar"], "bar_vars",
                                                                   "foo_vars")):
        _, _, sess = _load(export_dir, tags)
        with sess.as_default():
            assert [v.eval() for v in sess.graph.get_collection(key)] == [42]
            assert sess.graph.get_collection(absent) == []


def test_signature_defs(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 42)
        b.add_meta_graph_and_variables(
            sess, ["foo"], signature_def_map={"foo_key": build_signature_def({}, {}, "foo")})
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 43)
        b.add_meta_graph(["bar"], signature_def_map={
            "bar_key": build_signature_def({}, {}, "bar"),
            "foo_key": build_signature_def({}, {}, "foo_new")})
    b.save()
    foo = _load(export_dir, ["foo"])[0].signature_def
    assert {k: s.method_name for k, s in foo.items()} == {"foo_key": "foo"}
    bar = _load(export_dir, ["bar"])[0].signature_def
    assert {k: s.method_name for k, s in bar.items()} == {"bar_key": "bar",
                                                         "foo_key": "foo_new"}


def _info(**fields):
    info = meta_graph_pb2.TensorInfo()
    for path, value in fields.items():
        target = info
        *parents, leaf = path.split("__")
        for p in parents:
            target = getattr(target, p)
        setattr(target, leaf, value)
    return info


@pytest.mark.parametrize("info, ok", [
    (_info(dtype=types_pb2.DT_FLOAT), False),           # no encoding
    (_info(name="x"), False),                           # no dtype
    (_info(), False),                                   # empty
    (_info(name="foo", dtype=types_pb2.DT_FLOAT), True),
    (_info(coo_sparse__values_tensor_name="foo", dtype=types_pb2.DT_FLOAT), True),
])
@pytest.mark.parametrize("side", ["inputs", "outputs"])
def test_signature_def_validation(tmp_path, info, ok, side):
    b = SavedModelBuilder(str(tmp_path / "m"))
    sig = build_signature_def(**{side: {"foo_" + side: info}}, method_name="foo")
    with tf.Session(graph=tf.Graph()) as sess:
        _var(sess, "v", 42)
        if ok:
            b.add_meta_graph_and_variables(sess, ["foo"], signature_def_map={"foo_key": sig})
        else:
            with pytest.raises(AssertionError, match="All TensorInfo protos"):
                b.add_meta_graph_and_variables(sess, ["foo"],
                                               signature_def_map={"foo_key": sig})


def test_reserved_signature_keys(tmp_path):
    b = SavedModelBuilder(str(tmp_path / "m"))
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(KeyError, match="reserved"):
            b.add_meta_graph_and_variables(sess, ["foo"], signature_def_map={
                constants.INIT_OP_SIGNATURE_KEY: build_signature_def({}, {}, "x")})
