"""tf.train.Checkpoint / CheckpointManager in graph mode: TF's object graph (byte for byte
against TensorFlow's checkpoint), restore statuses, save counters, rotation."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.train.object_graph import ObjectGraphView

from fixture_paths import FIXTURES

TF_CKPT = os.path.join(FIXTURES, "checkpoints", "e_object_based")


class Module:
    """A plain object holding variables, as tf.Module does."""


def _fixture_model():
    model = Module()
    model.dense = Module()
    model.dense.kernel = tf.Variable(tf.zeros([2, 2]), name="kernel")
    model.dense.bias = tf.Variable(tf.zeros([2]), name="bias")
    model.scale = tf.Variable(1.0, name="scale")
    step = tf.train.get_or_create_global_step()
    opt = tf.train.AdamOptimizer(0.05)
    loss = tf.reduce_sum(tf.square(
        model.scale * (tf.matmul([[1.0, 2.0]], model.dense.kernel) + model.dense.bias)))
    train = opt.minimize(loss, global_step=step)
    return tf.train.Checkpoint(model=model, optimizer=opt, step=step), model, train


def test_restores_tensorflows_checkpoint_and_matches_its_object_graph():
    with open(os.path.join(TF_CKPT, "ckpt-1.json")) as f:
        spec = json.load(f)
    with tf.Graph().as_default():
        ckpt, model, _ = _fixture_model()
        status = ckpt.restore(os.path.join(TF_CKPT, "ckpt-1"))
        proto = ObjectGraphView(ckpt).to_proto()
        assert proto.SerializeToString().hex() == spec["object_graph_serialized_hex"]
        status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            keys = spec["checkpoint_keys"]
            np.testing.assert_array_equal(
                sess.run(model.dense.kernel),
                keys["model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"]["value"])
            assert sess.run(ckpt.save_counter) == 1
            assert sess.run(ckpt.optimizer.get_slot(model.scale, "v")) == np.float32(
                keys["model/scale/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE"]["value"])


def test_save_restore_roundtrip_and_state_file(tmp_path):
    with tf.Graph().as_default():
        ckpt, model, train = _fixture_model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            first = ckpt.save(str(tmp_path / "ckpt"), session=sess)
            want = sess.run(model.dense.kernel)
            sess.run(train)
            second = ckpt.save(str(tmp_path / "ckpt"), session=sess)
            assert [os.path.basename(first), os.path.basename(second)] == ["ckpt-1", "ckpt-2"]
            assert (tmp_path / "checkpoint").read_text() == \
                'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-2"\n'
            status = ckpt.restore(first)
            status.assert_consumed()
            status.run_restore_ops(sess)
            np.testing.assert_array_equal(sess.run(model.dense.kernel), want)
            assert sess.run(ckpt.save_counter) == 1
            written = ckpt.write(str(tmp_path / "plain"), session=sess)
    assert written == str(tmp_path / "plain")
    names = dict(tf.train.list_variables(written))
    assert "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in names


def test_partial_matches_and_assertions(tmp_path):
    with tf.Graph().as_default():
        a = tf.Variable(1.0, name="a")
        b = tf.Variable([2.0], name="b")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Checkpoint(a=a, b=b).save(str(tmp_path / "c"), session=sess)
    with tf.Graph().as_default():
        a = tf.Variable(0.0, name="a")
        extra = tf.Variable(5.0, name="extra")
        status = tf.train.Checkpoint(a=a, extra=extra).restore(path)
        with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
            status.assert_consumed()
        with pytest.raises(AssertionError, match="not bound to checkpointed values"):
            status.assert_existing_objects_matched()
        status.assert_nontrivial_match()
        with tf.Session() as sess:
            status.expect_partial().initialize_or_restore(sess)
            assert sess.run([a, extra]) == [1.0, 5.0]
    with tf.Graph().as_default():
        v = tf.Variable(3.0, name="v")
        status = tf.train.Checkpoint(v=v).restore(None)
        with pytest.raises(AssertionError, match="No checkpoint specified"):
            status.assert_consumed()
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            assert sess.run(v) == 3.0
        with pytest.raises(ValueError, match="expecting a trackable object"):
            tf.train.Checkpoint(x=3)
        with pytest.raises(RuntimeError, match="needs a session"):
            tf.train.Checkpoint(v=v).save(str(tmp_path / "x"))


def test_lists_dicts_and_name_based_checkpoints(tmp_path):
    with tf.Graph().as_default():
        layers = [tf.Variable(1.0, name="l0"), {"lr": tf.Variable(0.5, name="lr")}]
        ckpt = tf.train.Checkpoint(layers=layers)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ckpt.write(str(tmp_path / "o"), session=sess)
            name_based = tf.train.Saver().save(sess, str(tmp_path / "n"))
    assert "layers/1/lr/.ATTRIBUTES/VARIABLE_VALUE" in dict(tf.train.list_variables(path))
    with tf.Graph().as_default():
        lr = tf.Variable(0.0, name="lr")
        status = tf.train.Checkpoint(x=lr).restore(name_based)
        with tf.Session() as sess:
            status.assert_consumed().run_restore_ops(sess)
            assert sess.run(lr) == 0.5


def test_checkpoint_manager_rotation_and_restore(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(0.0, name="v")
        step = tf.train.get_or_create_global_step()
        ckpt = tf.train.Checkpoint(v=v, step=step)
        manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
        assert manager.latest_checkpoint is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(3):
                sess.run(v.assign(float(i)))
                with sess.as_default():
                    manager.save()
            with sess.as_default():
                assert manager.save(checkpoint_number=step) == str(tmp_path / "ckpt-0")
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-3", "ckpt-0"]
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".index"))
    assert files == ["ckpt-0.index", "ckpt-3.index"]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert len(state.all_model_checkpoint_timestamps) == 2
    with tf.Graph().as_default():
        v = tf.Variable(9.0, name="v")
        step = tf.train.get_or_create_global_step()
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v, step=step),
                                             str(tmp_path), max_to_keep=2)
        assert manager.checkpoints == [str(tmp_path / "ckpt-3"), str(tmp_path / "ckpt-0")]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with sess.as_default():
                assert manager.restore_or_initialize() == str(tmp_path / "ckpt-0")
            assert sess.run(v) == 2.0
    with pytest.raises(ValueError, match="positive integer"):
        tf.train.CheckpointManager(None, str(tmp_path), max_to_keep=0)
    with pytest.raises(ValueError, match="step_counter"):
        tf.train.CheckpointManager(None, str(tmp_path), 1, checkpoint_interval=5)
