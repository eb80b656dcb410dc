"""Type specs (tf.TypeSpec and its subclasses), tf.type_spec_from_value and
tf.is_symbolic_tensor against what TensorFlow 2.21 shows (reprs, equality, compatibility,
errors recorded from it)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


REPRS = [
    (lambda: tf.TensorSpec([2, None], tf.float32, name="x"),
     "TensorSpec(shape=(2, None), dtype=tf.float32, name='x')"),
    (lambda: tf.TensorSpec(None), "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)"),
    (lambda: tf.TensorSpec([]), "TensorSpec(shape=(), dtype=tf.float32, name=None)"),
    (lambda: tf.TensorSpec(3), "TensorSpec(shape=(3,), dtype=tf.float32, name=None)"),
    (lambda: tf.TensorSpec.from_tensor(tf.zeros([3]), name="z"),
     "TensorSpec(shape=(3,), dtype=tf.float32, name='z')"),
    (lambda: tf.TensorSpec.from_tensor(tf.zeros([3], name="zz")),
     "TensorSpec(shape=(3,), dtype=tf.float32, name='zz')"),
    (lambda: tf.TensorSpec.from_spec(tf.TensorSpec([2], tf.int32, "a")),
     "TensorSpec(shape=(2,), dtype=tf.int32, name='a')"),
    (lambda: tf.SparseTensorSpec([2, 3], tf.int32),
     "SparseTensorSpec(TensorShape([2, 3]), tf.int32)"),
    (lambda: tf.SparseTensorSpec(), "SparseTensorSpec(TensorShape(None), tf.float32)"),
    (lambda: tf.SparseTensorSpec.from_value(tf.SparseTensor([[0, 0]], [1.], [2, 3])),
     "SparseTensorSpec(TensorShape([2, 3]), tf.float32)"),
    (lambda: tf.RaggedTensorSpec.from_value(tf.ragged.constant([[1, 2], [3]])),
     "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)"),
    (lambda: tf.RaggedTensorSpec([2, None, None], tf.int32),
     "RaggedTensorSpec(TensorShape([2, None, None]), tf.int32, 2, tf.int64)"),
    (lambda: tf.RaggedTensorSpec([2, None, 3], tf.int32, ragged_rank=1,
                                 row_splits_dtype=tf.int32),
     "RaggedTensorSpec(TensorShape([2, None, 3]), tf.int32, 1, tf.int32)"),
    (lambda: tf.IndexedSlicesSpec(),
     "IndexedSlicesSpec(TensorShape(None), tf.float32, tf.int64, None, TensorShape([None]))"),
    (lambda: tf.IndexedSlicesSpec([2, 3], tf.int32, tf.int32, tf.int64, [4]),
     "IndexedSlicesSpec(TensorShape([2, 3]), tf.int32, tf.int32, tf.int64, "
     "TensorShape([4]))"),
    (lambda: tf.NoneTensorSpec(), "NoneTensorSpec()"),
    (lambda: tf.TensorArraySpec(), "TensorArraySpec(TensorShape(None), tf.float32, False, True)"),
    (lambda: tf.TensorArraySpec([2], tf.int32, True, False),
     "TensorArraySpec(TensorShape([2]), tf.int32, True, False)"),
    (lambda: tf.OptionalSpec(tf.TensorSpec([2])),
     "OptionalSpec(TensorSpec(shape=(2,), dtype=tf.float32, name=None),)"),
    # type_spec_from_value
    (lambda: tf.type_spec_from_value(tf.zeros([2])),
     "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"),
    (lambda: tf.type_spec_from_value(tf.SparseTensor([[0, 0]], [1.], [2, 3])),
     "SparseTensorSpec(TensorShape([2, 3]), tf.float32)"),
    (lambda: tf.type_spec_from_value(tf.ragged.constant([[1, 2], [3]])),
     "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)"),
    (lambda: tf.type_spec_from_value(np.zeros([2, 2])),
     "TensorSpec(shape=(2, 2), dtype=tf.float64, name=None)"),
    (lambda: tf.type_spec_from_value([1, 2]),
     "TensorSpec(shape=(2,), dtype=tf.int32, name=None)"),
    (lambda: tf.type_spec_from_value(3.0), "TensorSpec(shape=(), dtype=tf.float32, name=None)"),
    (lambda: tf.type_spec_from_value("abc"),
     "TensorSpec(shape=(), dtype=tf.string, name=None)"),
    (lambda: tf.type_spec_from_value(tf.TensorArray(tf.float32, 3)),
     "TensorArraySpec(TensorShape(None), tf.float32, False, True)"),
]


@pytest.mark.parametrize("build,expected", REPRS, ids=[r[1] for r in REPRS])
def test_repr(build, expected):
    assert repr(build()) == expected


def test_tensor_spec_equality_and_compatibility():
    s = tf.TensorSpec([2, None], tf.float32, name="x")
    assert str(s) == repr(s) and s.name == "x" and s.dtype == tf.float32
    assert s.shape.as_list() == [2, None] and s.value_type is tf.Tensor
    assert s == tf.TensorSpec([2, None], tf.float32, name="x")
    assert s != tf.TensorSpec([2, None], tf.float32)
    assert hash(s) == hash(tf.TensorSpec([2, None], tf.float32, name="x"))
    assert s.is_compatible_with(tf.TensorSpec([2, 3]))
    assert not s.is_compatible_with(tf.TensorSpec([3, 3]))
    assert s.is_compatible_with(tf.zeros([2, 5]))
    assert not s.is_compatible_with(np.zeros([2, 1], np.float32))
    assert not tf.TensorSpec([2]).is_compatible_with(tf.TensorSpec([2], tf.int32))
    assert tf.TensorSpec([2], name="a").is_compatible_with(tf.TensorSpec([2], name="b"))
    assert repr(s.most_specific_compatible_type(tf.TensorSpec([2, 3], name="x"))) == \
        "TensorSpec(shape=(2, None), dtype=tf.float32, name='x')"
    assert repr(tf.TensorSpec([2], name="a").most_specific_compatible_type(
        tf.TensorSpec([3], name="a"))) == "TensorSpec(shape=(None,), dtype=tf.float32, name='a')"
    for other in (tf.TensorSpec([2], tf.int32), tf.TensorSpec([3], name="b")):
        with pytest.raises(ValueError, match="No TypeSpec is compatible with both"):
            tf.TensorSpec([2], name="a").most_specific_compatible_type(other)


def test_composite_specs():
    st = tf.SparseTensor([[0, 0]], [1.], [2, 3])
    rt = tf.ragged.constant([[1, 2], [3]])
    assert tf.SparseTensorSpec([2, 3]).is_compatible_with(st)
    assert tf.SparseTensorSpec().value_type is tf.SparseTensor
    assert tf.RaggedTensorSpec([2, None], tf.int32).is_compatible_with(rt)
    assert not tf.RaggedTensorSpec([3, None], tf.int32).is_compatible_with(rt)
    assert tf.RaggedTensorSpec([2, None], tf.int32).value_type is tf.RaggedTensor
    assert tf.NoneTensorSpec() == tf.NoneTensorSpec()
    assert tf.OptionalSpec(tf.TensorSpec([2])).value_type.__name__ == "Optional"
    assert issubclass(tf.TensorSpec, tf.TypeSpec)
    assert tf.TypeSpec.__abstractmethods__ == frozenset(
        {"_from_components", "value_type", "_serialize", "_component_specs",
         "_to_components"})
    spec = tf.RaggedTensorSpec([2, None, 3], tf.float32, ragged_rank=1)
    assert [repr(s) for s in spec._component_specs] == [
        "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)",
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"]
    back = spec._from_components(spec._to_components(tf.ragged.constant(
        [[[1., 2., 3.]], []], ragged_rank=1)))
    with tf.Session() as sess:
        assert sess.run(back).to_list() == [[[1., 2., 3.]], []]


@pytest.mark.parametrize("build,exc,match", [
    (lambda: tf.RaggedTensorSpec(), ValueError,
     "Must specify ragged_rank or a shape with a known rank."),
    (lambda: tf.RaggedTensorSpec([2, None], tf.int32, ragged_rank=2), ValueError,
     r"Argument `ragged_rank` \(2\) must be less than rank \(2\)."),
    (lambda: tf.type_spec_from_value(object()), TypeError,
     "Could not build a TypeSpec for <object object"),
])
def test_errors(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def test_is_symbolic_tensor():
    values = [tf.zeros([2]), np.zeros(2), tf.Variable(1.0),
              tf.SparseTensor([[0, 0]], [1.], [2, 3]), tf.ragged.constant([[1]]), 3]
    assert [tf.is_symbolic_tensor(v) for v in values] == [True, False, False, False, False,
                                                          False]
