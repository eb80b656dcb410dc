"""tf.gradients / tf.hessians edge cases where TensorFlow's answer is the contract:
scalar feeds into unknown-rank reductions, aggregation methods (names, colocation),
stop_gradients entries, hessians of unconnected inputs."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_linear_regression_on_unknown_rank_placeholders_fed_scalars(graph):
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    w = tf.Variable(0.5)
    b = tf.Variable(0.1)
    err = tf.square(w * x + b - y)
    grads = tf.gradients([tf.reduce_sum(err), tf.reduce_mean(err)], [w, b])
    train = tf.train.GradientDescentOptimizer(0.01).minimize(tf.reduce_sum(err))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # (TF 2.21: [-15.2, -7.6] and [-12.6, -6.9])
        np.testing.assert_allclose(sess.run(grads, {x: 2.0, y: 3.0}), [-15.2, -7.6], rtol=1e-6)
        np.testing.assert_allclose(sess.run(grads, {x: [2.0, 1.0], y: [3.0, 1.0]}),
                                   [-12.6, -6.9], rtol=1e-6)
        sess.run(train, {x: 2.0, y: 3.0})
        np.testing.assert_allclose(sess.run(w), 0.5 + 0.01 * 7.6, rtol=1e-6)


def test_integer_mod_of_empty_tensor_by_zero_is_empty(graph):
    with tf.Session() as sess:
        out = sess.run(tf.floormod(tf.zeros([0], tf.int32), 0))
        assert out.shape == (0,)
        with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
            sess.run(tf.floormod(tf.ones([1], tf.int32), 0))


@pytest.mark.parametrize("method", [7, -1, "x", 1.5])
def test_unknown_aggregation_method_is_value_error(graph, method):
    a = tf.constant(2.0)
    with pytest.raises(ValueError, match="Invalid `aggregation_method` specified"):
        tf.gradients(a * a + a, a, aggregation_method=method)
    with pytest.raises(ValueError, match="Invalid `aggregation_method` specified"):
        tf.gradients(a, a, aggregation_method=method)


def _placed_graph(**kwargs):
    with tf.device("/cpu:0"):
        a = tf.placeholder(tf.float32, [2], name="a")
        h = tf.sin(a, name="h")
    with tf.device("/cpu:1"):
        y = tf.reduce_sum(h * h + h)
    with tf.device("/cpu:2"):
        return tf.gradients(y, a, **kwargs)


def _sum_ops(graph):
    return [op for op in graph.get_operations() if op.type == "AddN"]


def test_default_aggregation_colocates_with_first_term(graph):
    # As TF 2.21 records: one AddN per device, colocated with its first term's op.
    _placed_graph()
    (add_n,) = _sum_ops(graph)
    assert add_n.name == "gradients/AddN"
    assert add_n.colocation_groups() == [b"loc:@gradients/Sum_grad/Tile"]
    assert [t.name for t in add_n.inputs] == [
        "gradients/Sum_grad/Tile:0", "gradients/mul_grad/Mul:0", "gradients/mul_grad/Mul_1:0"]


def test_colocated_gradients_aggregate_on_the_forward_ops_device(graph):
    _placed_graph(colocate_gradients_with_ops=True)
    (add_n,) = _sum_ops(graph)
    assert add_n.device == "/device:CPU:1"
    assert add_n.colocation_groups() == [b"loc:@Sum"]


@pytest.mark.parametrize("method", [tf.AggregationMethod.EXPERIMENTAL_TREE,
                                    tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N])
def test_tree_aggregation_adds_pairwise_under_gradient_sum(graph, method):
    _placed_graph(aggregation_method=method, colocate_gradients_with_ops=True)
    ops = _sum_ops(graph)
    assert [op.name for op in ops] == ["gradients/h_gradient_sum/AddN",
                                       "gradients/h_gradient_sum/AddN_1"]
    assert all(op.colocation_groups() == [b"loc:@h"] for op in ops)
    assert ops[1].inputs[0] is ops[0].outputs[0]


def test_aggregation_methods_agree_numerically(graph):
    a = tf.placeholder(tf.float32, [2])
    h = tf.sin(a)
    y = tf.reduce_sum(h * h + h)
    outs = [tf.gradients(y, a, aggregation_method=m)[0] for m in (None, 0, 1, 2)]
    with tf.Session() as sess:
        vals = sess.run(outs, {a: [0.3, -1.2]})
    for v in vals[1:]:
        np.testing.assert_allclose(v, vals[0], rtol=1e-6)


def test_stop_gradients_takes_tensors_and_variables_not_names(graph):
    a = tf.constant(2.0, name="a")
    b = tf.multiply(a, 3.0, name="b")
    c = tf.add(b, a, name="c")
    with tf.Session() as sess:
        assert sess.run(tf.gradients(c, a, stop_gradients=[b])) == [1.0]
        assert sess.run(tf.gradients(c, a, stop_gradients=b)) == [1.0]
    for bad in ("b:0", ["b"]):
        with pytest.raises(AttributeError, match="stop_gradients entries"):
            tf.gradients(c, a, stop_gradients=bad)


def test_hessians_of_non_scalar_ys_sum_them(graph):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    (h,) = tf.hessians(x * x * x, x)
    assert h.shape == (2, 2, 2, 2)
    with tf.Session() as sess:
        want = np.diag((6 * np.array([1.0, 2.0, 3.0, 4.0]))).reshape(2, 2, 2, 2)
        np.testing.assert_allclose(sess.run(h), want)


def test_hessians_of_unconnected_input_is_value_error(graph):
    x = tf.constant([1.0, 2.0])
    a = tf.constant(1.0)
    with pytest.raises(ValueError, match="not connected"):
        tf.hessians(tf.reduce_sum(x * x), [a])


@pytest.mark.parametrize("form", ["zero", tf.UnconnectedGradients.ZERO])
def test_unconnected_gradients_zero_takes_the_string_or_the_enum(graph, form):
    x = tf.constant([1.0, 2.0])
    unused = tf.constant([[3.0]])
    gx, gu = tf.gradients(2.0 * x, [x, unused], unconnected_gradients=form)
    assert gu.name == "zeros_like:0"  # made outside the "gradients" scope, as in TF
    with tf.Session() as sess:
        assert sess.run(gx).tolist() == [2.0, 2.0]
        assert sess.run(gu).tolist() == [[0.0]]


@pytest.mark.parametrize("form", ["none", tf.UnconnectedGradients.NONE])
def test_unconnected_gradients_none_gives_none(graph, form):
    x, unused = tf.constant(1.0), tf.constant(2.0)
    assert tf.gradients(x * x, [x, unused], unconnected_gradients=form)[1] is None


def test_unconnected_gradients_is_tfs_enum():
    assert tf.UnconnectedGradients("zero") is tf.UnconnectedGradients.ZERO
    assert tf.UnconnectedGradients.ZERO.value == "zero"
    assert tf.UnconnectedGradients.NONE.value == "none"


@pytest.mark.parametrize("bad", ["bad", 3])
def test_unknown_unconnected_gradients_is_value_error(graph, bad):
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match=f"Unknown value for unconnected_gradients: '{bad}'"):
        tf.gradients(x * x, [x], unconnected_gradients=bad)
