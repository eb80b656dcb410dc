"""tf.TensorArray on TensorList ops: every method, dynamic size, element shapes,
errors, use inside tf.while_loop, and gradients against finite differences."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from op_checks import assert_gradients_match_finite_differences

R = np.random.RandomState(21)
X = R.uniform(-1, 1, (4, 3))


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_write_read_stack_gather_size(graph):
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.flow.dtype == tf.variant and ta.flow.op.type == "TensorListReserve"
    ta = ta.write(0, [1.0, 2.0]).write(2, [5.0, 6.0]).write(1, tf.constant([3.0, 4.0]))
    assert ta.element_shape.as_list() == [2]
    r = ta.read(1)
    assert r.op.type == "TensorListGetItem" and r.shape.as_list() == [2]
    with tf.Session() as sess:
        assert sess.run(r).tolist() == [3.0, 4.0]
        assert sess.run(ta.stack()).tolist() == [[1, 2], [3, 4], [5, 6]]
        assert sess.run(ta.gather([2, 0])).tolist() == [[5, 6], [1, 2]]
        assert sess.run(ta.size()) == 3
        assert sess.run(ta.concat()).tolist() == [1, 2, 3, 4, 5, 6]
        assert sess.run(ta.read(0) + ta.read(0)).tolist() == [2.0, 4.0]  # reads never clear


def test_unstack_scatter_split_concat(graph):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(X.astype(np.float32))
    sc = tf.TensorArray(tf.float32, size=4).scatter([3, 0, 1, 2], X.astype(np.float32))
    sp = tf.TensorArray(tf.float32, size=3).split(np.arange(6, dtype=np.float32), [1, 3, 2])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(ta.stack()), X, rtol=1e-6)
        assert sess.run(ta.size()) == 4
        np.testing.assert_allclose(sess.run(sc.stack()), X[[1, 2, 3, 0]], rtol=1e-6)
        assert sess.run(sp.read(1)).tolist() == [1, 2, 3]
        assert sess.run(sp.concat()).tolist() == [0, 1, 2, 3, 4, 5]


def test_dynamic_size_grows_and_fixed_size_does_not(graph):
    grow = tf.TensorArray(tf.int32, size=1, dynamic_size=True).write(3, 7)
    fixed = tf.TensorArray(tf.int32, size=1).write(3, 7)
    with tf.Session() as sess:
        assert sess.run(grow.size()) == 4
        with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to read an "
                           "uninitialized|fully defined"):
            sess.run(tf.TensorArray(tf.int32, size=2).read(0))
        assert sess.run(grow.read(3)) == 7
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Trying to modify element 3 in a list with 1 elements"):
            sess.run(fixed.flow)


def test_element_shape_and_dtype_errors(graph):
    ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        ta.write(0, [1.0, 2.0, 3.0])
    with pytest.raises((TypeError, ValueError)):
        ta.write(0, tf.constant([1, 2]))
    with pytest.raises(ValueError, match="Size must be provided"):
        tf.TensorArray(tf.float32)
    unread = tf.TensorArray(tf.float32, size=2, element_shape=[2])
    with tf.Session() as sess:
        # Unwritten elements of a known shape read as zeros (TF2 list semantics).
        assert sess.run(unread.stack()).tolist() == [[0, 0], [0, 0]]


def test_inside_while_loop_with_gradient(graph):
    x = tf.placeholder(tf.float64, [4, 3])
    inputs = tf.TensorArray(tf.float64, size=4).unstack(x)
    out = tf.TensorArray(tf.float64, size=0, dynamic_size=True)

    def body(i, acc, out):
        acc = acc + tf.sin(inputs.read(i)) * acc + inputs.read(i)
        return i + 1, acc, out.write(i, acc)

    _, acc, out = tf.while_loop(lambda i, a, o: i < 4, body,
                                [0, tf.ones([3], tf.float64), out])
    assert isinstance(out, tf.TensorArray)
    y = out.stack()
    with tf.Session() as sess:
        want = []
        a = np.ones(3)
        for row in X:
            a = a + np.sin(row) * a + row
            want.append(a)
        np.testing.assert_allclose(sess.run(y, {x: X}), want, rtol=1e-12)
        theoretical, numerical = tf.test.compute_gradient(x, [4, 3], y, [4, 3],
                                                          x_init_value=X, delta=1e-6)
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-7)


GRAD_CASES = [
    ("stack_of_writes", lambda x: tf.TensorArray(tf.float64, size=4).write(0, x[1] * 2)
     .write(1, x[0]).write(3, tf.sin(x[2])).write(2, x[3] * x[0]).stack()),
    ("unstack_read", lambda x: tf.TensorArray(tf.float64, size=4).unstack(x).read(2) * x[0]),
    ("gather", lambda x: tf.TensorArray(tf.float64, size=4).unstack(x * x).gather([3, 1, 3])),
    ("scatter", lambda x: tf.TensorArray(tf.float64, size=5).write(4, x[0])
     .scatter([2, 0, 1, 3], tf.exp(x)).stack()),
    ("split_concat", lambda x: tf.TensorArray(tf.float64, size=2)
     .split(tf.reshape(x, [-1]) ** 2, [5, 7]).concat()),
    ("split_read", lambda x: tf.TensorArray(tf.float64, size=2)
     .split(tf.reshape(x, [-1]), [5, 7]).read(1) * 3.0),
]


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, fn):
    assert_gradients_match_finite_differences(fn, [X], [0], rtol=1e-7, atol=1e-8, label=name)


def test_push_back_pop_back_and_gradient(graph):
    from trainflow._src.framework.op_builder import apply_op
    x = tf.placeholder(tf.float64, [4, 3])
    lst = apply_op("EmptyTensorList", element_shape=[3], max_num_elements=-1,
                   element_dtype=tf.float64).outputs[0]
    for i in range(3):
        lst = apply_op("TensorListPushBack", input_handle=lst, tensor=tf.sin(x[i]) * x[i + 1],
                       element_dtype=tf.float64).outputs[0]
    rest, last = apply_op("TensorListPopBack", input_handle=lst, element_shape=[3],
                          element_dtype=tf.float64).outputs
    stacked = apply_op("TensorListStack", input_handle=rest, element_shape=[3],
                       element_dtype=tf.float64).outputs[0]
    y = tf.concat([stacked, last[None] * 2.0], 0)
    with tf.Session() as sess:
        want = np.stack([np.sin(X[i]) * X[i + 1] for i in range(3)])
        want[2] *= 2
        np.testing.assert_allclose(sess.run(y, {x: X}), want)
        theoretical, numerical = tf.test.compute_gradient(x, [4, 3], y, [3, 3],
                                                          x_init_value=X, delta=1e-6)
        np.testing.assert_allclose(theoretical, numerical, rtol=1e-7, atol=1e-8)
        # Only the popped element used: the rest of the list gets a zero gradient.
        theoretical, numerical = tf.test.compute_gradient(x, [4, 3], last * 3.0, [3],
                                                          x_init_value=X, delta=1e-6)
        np.testing.assert_allclose(theoretical, numerical, rtol=1e-7, atol=1e-8)
    with tf.Session() as sess:
        empty = apply_op("EmptyTensorList", element_shape=[3], max_num_elements=-1,
                         element_dtype=tf.float64).outputs[0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="pop from an empty list"):
            sess.run(apply_op("TensorListPopBack", input_handle=empty, element_shape=[3],
                              element_dtype=tf.float64).outputs[1])


def test_unwritten_elements_stack_as_zeros_of_the_written_shape(graph):
    # The element shape is partly unknown ([None, 2]): once an element is written its shape
    # completes it, so the unwritten ones read as zeros (TF's TensorArray does the same).
    x = tf.placeholder(tf.float32, [None, 2])
    ta = tf.TensorArray(tf.float32, size=3, element_shape=tf.TensorShape([None, 2]))
    ta = ta.write(1, x)
    with tf.Session() as sess:
        stacked, gathered = sess.run([ta.stack(), ta.gather([2, 1])],
                                     {x: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]})
    assert stacked.shape == (3, 3, 2) and not stacked[0].any() and not stacked[2].any()
    assert stacked[1].tolist() == [[1, 2], [3, 4], [5, 6]]
    assert gathered[1].tolist() == stacked[1].tolist() and not gathered[0].any()
