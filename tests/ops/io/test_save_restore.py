"""The checkpoint ops: SaveV2/RestoreV2 (whole and sliced), V1 ops, merging and shard names."""
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.io import save_restore as io


def _run(fetches, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def test_save_v2_and_restore_whole_and_slices(tmp_path):
    prefix = str(tmp_path / "ck")
    full = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default():
        save = io.save_v2(prefix, ["a", "s", "p", "p"], ["", "", "4 3 0,2:-", "4 3 2,2:-"],
                          [tf.constant([1, 2], tf.int64), tf.constant([b"x", b""]),
                           tf.constant(full[:2]), tf.constant(full[2:])])
        _run(save)
        a, s, p, part = io.restore_v2(prefix, ["a", "s", "p", "p"], ["", "", "", "4 3 1,2:0,2"],
                                      [tf.int64, tf.string, tf.float32, tf.float32])
        assert part.shape.as_list() == [2, 2] and a.shape.rank is None
        got = _run([a, s, p, part])
    np.testing.assert_array_equal(got[0], [1, 2])
    assert list(got[1]) == [b"x", b""]
    np.testing.assert_array_equal(got[2], full)
    np.testing.assert_array_equal(got[3], full[1:3, :2])


@pytest.mark.parametrize("names, slices, dtypes, err, text", [
    (["zz"], [""], [tf.float32], errors.NotFoundError, "Key zz not found in checkpoint"),
    (["a"], [""], [tf.float64], errors.InvalidArgumentError,
     "tensor_name = a; expected dtype double does not equal original dtype float"),
    (["a"], ["3 0,1"], [tf.float32], errors.InvalidArgumentError,
     "does not match the shape stored in checkpoint: \\[2\\]"),
])
def test_restore_v2_errors(tmp_path, names, slices, dtypes, err, text):
    prefix = str(tmp_path / "ck")
    with tf.Graph().as_default():
        _run(io.save_v2(prefix, ["a"], [""], [tf.constant([1.0, 2.0])]))
        with pytest.raises(err, match=text) as e:
            _run(io.restore_v2(prefix, names, slices, dtypes))
    assert "RestoreV2" in e.value.message


def test_restore_v2_missing_checkpoint_names_prefix(tmp_path):
    with tf.Graph().as_default():
        with pytest.raises(errors.NotFoundError, match="nope"):
            _run(io.restore_v2(str(tmp_path / "nope"), ["a"], [""], [tf.float32]))


def test_v1_ops_and_restore_v2_fallback(tmp_path):
    path = str(tmp_path / "v1.ckpt")
    with tf.Graph().as_default():
        _run(io.save_slices(path, ["w", "p"], ["", "4 2 0,2:-"],
                            [tf.constant([[1, 2]], tf.int32), tf.constant([[1., 2.], [3., 4.]])]))
        _run(io.save(str(tmp_path / "plain"), ["q"], [tf.constant(5.0)]))
        w = io.restore_v2(path, ["w"], [""], [tf.int32])[0]
        p = io.restore_slice(path, "p", "4 2 0,2:-", tf.float32)
        q = io.restore(str(tmp_path / "plain"), "q", tf.float32)
        got = _run([w, p, q])
    np.testing.assert_array_equal(got[0], [[1, 2]])
    np.testing.assert_array_equal(got[1], [[1., 2.], [3., 4.]])
    assert got[2] == 5.0


def test_sharded_names_and_merge(tmp_path):
    with tf.Graph().as_default():
        base = tf.constant(str(tmp_path / "tmp" / "part"))
        names = [io.sharded_filename(base, i, 2) for i in range(2)]
        spec = io.sharded_filespec(base, 2)
        got = _run(names + [spec])
        assert got[0].endswith(b"part-00000-of-00002") and got[2].endswith(b"part-?????-of-00002")
        _run([io.save_v2(names[0], ["x"], [""], [tf.constant(1.0)]),
              io.save_v2(names[1], ["y"], [""], [tf.constant(2.0)])])
        dest = str(tmp_path / "merged")
        _run(io.merge_v2_checkpoints(tf.stack(names), dest))
        assert not os.path.exists(str(tmp_path / "tmp"))
        assert _run(io.restore_v2(dest, ["x", "y"], ["", ""], [tf.float32] * 2)) == [1.0, 2.0]
        with pytest.raises(errors.NotFoundError):
            _run(io.merge_v2_checkpoints([str(tmp_path / "gone")], dest))


def test_op_defs_are_tensorflows():
    from trainflow._src.framework import registry
    for op_type in ("SaveV2", "RestoreV2", "MergeV2Checkpoints", "SaveSlices"):
        assert registry.get(op_type).stateful
        assert registry.get_gradient(op_type) == (True, None)
    assert not registry.get("ShardedFilename").stateful
