"""tf.data's sparse utilities, ported from TF's python/data/util/sparse_test (6 methods)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.data import nest, sparse

T, S = tf.Tensor, tf.SparseTensor
SCALAR, UNKNOWN = tf.TensorShape([]), tf.TensorShape(None)


@pytest.mark.parametrize("classes,expected", [
    ((), False), ((T), False), ((((T))), False), ((T, T), False), ((T, S), True),
    ((S, S), True), ((((S))), True)])
def test_any_sparse(classes, expected):  # testAnySparse
    assert sparse.any_sparse(classes) == expected


# (types-or-shapes, classes, expected), shared by the two as_dense tests
def _cases(leaf, dense):
    return [((), (), ()), (leaf, T, leaf), (leaf, S, dense), ((leaf, ()), (T, ()), (leaf, ())),
            (((), leaf), ((), T), ((), leaf)), ((leaf, ()), (S, ()), (dense, ())),
            (((), leaf), ((), S), ((), dense)), ((leaf, (), leaf), (T, (), T), (leaf, (), leaf)),
            ((leaf, (), leaf), (S, (), S), (dense, (), dense)),
            (((), leaf, ()), ((), T, ()), ((), leaf, ())),
            (((), leaf, ()), ((), S, ()), ((), dense, ()))]


@pytest.mark.parametrize("shapes,classes,expected", _cases(SCALAR, UNKNOWN))
def test_as_dense_shapes(shapes, classes, expected):  # testAsDenseShapes
    got = sparse.as_dense_shapes(shapes, classes)
    for a, b in zip(nest.flatten(got), nest.flatten(expected)):
        assert a.rank == b.rank and (a.rank is None or a.as_list() == b.as_list())
    nest.assert_same_structure(got, expected)


@pytest.mark.parametrize("types,classes,expected", _cases(tf.int32, tf.variant))
def test_as_dense_types(types, classes, expected):  # testAsDenseTypes
    assert sparse.as_dense_types(types, classes) == expected


def _st():
    return tf.SparseTensor(indices=[[0]], values=[1], dense_shape=[1])


@pytest.mark.parametrize("make,expected", [
    (lambda: (), ()), (_st, S), (lambda: tf.constant([1]), T), (lambda: (_st(), ()), (S, ())),
    (lambda: ((), _st()), ((), S)), (lambda: (tf.constant([1]), ()), (T, ())),
    (lambda: ((), tf.constant([1])), ((), T)),
    (lambda: (_st(), (), tf.constant([1])), (S, (), T)),
    (lambda: ((), _st(), ()), ((), S, ())), (lambda: ((), tf.constant([1]), ()), ((), T, ()))])
def test_get_classes(make, expected):  # testGetClasses
    with tf.Graph().as_default():
        assert sparse.get_classes(make()) == expected


SERIALIZE_CASES = [
    lambda: (),
    lambda: tf.SparseTensor(indices=[[0, 0]], values=[1], dense_shape=[1, 1]),
    lambda: tf.SparseTensor(indices=[[3, 4]], values=[-1], dense_shape=[4, 5]),
    lambda: tf.SparseTensor(indices=[[0, 0], [3, 4]], values=[1, -1], dense_shape=[4, 5]),
    lambda: (tf.SparseTensor(indices=[[0, 0]], values=[1], dense_shape=[1, 1])),
    lambda: (tf.SparseTensor(indices=[[0, 0]], values=[1], dense_shape=[1, 1]), ()),
    lambda: ((), tf.SparseTensor(indices=[[0, 0]], values=[1], dense_shape=[1, 1])),
]


@pytest.mark.parametrize("serialize", ["serialize_sparse_tensors",
                                       "serialize_many_sparse_tensors"],
                         ids=["testSerializeDeserialize", "testSerializeManyDeserialize"])
@pytest.mark.parametrize("make", SERIALIZE_CASES)
def test_serialize_deserialize(make, serialize):
    with tf.Graph().as_default():
        case = make()
        classes = sparse.get_classes(case)
        shapes = nest.map_structure(lambda _: tf.TensorShape(None), classes)
        types = nest.map_structure(lambda _: tf.int32, classes)
        actual = sparse.deserialize_sparse_tensors(
            getattr(sparse, serialize)(case), types, shapes, classes)
        nest.assert_same_structure(case, actual)
        with tf.Session() as sess:
            for a, e in zip(nest.flatten(actual), nest.flatten(case)):
                assert isinstance(a, tf.SparseTensor)
                got, want = sess.run([a, e])
                np.testing.assert_array_equal(got.indices, want.indices)
                np.testing.assert_array_equal(got.values, want.values)
                np.testing.assert_array_equal(got.dense_shape, want.dense_shape)
