"""tf.data.DatasetSpec and TF 1.15's tf.data.experimental.*Structure names: the reprs and
equalities TF 2.21's tf.compat.v1 gives (recorded)."""
import pytest

import trainflow.compat.v1 as tf

E = tf.data.experimental

CASES = [
    (lambda: E.TensorStructure(tf.int32, [2]), "TensorSpec(shape=(2,), dtype=tf.int32, name=None)"),
    (lambda: E.SparseTensorStructure(tf.int64, [None, 3]),
     "SparseTensorSpec(TensorShape([None, 3]), tf.int64)"),
    (lambda: E.RaggedTensorStructure(tf.float32, [None, None], 1),
     "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64)"),
    (lambda: E.TensorArrayStructure(tf.float32, [2], False, True),
     "TensorArraySpec(TensorShape([2]), tf.float32, False, True)"),
    (lambda: tf.data.DatasetSpec(tf.TensorSpec([], tf.int64)),
     "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"),
    (lambda: tf.data.DatasetSpec.from_value(tf.data.Dataset.range(3)),
     "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"),
    (lambda: tf.data.DatasetSpec.from_value(
        tf.data.Dataset.from_tensor_slices(({"a": [[1.0, 2.0]]}, [3]))),
     "DatasetSpec(({'a': TensorSpec(shape=(2,), dtype=tf.float32, name=None)}, "
     "TensorSpec(shape=(), dtype=tf.int32, name=None)), TensorShape([]))"),
]


@pytest.mark.parametrize("make, want", CASES, ids=[c[1][:40] for c in CASES])
def test_reprs_match_tf(make, want):
    with tf.Graph().as_default():
        assert repr(make()) == want


def test_the_old_class_names_are_the_specs():
    assert E.Structure is tf.TypeSpec
    assert E.OptionalStructure is tf.OptionalSpec
    assert E.DatasetStructure is tf.data.DatasetSpec


def test_dataset_spec_equality_and_value_type():
    spec = tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    assert spec == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    assert spec != tf.data.DatasetSpec(tf.TensorSpec([2], tf.int64))
    assert spec.element_spec == tf.TensorSpec([], tf.int64)
    assert spec.value_type is tf.data.Dataset
