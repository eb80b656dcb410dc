"""tf.train.Saver: var_list forms, sharded and V1 saves, rotation, errors and the SaverDef."""
import os
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.protos import saver_pb2
from trainflow._src.train import saver as saver_module
from trainflow._src.train.saver_builder import BaseSaverBuilder

from fixture_paths import FIXTURES


def _two_vars():
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(3, name="b", dtype=tf.int64)
    return w, b


def _roundtrip(tmp_path, saver_kwargs, make=_two_vars):
    """Saves, scribbles over the variables, restores; returns (values, path, saver)."""
    with tf.Graph().as_default():
        variables = make()
        saver = tf.train.Saver(**saver_kwargs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(variables)
            path = saver.save(sess, str(tmp_path / "model.ckpt"))
            sess.run([v.assign(v * 0) for v in variables])
            saver.restore(sess, path)
            got = sess.run(variables)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
    return got, path, saver


@pytest.mark.parametrize("kwargs", [
    {}, {"sharded": True}, {"write_version": saver_pb2.SaverDef.V1},
    {"write_version": saver_pb2.SaverDef.V1, "sharded": True},
    {"restore_sequentially": True}, {"reshape": True}, {"builder": BaseSaverBuilder()},
], ids=["v2", "sharded", "v1", "v1_sharded", "sequential", "reshape", "base_builder"])
def test_save_restore_roundtrip(tmp_path, kwargs):
    _, path, saver = _roundtrip(tmp_path, kwargs)
    assert path == str(tmp_path / "model.ckpt") or path.endswith("-?????-of-00001")
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    assert os.path.exists(str(tmp_path / "model.ckpt.meta"))


def test_sharded_saves_one_shard_per_device_and_merges(tmp_path):
    def make():
        with tf.device("/cpu:0"):
            a = tf.Variable([1.0], name="a")
        with tf.device("/cpu:1"):
            c = tf.Variable([2.0, 3.0], name="c")
        return [a, c]
    _, path, saver = _roundtrip(tmp_path, {"sharded": True}, make)
    names = sorted(os.listdir(tmp_path))
    assert "model.ckpt.data-00000-of-00002" in names and "model.ckpt.data-00001-of-00002" in names
    assert not [n for n in names if "_temp" in n]
    assert saver.saver_def.sharded and saver.saver_def.save_tensor_name == "save/Identity:0"
    assert dict(tf.train.list_variables(path)) == {"a": [1], "c": [2]}


def test_var_list_dict_renames_and_partitioned_slices(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        part = tf.get_variable("p", [6, 2], partitioner=tf.fixed_size_partitioner(2),
                               initializer=tf.ones_initializer())
        saver = tf.train.Saver({"renamed": w, "emb": part})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
    assert dict(tf.train.list_variables(path)) == {"renamed": [2], "emb": [6, 2]}
    with tf.Graph().as_default():
        x = tf.Variable(tf.zeros([2]), name="x")
        slices = tf.get_variable("q", [6, 2], partitioner=tf.fixed_size_partitioner(3),
                                 initializer=tf.zeros_initializer())
        saver = tf.train.Saver({"renamed": x, "emb": list(slices)})
        with tf.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(x), [1.0, 2.0])
            np.testing.assert_array_equal(sess.run(slices.as_tensor()), np.ones([6, 2]))


def test_var_list_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to save"):
            tf.train.Saver()
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        with pytest.raises(ValueError, match="same saveable will be restored with two names"):
            tf.train.Saver({"a": w, "b": w})
        with pytest.raises(TypeError, match="Variables to save should be passed"):
            tf.train.Saver(var_list=w)
        with pytest.raises(ValueError, match="build cannot be deferred"):
            tf.train.Saver([w], defer_build=True)
        with pytest.raises(TypeError, match="Not a variable"):
            tf.train.Saver({"c": tf.constant(1.0)})


def test_allow_empty_and_defer_build(tmp_path):
    with tf.Graph().as_default():
        saver = tf.train.Saver(allow_empty=True)
        with tf.Session() as sess:
            assert saver.save(sess, str(tmp_path / "empty")) is None
            assert saver.restore(sess, str(tmp_path / "empty")) is None
    with tf.Graph().as_default():
        saver = tf.train.Saver(defer_build=True)
        tf.Variable(1.0, name="late")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(RuntimeError, match="build"):
                saver.save(sess, str(tmp_path / "x"))
            saver.build()
            path = saver.save(sess, str(tmp_path / "x"))
    assert dict(tf.train.list_variables(path)) == {"late": []}


def test_restore_op_runs_from_saver_def(tmp_path):
    _, path, saver = _roundtrip(tmp_path, {})
    with tf.Graph().as_default():
        w, b = _two_vars()
        saver = tf.train.Saver()
        d = saver.as_saver_def()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign([0.0, 0.0]))
            sess.run(d.restore_op_name, {d.filename_tensor_name: path})
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
            out = sess.run(d.save_tensor_name, {d.filename_tensor_name: path + "-again"})
            assert out == (path + "-again").encode()
        assert tf.train.Saver.from_proto(saver.to_proto()).saver_def == d


def test_missing_variable_names_key_and_file(tmp_path):
    _, path, _ = _roundtrip(tmp_path, {})
    with tf.Graph().as_default():
        _two_vars()
        tf.Variable([0.0], name="extra")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            with pytest.raises(errors.NotFoundError) as e:
                saver.restore(sess, path)
    assert "Key extra not found in checkpoint" in e.value.message and path in e.value.message


def test_shape_and_dtype_mismatch(tmp_path):
    _, path, _ = _roundtrip(tmp_path, {})
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0, 3.0], name="w")
        tf.Variable(3, name="b", dtype=tf.int64)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError) as e:
                saver.restore(sess, path)
    assert "[3]" in e.value.message and "[2]" in e.value.message
    assert "a mismatch between the current graph and the graph" in e.value.message
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="w", dtype=tf.float64)
        tf.Variable(3, name="b", dtype=tf.int64)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="expected dtype double does "
                               "not equal original dtype float"):
                saver.restore(sess, path)


def test_restore_bad_paths(tmp_path):
    with tf.Graph().as_default():
        _two_vars()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            with pytest.raises(ValueError, match="not a valid checkpoint: .*nothing"):
                saver.restore(sess, str(tmp_path / "nothing"))
            with pytest.raises(ValueError, match="when it is None"):
                saver.restore(sess, None)
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError, match="must not contain path components"):
                saver.save(sess, str(tmp_path / "a"), latest_filename="x/y")
            with pytest.raises(ValueError, match="collides with 'save_path'"):
                saver.save(sess, str(tmp_path / "checkpoint"))
            with pytest.raises(TypeError, match="must be a Session"):
                saver.save(object(), str(tmp_path / "a"))


def test_uninitialized_variable_save_fails(tmp_path):
    with tf.Graph().as_default():
        _two_vars()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError):
                saver.save(sess, str(tmp_path / "m"))
    assert not [n for n in os.listdir(tmp_path) if "m." in n]


def test_max_to_keep_and_state_file(tmp_path):
    with tf.Graph().as_default():
        _two_vars()
        saver = tf.train.Saver(max_to_keep=2, pad_step_number=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(4):
                saver.save(sess, str(tmp_path / "m"), global_step=step)
    kept = [str(tmp_path / f"m-{s:08d}") for s in (2, 3)]
    assert saver.last_checkpoints == kept
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["checkpoint"] + [os.path.basename(k) + ext for k in kept
                          for ext in (".index", ".data-00000-of-00001", ".meta")])
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == kept


def test_max_to_keep_none_keeps_all_and_write_state_false(tmp_path):
    with tf.Graph().as_default():
        _two_vars()
        saver = tf.train.Saver(max_to_keep=None)
        assert saver.saver_def.max_to_keep == 0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                saver.save(sess, str(tmp_path / "m"), global_step=step)
            saver.save(sess, str(tmp_path / "n"), write_state=False, write_meta_graph=False)
    assert saver.last_checkpoints == []
    assert len([n for n in os.listdir(tmp_path) if n.endswith(".index")]) == 4
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-2")
    assert not os.path.exists(str(tmp_path / "n.meta"))


def test_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with tf.Graph().as_default():
        _two_vars()
        saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step, minutes in enumerate((0, 30, 61, 70, 125, 130)):
                clock[0] = 1000.0 + 60 * minutes
                saver.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
    left = sorted(n[:-6] for n in os.listdir(tmp_path) if n.endswith(".index"))
    # Step 2 (61 min) is the first past the one-hour mark, step 4 (125 min) past the next.
    assert left == ["m-2", "m-4", "m-5"]


def test_set_and_recover_last_checkpoints(tmp_path):
    with tf.Graph().as_default():
        _two_vars()
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            p1 = saver.save(sess, str(tmp_path / "m"), global_step=1)
        saver2 = tf.train.Saver(max_to_keep=2)
        saver2.recover_last_checkpoints([p1, str(tmp_path / "missing")])
        assert saver2.last_checkpoints == [p1]
        saver2.set_last_checkpoints(["a", "b"])
        assert saver2.last_checkpoints == ["a", "b"]
        saver2.set_last_checkpoints_with_time([("c", 1.0)])
        assert saver2.last_checkpoints == ["c"]
        with pytest.raises(AssertionError):
            saver2.set_last_checkpoints("a")


def test_saver_def_with_name_scope_prefix():
    d = saver_pb2.SaverDef(filename_tensor_name="save/Const:0",
                           save_tensor_name="save/control_dependency:0",
                           restore_op_name="save/restore_all")
    saver = tf.train.Saver(saver_def=d, name="imported")
    assert saver.saver_def.restore_op_name == "imported/save/restore_all"
    with pytest.raises(ValueError, match="save_tensor_name"):
        tf.train.Saver(saver_def=saver_pb2.SaverDef(restore_op_name="x"))


def test_object_based_checkpoint_restores_by_name():
    prefix = os.path.join(FIXTURES, "checkpoints", "e_object_based", "ckpt-1")
    reader = tf.train.load_checkpoint(prefix)
    graph = reader.get_object_graph()
    names = {a.full_name: a.checkpoint_key for n in graph.nodes for a in n.attributes}
    kernel = next(k for k in names if k.endswith("kernel"))
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros(reader.get_variable_to_shape_map()[names[kernel]], np.float32),
                        name=kernel)
        saver = tf.train.Saver([v])
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(v), reader.get_tensor(names[kernel]))
        other = tf.Variable(0.0, name="not_there")
        saver = tf.train.Saver([other])
        with tf.Session() as sess:
            with pytest.raises(errors.NotFoundError, match="Existing variables not in the "
                               "checkpoint: not_there"):
                saver.restore(sess, prefix)


def test_reshape_restores_a_tensor_of_another_shape(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
    with tf.Graph().as_default():
        v = tf.Variable(tf.zeros([3, 2]), name="v")
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match=r"\[3, 2\].*\[2, 3\]"):
                tf.train.Saver().restore(sess, path)
            tf.train.Saver(reshape=True).restore(sess, path)
            np.testing.assert_array_equal(sess.run(v), np.arange(6).reshape(3, 2))


class _CheckpointedOp(saver_module.BaseSaverBuilder.SaveableObject):
    """TF's saver_test pattern: a custom saveable through the builder's aliases."""

    def __init__(self, var, name):
        spec = saver_module.BaseSaverBuilder.SaveSpec(var, "", name)
        super().__init__(var, [spec], name)

    def restore(self, restored_tensors, restored_shapes):
        return tf.assign(self.op, restored_tensors[0])


def test_custom_saveable_through_base_saver_builder_aliases(tmp_path):
    from trainflow._src.train import saveable_object
    assert BaseSaverBuilder.SaveableObject is saveable_object.SaveableObject
    assert BaseSaverBuilder.SaveSpec is saveable_object.SaveSpec
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        saver = tf.train.Saver([_CheckpointedOp(v, "custom")])
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = saver.save(sess, str(tmp_path / "m"))
            sess.run(v.assign([0.0, 0.0]))
            saver.restore(sess, path)
            assert sess.run(v).tolist() == [1.0, 2.0]
    assert tf.train.list_variables(path) == [("custom", [2])]
