"""ReadFile, WriteFile, MatchingFiles."""
import pytest

import trainflow.compat.v1 as tf


def test_write_read_and_match(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        target = str(tmp_path / "sub" / "x.txt")
        w = tf.write_file(target, b"hello")
        assert w.type == "WriteFile"
        sess.run(w)
        sess.run(tf.write_file(str(tmp_path / "sub" / "y.txt"), "again"))
        assert sess.run(tf.read_file(target)) == b"hello"
        got = sess.run(tf.matching_files(str(tmp_path / "sub" / "*.txt")))
        assert got.tolist() == [target.encode(), str(tmp_path / "sub" / "y.txt").encode()]
        assert sess.run(tf.io.matching_files([str(tmp_path / "none*")])).tolist() == []
        with pytest.raises(tf.errors.NotFoundError, match="missing"):
            sess.run(tf.read_file(str(tmp_path / "missing")))
