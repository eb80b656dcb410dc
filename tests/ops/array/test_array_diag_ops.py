"""Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag: names, static shapes and
errors (Diag/DiagPart expectations produced by TF 2.21 in a TF 2.21 environment; the matrix_* ops
are TF1's MatrixDiag/MatrixDiagPart/MatrixSetDiag under TF 2.21's default names)."""
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors


def test_names_and_shapes():
    with tf.Graph().as_default() as g:
        d = tf.diag([1., 2.])
        assert [f"{o.name}:{o.type}" for o in g.get_operations()] == ["Diag/diagonal:Const",
                                                                       "Diag:Diag"]
        assert str(d.shape) == "(2, 2)"
        assert str(tf.diag_part(tf.zeros([2, 2])).shape) == "(2,)"
        assert str(tf.diag_part(tf.placeholder(tf.float32, [None, 3, 2, None])).shape) == \
            "(2, 3)"
    with tf.Graph().as_default():  # op names are unique case-insensitively: "diag" ~ "Diag"
        m = tf.matrix_diag(tf.placeholder(tf.float32, [None, 3]))
        assert (m.op.name, m.op.type, str(m.shape)) == ("diag", "MatrixDiag", "(?, 3, 3)")
        p = tf.matrix_diag_part(tf.zeros([4, 2, 3]))
        assert (p.op.name, p.op.type, str(p.shape)) == ("diag_part", "MatrixDiagPart", "(4, 2)")
        s = tf.matrix_set_diag(tf.zeros([2, 2]), [1., 2.])
        assert (s.op.name, s.op.type, str(s.shape)) == ("set_diag", "MatrixSetDiag", "(2, 2)")


@pytest.mark.parametrize("build,message", [
    (lambda: tf.diag_part(tf.zeros([2, 3, 4])),
     "Input must have even and non-zero rank, input rank is 3"),
    (lambda: tf.diag_part(tf.zeros([2, 3])), "Dimensions must be equal, but are 2 and 3"),
    (lambda: tf.diag(tf.constant(1.)), "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.matrix_diag_part(tf.zeros([3])), "Shape must be at least rank 2 but is rank 1"),
    (lambda: tf.matrix_set_diag(tf.zeros([2, 3]), [1., 2., 3.]),
     "Dimensions must be equal, but are 3 and 2"),
])
def test_graph_time_errors(build, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=re.escape(message)):
            build()


def test_run_time_errors():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        part = tf.diag_part(p)
        q = tf.placeholder(tf.float32)
        set_diag = tf.matrix_set_diag(p, q)
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError,
                               match=re.escape("Invalid shape [2,3]: dimensions 0 and 1 do not "
                                               "match.")):
                sess.run(part, {p: np.zeros([2, 3], np.float32)})
            with pytest.raises(errors.InvalidArgumentError,
                               match=re.escape("diagonal must have shape [2], but received [3]")):
                sess.run(set_diag, {p: np.zeros([2, 3], np.float32),
                                    q: np.zeros([3], np.float32)})
