"""`tf.sets` without TensorFlow: TF's errors for unsorted sparse indices (TF's own message
is what these check; the interop test cannot, TF fails to format it for exec'd code),
the not-differentiable marks, and static shapes."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors, registry

from op_checks import raises

UNSORTED = "indices[1] = [0,0] is out of order. Many sparse ops require sorted indices."


@pytest.mark.parametrize("build", [
    lambda s: tf.sets.size(s), lambda s: tf.sets.union(s, s),
    lambda s: tf.sets.intersection([[1, 2, 3], [4, 5, 6]], s)])
def test_unsorted_indices_are_invalid_argument(build):
    with tf.Graph().as_default():
        out = build(tf.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 3]))
        with tf.Session() as sess, raises(errors.InvalidArgumentError, UNSORTED):
            sess.run(out)


def test_unsorted_indices_pass_without_validation():
    with tf.Graph().as_default():
        out = tf.sets.size(tf.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 3]),
                           validate_indices=False)
        with tf.Session() as sess:
            assert sess.run(out).tolist() == [1, 1]


@pytest.mark.parametrize("build, message", [
    (lambda: tf.sets.size([[1, 2]]), "Expected `SparseTensor`"),
    (lambda: tf.sets.union([[1.]], [[2.]]), "'a' has invalid dtype"),
    (lambda: tf.sets.union([[1]], tf.constant([[2]], tf.int64)), "Types don't match"),
])
def test_type_errors(build, message):
    with tf.Graph().as_default(), raises(TypeError, message):
        build()


def test_set_ops_have_no_gradient():
    with tf.Graph().as_default():
        a = tf.constant([[1, 2]])
        for op_type in ("SetSize", "DenseToDenseSetOperation", "DenseToSparseSetOperation",
                        "SparseToSparseSetOperation"):
            assert registry.get_gradient(op_type) == (True, None)
        union = tf.sets.union(a, a)
        assert union.values.shape.as_list() == [None]
        assert union.dense_shape.shape.as_list() == [2]
