"""tf.nn.safe_embedding_lookup_sparse, with TensorFlow 2.21's values: invalid ids and
non-positive weights dropped, empty rows zero (or the default id's embedding), rank 3."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

_IDX = [[0, 0], [0, 1], [2, 0], [3, 1]]


@pytest.mark.parametrize("kind, want", [
    ("mean", [[3.0, 4.0], [0.0, 0.0], [0.0, 0.0], [3.0, 4.0]]),
    ("sum_w", [[-3.0, -2.0], [0.0, 0.0], [0.0, 0.0], [1.5, 2.0]]),
    ("sqrtn_w_default", [[1.0, 2.0], [3.0, 4.0], [3.0, 4.0], [3.0, 4.0]]),
    ("rank3", [[[1.0, 2.0], [5.0, 6.0]], [[3.0, 4.0], [0.0, 0.0]]]),
])
def test_safe_embedding_lookup_sparse(kind, want):
    with tf.Graph().as_default(), tf.Session() as sess:
        w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        sp = tf.SparseTensor(_IDX, tf.constant([0, 2, -1, 1], tf.int64), [4, 2])
        spw = tf.SparseTensor(_IDX, tf.constant([2.0, -1.0, 1.0, 0.5]), [4, 2])
        if kind == "mean":
            out = tf.nn.safe_embedding_lookup_sparse(w, sp)
        elif kind == "sum_w":
            out = tf.nn.safe_embedding_lookup_sparse(w, sp, spw, combiner="sum")
        elif kind == "sqrtn_w_default":
            out = tf.nn.safe_embedding_lookup_sparse(w, sp, spw, combiner="sqrtn",
                                                     default_id=1)
        else:
            sp3 = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 0, 0]],
                                  tf.constant([0, 2, 1], tf.int64), [2, 2, 2])
            out = tf.nn.safe_embedding_lookup_sparse(w, sp3)
        np.testing.assert_allclose(sess.run(out), want, rtol=1e-6)


def test_safe_embedding_lookup_sparse_gradient_and_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        sp = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([0, 2, -1], tf.int64),
                             [4, 2])
        out = tf.nn.safe_embedding_lookup_sparse(w, sp)
        grad = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(out), w)[0])
        sess.run(w.initializer)
        np.testing.assert_allclose(sess.run(grad), [[0.5, 0.5], [0, 0], [0.5, 0.5]])
        with pytest.raises(ValueError, match="Missing embedding_weights"):
            tf.nn.safe_embedding_lookup_sparse(None, sp)
