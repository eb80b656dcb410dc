"""tf.train.warm_start with VocabInfo: vocabulary remapping of rows and columns, OOV buckets,
partitions, renames and TF's errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from warm_start_files import write_warm_start_files


@pytest.fixture
def ckpt(tmp_path):
    write_warm_start_files(tmp_path, ["c", "z", "a"])
    return tmp_path


def _run(tensors):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(tensors)


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_row_vocab_remap_with_oov_and_partitions(ckpt, parts):
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [4, 2], partitioner=tf.fixed_size_partitioner(parts),
                              initializer=tf.ones_initializer())
        w = tf.get_variable("w", [2])
        info = tf.train.VocabInfo(str(ckpt / "new.txt"), 3, 1, str(ckpt / "old.txt"))
        tf.train.warm_start(str(ckpt), ".*", {"emb": info})
        got_emb, got_w = _run([emb.as_tensor(), w])
    np.testing.assert_array_equal(got_emb, [[4, 5], [0, 0], [0, 1], [0, 0]])
    np.testing.assert_array_equal(got_w, [1.0, 2.0])


def test_column_vocab_remap_and_backup_initializer(ckpt):
    with tf.Graph().as_default():
        out = tf.get_variable("out", [2, 4], initializer=tf.ones_initializer())
        info = tf.train.VocabInfo(str(ckpt / "new.txt"), 3, 1, str(ckpt / "old.txt"),
                                  old_vocab_size=3, backup_initializer=tf.ones_initializer(),
                                  axis=1)
        tf.train.warm_start(str(ckpt / "m"), ["out"], {"out": info})
        got = _run(out)
    # new c -> old column 2, z missing, a -> column 0; one OOV column; old vocab cut to 3.
    np.testing.assert_array_equal(got, [[4, 1, 0, 1], [5, 1, 1, 1]])


def test_renames_and_none_selects_only_vocab_vars(ckpt):
    with tf.Graph().as_default():
        v = tf.get_variable("renamed", [2], initializer=tf.zeros_initializer())
        other = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        tf.train.warm_start(str(ckpt), [v], var_name_to_prev_var_name={"renamed": "w"})
        np.testing.assert_array_equal(_run(v), [1.0, 2.0])
        np.testing.assert_array_equal(_run(other), [0.0, 0.0])
    with tf.Graph().as_default():
        w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        tf.train.warm_start(str(ckpt), None)
        np.testing.assert_array_equal(_run(w), [0.0, 0.0])


def test_errors(ckpt):
    with pytest.raises(ValueError, match="axis argument are 0 and 1"):
        tf.train.VocabInfo("a", 1, 0, "b", axis=2)
    with tf.Graph().as_default():
        tf.get_variable("w", [2])
        with pytest.raises(ValueError, match="var_name_to_vocab_info that were not used"):
            tf.train.warm_start(str(ckpt), ".*", {"nope": tf.train.VocabInfo("a", 1, 0, "b")})
        with pytest.raises(ValueError, match="var_name_to_prev_var_name that were not used"):
            tf.train.warm_start(str(ckpt), ".*", var_name_to_prev_var_name={"x": "w"})
        with pytest.raises(ValueError, match="must be a `list` or `str`"):
            tf.train.warm_start(str(ckpt), 3)


def test_checkpoint_ops_directly(ckpt):
    from trainflow._src.framework import errors
    from trainflow._src.ops.io import checkpoint_ops
    with tf.Graph().as_default():
        remap, present = checkpoint_ops.generate_vocab_remapping(
            str(ckpt / "new.txt"), str(ckpt / "old.txt"), new_vocab_offset=1, num_new_vocab=2)
        out = checkpoint_ops.load_and_remap_matrix(
            str(ckpt / "m"), "emb", [3, -1], [1, 0], [9.0, 9.0], num_rows=2, num_cols=2)
        bad = checkpoint_ops.load_and_remap_matrix(
            str(ckpt / "m"), "emb", [3, -1], [], [9.0], num_rows=2, num_cols=2)
        with tf.Session() as sess:
            r, n, o = sess.run([remap, present, out])
            with pytest.raises(errors.InvalidArgumentError, match="initializing_values"):
                sess.run(bad)
    np.testing.assert_array_equal(r, [-1, 0])
    assert n == 1
    np.testing.assert_array_equal(o, [[7, 6], [9, 9]])
