"""The assert_* family, check_numerics and friends: static short-cuts at graph
construction and runtime Assert ops, with TensorFlow's messages."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

# (assertion builder, passing feed, failing feed, expected runtime message).
RUNTIME = [
    (lambda x: tf.assert_equal(x, 2.0), [2.0, 2.0], [1.0, 2.0],
     "assertion failed: [Condition x == y did not hold element-wise:] [x (x:0) = ] [1 2] "
     "[y (assert_equal_1/y:0) = ] [2]"),
    (lambda x: tf.assert_none_equal(x, 2.0), [1.0, 3.0], [1.0, 2.0],
     "[Condition x != y did not hold element-wise:]"),
    (lambda x: tf.assert_less(x, 2.0), [1.0, 1.5], [1.0, 2.0],
     "[Condition x < y did not hold element-wise:]"),
    (lambda x: tf.assert_less_equal(x, 2.0), [1.0, 2.0], [1.0, 3.0],
     "[Condition x <= y did not hold element-wise:]"),
    (lambda x: tf.assert_greater(x, 0.0), [1.0, 2.0], [1.0, 0.0],
     "[Condition x > y did not hold element-wise:]"),
    (lambda x: tf.assert_greater_equal(x, 1.0), [1.0, 2.0], [0.5, 2.0],
     "[Condition x >= y did not hold element-wise:]"),
    (lambda x: tf.assert_positive(x), [1.0, 2.0], [1.0, -2.0],
     "assertion failed: [] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] [1 -2]"),
    (lambda x: tf.assert_negative(x, message="neg"), [-1.0], [1.0, -2.0],
     "assertion failed: [neg.  ] [Condition x < 0 did not hold element-wise:]"),
    (lambda x: tf.assert_non_negative(x), [0.0, 2.0], [-1.0],
     "[Condition x >= 0 did not hold element-wise:]"),
    (lambda x: tf.assert_non_positive(x), [0.0, -2.0], [1.0],
     "[Condition x <= 0 did not hold element-wise:x (x:0) = ]"),
    (lambda x: tf.assert_near(x, 1.0, atol=0.2), [1.0, 1.1], [1.0, 1.5],
     "x and y not equal to tolerance rtol = "),
    (lambda x: tf.assert_rank(x, 2), [[1.0]], [1.0],
     "assertion failed: [] [Tensor x:0 must have rank] [2] [Received shape: ] [1]"),
    (lambda x: tf.assert_rank_at_least(x, 2), [[1.0]], [1.0],
     "[Tensor x:0 must have rank at least] [2]"),
    (lambda x: tf.assert_rank_in(x, [0, 2]), 1.0, [1.0],
     "[Tensor x:0 must have rank in] [0] [2] [Received shape: ] [1]"),
]


@pytest.mark.parametrize("make,good,bad,message", RUNTIME)
def test_runtime_assertions(make, good, bad, message):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, None, name="x")
        check = make(x)
        with tf.Session() as sess:
            sess.run(check, {x: good})
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(check, {x: bad})
    assert message in info.value.message


def test_assertion_as_control_dependency_guards_a_value():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None])
        with tf.control_dependencies([tf.assert_non_negative(x, message="counts")]):
            y = tf.identity(x)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: [0, 3]}), [0, 3])
            with pytest.raises(errors.InvalidArgumentError, match=r"\[counts\.  \]"):
                sess.run(y, {x: [-1]})


def test_statically_false_value_assertions_raise_while_building():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(errors.InvalidArgumentError) as info:
            tf.assert_equal(1, 2)
        assert info.value.message == ("Condition x == y did not hold element-wise:\nx "
                                      "(assert_equal_1/x:0) = \n1\ny (assert_equal_1/y:0) = \n2")
        with pytest.raises(errors.InvalidArgumentError, match=r"^boom\nCondition x == y"):
            tf.assert_equal([1, 2], [1, 3], message="boom")
        with pytest.raises(errors.InvalidArgumentError) as info:
            tf.assert_positive([1.0, -2.0])
        assert info.value.message == ("\nCondition x > 0 did not hold element-wise:\nx "
                                      "(assert_positive/x:0) = \n[ 1. -2.]")
        ok = tf.assert_equal([1, 2], [1, 2])
        assert ok.type == "Assert"
        x = tf.constant(1.0)
        assert tf.assert_equal(x, x).type == "NoOp"


def test_static_rank_checks():
    g = tf.Graph()
    with g.as_default():
        z = tf.zeros([2, 3])
        assert tf.assert_rank(z, 2).name == "assert_rank/static_checks_determined_all_ok"
        with pytest.raises(ValueError, match=r"^m\.  Tensor zeros:0 must have rank 1\.  Received "
                                             r"rank 2, shape \(2, 3\)$"):
            tf.assert_rank(z, 1, message="m")
        with pytest.raises(ValueError, match="must have rank at least 3.  Received rank 2"):
            tf.assert_rank_at_least(z, 3)
        assert tf.assert_rank_at_least(z, 1).type == "NoOp"
        with pytest.raises(ValueError, match=r"must have rank in \(0, 1\)\.  Received rank 2"):
            tf.assert_rank_in(z, [0, 1])
        assert tf.assert_rank_in(z, [1, 2]).type == "NoOp"
        with pytest.raises(ValueError, match="Rank must be a scalar."):
            tf.assert_rank(z, [1, 2])
        with pytest.raises(TypeError, match="must be of type tf.int32; got tf.int64"):
            tf.assert_rank(z, tf.constant(2, tf.int64))


def test_dynamic_rank_argument_is_checked_to_be_scalar():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None])
        r = tf.placeholder(tf.int32, None, name="r")
        check = tf.assert_rank(x, r)
        with tf.Session() as sess:
            sess.run(check, {x: [1.0], r: 1})
            with pytest.raises(errors.InvalidArgumentError, match="Rank must be a scalar"):
                sess.run(check, {x: [1.0], r: [1]})


def test_type_checks():
    g = tf.Graph()
    with g.as_default():
        f = tf.placeholder(tf.float32, name="f")
        i = tf.placeholder(tf.int64, name="i")
        assert tf.assert_type(f, tf.float32).name == \
            "assert_type/statically_determined_correct_type"
        with pytest.raises(TypeError, match="^msg.  f:0 must be of type tf.int32; got "
                                            "tf.float32$"):
            tf.assert_type(f, tf.int32, message="msg")
        assert tf.assert_integer(i).type == "NoOp"
        with pytest.raises(TypeError, match='Expected "x" to be integer type.  Found: f:0 of '
                                            "dtype <dtype: 'float32'>"):
            tf.assert_integer(f)
        assert tf.assert_scalar(tf.constant(1.0)).shape.ndims == 0
        with pytest.raises(ValueError, match=r"Expected scalar shape for zeros:0, saw shape: "
                                             r"\(2,\)\."):
            tf.assert_scalar(tf.zeros([2]))
        assert tf.assert_same_float_dtype([f, tf.constant(1.0)]) == tf.float32
        assert tf.assert_same_float_dtype(None) == tf.float32
        with pytest.raises(ValueError, match="must be of the same type"):
            tf.assert_same_float_dtype([f, tf.constant(1.0, tf.float64)])
        with pytest.raises(ValueError, match="Expected floating point type"):
            tf.assert_same_float_dtype([i])


def test_assert_proper_iterable_and_is_numeric():
    tf.assert_proper_iterable([1, 2])
    tf.assert_proper_iterable((x for x in range(2)))
    for bad in (np.array([1]), "abc", b"abc"):
        with pytest.raises(TypeError, match='to be a "proper" iterable'):
            tf.assert_proper_iterable(bad)
    with pytest.raises(TypeError, match='Expected argument "values" to be iterable'):
        tf.assert_proper_iterable(5)
    g = tf.Graph()
    with g.as_default():
        assert tf.is_numeric_tensor(tf.constant(1.0))
        assert not tf.is_numeric_tensor(tf.constant("a"))
        assert not tf.is_numeric_tensor(1.0)


def test_monotonic_predicates():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, None)
        nd = tf.is_non_decreasing(x)
        si = tf.is_strictly_increasing(x)
        assert nd.name == "is_non_decreasing/All:0"
        with tf.Session() as sess:
            def both(v):
                return sess.run([nd, si], {x: v})
            assert both([1.0, 1.0, 2.0]) == [True, False]
            assert both([1.0, 2.0, 3.0]) == [True, True]
            assert both([[1.0, 3.0], [2.0, 4.0]]) == [False, False]
            assert both([1.0]) == [True, True]
        with pytest.raises(TypeError, match="Expected x to be numeric"):
            tf.is_non_decreasing(tf.constant(["a", "b"]))


def test_check_numerics_messages():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, None)
        checked = tf.check_numerics(x, "my message")
        assert checked.op.type == "CheckNumerics"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(checked, {x: [1.0]}), [1.0])
            for value, status in (([1.0, np.nan], "NaN"), ([np.inf], "Inf"),
                                  ([np.inf, np.nan], "Inf and NaN")):
                with pytest.raises(errors.InvalidArgumentError,
                                   match=f"^my message : Tensor had {status} values"):
                    sess.run(checked, {x: value})
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: "
                                            "bfloat16, float16, float32, float64"):
            tf.check_numerics(tf.constant([1]), "m")


def test_verify_tensor_all_finite_and_add_check_numerics_ops():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.verify_tensor_all_finite(x * 2.0, "bad y")
        assert y.name == "VerifyFinite/control_dependency:0"
        assert tf.debugging.assert_all_finite is tf.verify_tensor_all_finite
        w = tf.placeholder(tf.float32, [None], name="w")
        z = tf.add(y, w, name="z")
        check = tf.add_check_numerics_ops()
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run([z, check], {x: [1.0], w: [1.0]})[0], [3.0])
            with pytest.raises(errors.InvalidArgumentError, match="bad y : Tensor had Inf"):
                sess.run(y, {x: [np.inf]})
            with pytest.raises(errors.InvalidArgumentError, match="^w:0 : Tensor had NaN"):
                sess.run([z, check], {x: [1.0], w: [np.nan]})


def test_add_check_numerics_ops_rejects_conds():
    g = tf.Graph()
    with g.as_default():
        tf.cond(tf.placeholder(tf.bool, []), lambda: tf.constant(1.0), lambda: tf.constant(2.0))
        with pytest.raises(ValueError, match="not compatible with TensorFlow control flow"):
            tf.add_check_numerics_ops()


def test_debugging_namespace():
    names = ["Assert", "assert_equal", "assert_rank", "check_numerics", "is_numeric_tensor",
             "is_non_decreasing", "assert_near", "is_nan", "is_finite"]
    for name in names:
        assert callable(getattr(tf.debugging, name)), name
    assert tf.debugging.assert_equal is tf.assert_equal
