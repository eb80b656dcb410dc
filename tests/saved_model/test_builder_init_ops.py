"""SavedModel init ops, savers, devices and default attrs: the main op (or legacy init op)
runs after the restore; one init op a graph; custom savers are the ones loaded; devices
cleared on request; default-valued attrs stripped on request and filled in on load."""
import os

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.saved_model import constants, loader, main_op, tag_constants
from trainflow._src.saved_model.builder import SavedModelBuilder
from trainflow._src.saved_model.loader import parse_saved_model
from trainflow._src.train.saveable_object import SaveableObject, SaveSpec


def _v_collection(export_dir, tags):
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = loader.load(sess, tags, export_dir)
        return sess.run(sess.graph.get_collection("v")), mgd


@pytest.mark.parametrize("kind", ["main_op", "legacy_init_op"])
def test_init_op_runs_after_restore(tmp_path, kind):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        v1 = tf.Variable(1, name="v1")
        v2 = tf.Variable(2, name="v2")
        v3 = tf.Variable(42, name="v3", trainable=False, collections=[])
        for v in (v1, v2, v3):
            tf.add_to_collection("v", v)
        sess.run(tf.global_variables_initializer())
        sess.run(v3.initializer)
        init = tf.group(tf.assign(v3, tf.add(v1, v2)), name="init_op")
        b.add_meta_graph_and_variables(sess, ["foo"], **{kind: init})
    b.save()
    values, mgd = _v_collection(export_dir, ["foo"])
    assert values == [1, 2, 3]
    assert list(mgd.collection_def[constants.MAIN_OP_KEY].node_list.value) == ["init_op"]


def test_custom_main_op_on_top_of_the_default_main_op(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        v1 = tf.Variable(1, name="v1")
        v2 = tf.Variable(2, name="v2")
        v3 = tf.Variable(42, name="v3")
        for v in (v1, v2, v3):
            tf.add_to_collection("v", v)
        with tf.control_dependencies([main_op.main_op()]):
            custom = tf.group(tf.assign(v3, tf.add(v1._ref(), v2._ref())))
        sess.run(custom)
        b.add_meta_graph_and_variables(sess, ["foo"], main_op=custom)
    b.save()
    assert _v_collection(export_dir, ["foo"])[0] == [1, 2, 3]


def test_main_op_with_restore_runs_after_the_restore(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        v1 = tf.Variable(1, name="v1")
        local = tf.Variable(0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        saver = tf.train.Saver([v1])
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "ckpt"))
        op = main_op.main_op_with_restore(saver.saver_def.restore_op_name)
        assert op.type == "NoOp"
        assert saver.saver_def.restore_op_name in {c.name for c in op.control_inputs} or any(
            saver.saver_def.restore_op_name in {c.name for c in i.op.control_inputs}
            for i in op.inputs)
        sess.run(v1.assign(5))
        sess.run(op, {saver.saver_def.filename_tensor_name: path})
        assert sess.run([v1, local]) == [1, 0]


@pytest.mark.parametrize("key", [constants.LEGACY_INIT_OP_KEY, constants.MAIN_OP_KEY])
@pytest.mark.parametrize("arg", ["legacy_init_op", "main_op"])
def test_one_init_op_a_graph(tmp_path, key, arg):
    b = SavedModelBuilder(str(tmp_path / "m"))
    with tf.Session(graph=tf.Graph()) as sess:
        v1 = tf.Variable(1, name="v1")
        sess.run(tf.global_variables_initializer())
        init = tf.group(v1.assign(2), name="init_op")
        tf.add_to_collection(key, tf.no_op())
        with pytest.raises(ValueError, match="Graph already contains"):
            b.add_meta_graph_and_variables(sess, ["foo"], **{arg: init})


def test_init_op_must_be_an_operation(tmp_path):
    b = SavedModelBuilder(str(tmp_path / "m"))
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(TypeError, match="main_op needs to be an Operation"):
            b.add_meta_graph_and_variables(sess, ["foo"], main_op=tf.constant(1))


@pytest.mark.parametrize("make, op_type", [
    (lambda v1, v2: tf.assign_add(v1, v2), "Tensor"),
    (lambda v1, v2: tf.group(), "Operation"),
])
def test_train_op(tmp_path, make, op_type):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        v1 = tf.Variable(1, name="v1")
        v2 = tf.Variable(2, name="v2")
        tf.add_to_collection("v", v1)
        tf.add_to_collection("v", v2)
        sess.run(tf.global_variables_initializer())
        b.add_meta_graph_and_variables(sess, ["pre_foo"])
        train_op = make(v1, v2)
        sess.run(train_op)
        b._add_train_op(train_op)
        b.add_meta_graph(["foo"])
    b.save()
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["foo"], export_dir)
        assert type(sess.graph.get_collection(constants.TRAIN_OP_KEY)[0]).__name__ == op_type
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["pre_foo"], export_dir)
        assert sess.graph.get_collection(constants.TRAIN_OP_KEY) == []


def test_ops_and_devices_survive(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        with sess.graph.device("/cpu:0"):
            v1 = tf.Variable(1, name="v1")
        with sess.graph.device("/cpu:1"):
            v2 = tf.Variable(2, name="v2")
        v3 = tf.Variable(1, name="v3", trainable=False, collections=[])
        init = tf.group(tf.assign(v3, tf.add(v1, v2)), name="init_op")
        for v in (v1, v2, v3):
            tf.add_to_collection("v", v)
        tf.add_to_collection("init_op", init)
        sess.run(tf.global_variables_initializer())
        b.add_meta_graph_and_variables(sess, ["foo"])
    b.save()
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["foo"], export_dir)
        v = sess.graph.get_collection("v")
        assert sess.run(v[:2]) == [1, 2]
        sess.run(sess.graph.get_collection("init_op")[0])
        assert sess.run(v[2]) == 3
        assert sess.graph.get_operation_by_name("v2").device.endswith("CPU:1")


def test_clear_devices(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        with sess.graph.device("/cpu:0"):
            tf.Variable(42, name="v")
            sess.run(tf.global_variables_initializer())
            b.add_meta_graph_and_variables(sess, [tag_constants.TRAINING], clear_devices=True)
    b.save()
    mgd = parse_saved_model(export_dir).meta_graphs[0]
    assert [n.device for n in mgd.graph_def.node] == [""] * len(mgd.graph_def.node)
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, [tag_constants.TRAINING], export_dir)
        assert sess.run(sess.graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)) == [42]


def _restore_op(export_dir, tag):
    with tf.Graph().as_default() as graph, tf.Session(graph=graph) as sess:
        mgd = loader.load(sess, [tag], export_dir)
        return mgd.saver_def.restore_op_name, {op.name for op in graph.get_operations()}


def test_custom_savers(tmp_path):
    export_dir = str(tmp_path / "custom")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        tf.Variable(1, name="v1")
        sess.run(tf.global_variables_initializer())
        b.add_meta_graph_and_variables(sess, ["tag"], saver=tf.train.Saver(name="my_saver"))
    b.save()
    name, ops = _restore_op(export_dir, "tag")
    assert name == "my_saver/restore_all"
    assert "my_saver/restore_all" in ops and "save/restore_all" not in ops

    export_dir = str(tmp_path / "no_custom")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        tf.Variable(1, name="v1")
        sess.run(tf.global_variables_initializer())
        tf.train.Saver(name="my_saver")
        b.add_meta_graph_and_variables(sess, ["tag"])
    b.save()
    name, ops = _restore_op(export_dir, "tag")
    assert name == "save/restore_all"
    assert {"my_saver/restore_all", "save/restore_all"} <= ops

    export_dir = str(tmp_path / "multiple")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        tf.Variable(1, name="v1")
        sess.run(tf.global_variables_initializer())
        b.add_meta_graph_and_variables(sess, ["tag_0"])
        b.add_meta_graph(["tag_1"], saver=tf.train.Saver())
        b.add_meta_graph(["tag_2"], saver=tf.train.Saver())
    b.save()
    assert [_restore_op(export_dir, f"tag_{i}")[0] for i in range(3)] == [
        "save/restore_all", "save_1/restore_all", "save_2/restore_all"]


def test_strip_default_attrs(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    for tags, strip in ((["foo"], True), (["bar"], False)):
        with tf.Session(graph=tf.Graph()) as sess:
            real = tf.Variable(1.0, name="real")
            imag = tf.Variable(2.0, name="imag")
            tf.complex(real, imag, name="complex")
            sess.run(tf.global_variables_initializer())
            if strip:
                b.add_meta_graph_and_variables(sess, tags, strip_default_attrs=True)
            else:
                b.add_meta_graph(tags, strip_default_attrs=False)
    b.save(as_text=True)

    def node(mgd):
        return next(n for n in mgd.graph_def.node if n.name == "complex")

    with tf.Session(graph=tf.Graph()) as sess:
        mgd = loader.load(sess, ["foo"], export_dir)
        assert {"T", "Tout"} <= set(node(mgd).attr)  # filled in from the op's defaults
        assert sess.run("complex:0") == 1 + 2j
    saved = {tuple(m.meta_info_def.tags): m for m in parse_saved_model(export_dir).meta_graphs}
    assert not {"T", "Tout"} & set(node(saved[("foo",)]).attr)
    assert saved[("foo",)].meta_info_def.stripped_default_attrs
    assert {"T", "Tout"} <= set(node(saved[("bar",)]).attr)


def test_bytes_and_pathlike_export_dirs(tmp_path):
    export_dir = tmp_path / "m"
    b = SavedModelBuilder(os.fsencode(export_dir))
    with tf.Session(graph=tf.Graph()) as sess:
        tf.Variable(7, name="v")
        sess.run(tf.global_variables_initializer())
        b.add_meta_graph_and_variables(sess, ["foo"])
    b.save()
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["foo"], export_dir)
        assert sess.run("v:0") == 7


class _PairSaveable(SaveableObject):
    """A custom saveable (TF's CheckpointedOp stand-in): two variables saved under the keys
    `<name>-keys` and `<name>-values`, restored by assignment."""

    def __init__(self, keys, values, name):
        specs = [SaveSpec(keys.value(), "", name + "-keys"),
                 SaveSpec(values.value(), "", name + "-values")]
        super().__init__(keys, specs, name)
        self.pair = (keys, values)

    def restore(self, restored_tensors, restored_shapes):
        return tf.group(*[tf.assign(v, t, validate_shape=False)
                          for v, t in zip(self.pair, restored_tensors)])


def test_custom_saveable(tmp_path):
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        keys = tf.Variable([b""], name="keys", collections=[], validate_shape=False)
        values = tf.Variable([0.0], name="values", collections=[], validate_shape=False)
        # named after its op, as TF's CheckpointedOp is (the collection exports names)
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, _PairSaveable(keys, values, "keys"))
        tf.add_to_collection("table_ref", keys)
        tf.add_to_collection("table_ref", values)
        sess.run([keys.initializer, values.initializer])
        sess.run([tf.assign(keys, [b"k1"], validate_shape=False),
                  tf.assign(values, [3.0], validate_shape=False)])
        b.add_meta_graph_and_variables(sess, ["foo"])
    b.save()
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["foo"], export_dir)
        keys, values = sess.graph.get_collection("table_ref")
        assert sess.run(keys).tolist() == [b"k1"]
        assert sess.run(values).tolist() == [3.0]


def test_missing_attr_without_default_fails_the_load(tmp_path):
    """A node that lost an attr its op has no default for cannot load (TF's message)."""
    export_dir = str(tmp_path / "m")
    b = SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        tf.Variable(1.0, dtype=tf.float64, name="var")
        tf.bitwise.invert(tf.constant(3, tf.int32), name="test_attr")
        sess.run(tf.global_variables_initializer())
        b.add_meta_graph_and_variables(sess, ["foo"])
    b.save(as_text=True)
    path = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    text = open(path).read()
    start = text.index('name: "test_attr"')
    attr = '      attr {\n        key: "T"\n        value {\n          type: DT_INT32\n' \
           '        }\n      }'
    at = text.index(attr, start)
    with open(path, "w") as f:
        f.write(text[:at] + text[at + len(attr):])
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(ValueError, match="NodeDef missing attr 'T' from Op<name=Invert"):
            loader.load(sess, ["foo"], export_dir)
