"""tf.data's argument conversions, ported from TF's python/data/util/convert_test (8
methods, all passing)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.data.convert import optional_param_to_tensor, partial_shape_to_tensor


def _value(t):
    with tf.Session(graph=t.graph) as sess:
        return sess.run(t)


@pytest.mark.parametrize("name,args,want", [
    ("testInteger", ("foo", 3), 3),
    ("testIntegerDefault", ("foo", None), 0),
    ("testStringDefault", ("bar", None, "default", tf.string), b"default"),
    ("testString", ("bar", "value", "default", tf.string), b"value"),
], ids=lambda v: v if isinstance(v, str) and v.startswith("test") else "")
def test_optional_param_to_tensor(name, args, want):
    with tf.Graph().as_default():
        t = optional_param_to_tensor(*args)
        assert t.op.name == args[0]
        assert _value(t) == want


def _shapes(*dims):
    """The forms TF's tests give a partial shape in."""
    return [tf.TensorShape(list(dims)), tuple(dims), list(dims),
            tf.constant([-1 if d is None else d for d in dims], dtype=tf.int64)]


@pytest.mark.parametrize("name,dims", [
    ("testPartialShapeToTensorKnownDimension", (1,)),
    ("testPartialShapeToTensorUnknownDimension", (None,)),
    ("testPartialShapeToTensorMultipleDimensions", (3, 6)),
    ("testPartialShapeToTensorMultipleDimensions", (3, None)),
    ("testPartialShapeToTensorMultipleDimensions", (None, None)),
    ("testPartialShapeToTensorScalar", ()),
])
def test_partial_shape_to_tensor(name, dims):
    want = [-1 if d is None else d for d in dims]
    with tf.Graph().as_default():
        for shape in _shapes(*dims):
            got = _value(partial_shape_to_tensor(shape))
            assert got.dtype == np.int64 and got.tolist() == want
        if dims == (None,):
            assert _value(partial_shape_to_tensor([-1])).tolist() == [-1]


def test_partial_shape_to_tensor_errors():  # testPartialShapeToTensorUnknownDimension
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"must be a 1-D tensor of tf.int64 values, but "
                                             r"the shape was \(2, 2\)."):
            partial_shape_to_tensor(tf.constant([[1, 1], [1, 1]], dtype=tf.int64))
        with pytest.raises(TypeError, match="must be a 1-D tensor of tf.int64 values, but "
                                            "the element type was float32."):
            partial_shape_to_tensor(tf.constant([1., 1.]))
