"""The lowerings of functional control flow (While -> lax.while_loop, If -> lax.cond)
against the NumPy backend: loops and branches, nested loops, checks inside a body,
a training program whose step holds a lowered loop, and an RNN trained through
tf.while_loop (its differentiated loop stays on the host). Skipped without jax."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.function_graph import FuncGraph

pytest.importorskip("jax")
import xla_compare  # noqa: E402

R = np.random.RandomState(0)
SEQ = R.randn(5, 3).astype(np.float32)
W = R.randn(3, 3).astype(np.float32) * 0.5


def _rnn_loop(x, w, back_prop=True):
    n = tf.shape(x)[0]

    def body(i, h):
        xi = tf.expand_dims(tf.gather(x, i), 0)
        return i + 1, tf.tanh(tf.matmul(xi, w) + h)
    return tf.while_loop(lambda i, h: i < n, body, [tf.constant(0), tf.zeros([1, 3])],
                         back_prop=back_prop)[1]


def _nested(x):
    def outer(i, acc):
        inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s * 0.5 + x),
                              [tf.constant(0), acc])[1]
        return i + 1, inner
    return tf.while_loop(lambda i, a: i < 4, outer, [tf.constant(0), x])[1]


def _bounded(x):
    return tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 2.0 + 1.0, [x],
                         maximum_iterations=3)


def _branch(name, graph, fn, n_in=1):
    fg = FuncGraph(name, graph)
    with fg.as_default():
        args = [fg.add_input(tf.float32, tf.TensorShape(None), f"x{i}") for i in range(n_in)]
        fg.outputs = [fn(*args)]
    return fg


def _functional_if(op_type):
    def fn(c, x):
        g = tf.get_default_graph()
        then_fg = _branch(f"then_{op_type}", g, lambda a: tf.reduce_sum(a * a, 0))
        else_fg = _branch(f"else_{op_type}", g, lambda a: tf.reduce_max(a, 0) - 1.0)
        op = g.create_op(op_type, [c, x], attrs={
            "Tcond": c.dtype, "Tin": [tf.float32], "Tout": [tf.float32],
            "then_branch": then_fg, "else_branch": else_fg, "output_shapes": [[3]]})
        return op.outputs[0]
    return fn


CASES = [
    ("rnn_loop", lambda x: _rnn_loop(x, tf.constant(W)), [SEQ]),
    ("nested_loops", _nested, [SEQ]),
    ("maximum_iterations", _bounded, [SEQ]),
    ("if_true", _functional_if("If"), [np.array(2, np.int32), SEQ]),
    ("stateless_if_false", _functional_if("StatelessIf"), [np.array(False), SEQ]),
    ("if_gradient", lambda c, x: tf.gradients(_functional_if("StatelessIf")(c, x), x)[0],
     [np.array(True), SEQ]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_control_flow_matches_numpy(case):
    name, fn, inputs = case

    def build():
        phs = [xla_compare.placeholder(v) for v in inputs]
        return fn(*phs), None, phs

    def lowered(sess):
        types = xla_compare.lowered_types(sess)
        assert types & {"While", "StatelessWhile", "If", "StatelessIf"}, types
    (a,), (b,) = xla_compare.run_both(build, lambda i: inputs, check=lowered)
    np.testing.assert_allclose(b, a, rtol=2e-5, atol=1e-6)


def test_check_inside_a_loop_raises_the_numpy_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (
            i + 1, tf.check_numerics(tf.log(v), "log in loop") + 2.0),
            [tf.constant(0), x])[1]
        with tf.Session(config=xla_compare.config(True)) as sess:
            assert sess.run(y, {x: [3.0]}).shape == (1,)
            assert "While" in xla_compare.lowered_types(sess)
            with pytest.raises(tf.errors.InvalidArgumentError, match="log in loop") as info:
                sess.run(y, {x: [-1.0]})
        assert info.value.op.type == "CheckNumerics"
        assert "test_xla_control_flow.py" in info.value.message


def test_failed_assert_in_a_loop_raises_invalid_argument():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [])

        def body(i):
            with tf.control_dependencies([tf.Assert(i < 4, ["i is", i])]):
                return i + 1
        y = tf.while_loop(lambda i: i < x, body, [tf.constant(0)])
        with tf.Session(config=xla_compare.config(True)) as sess:
            assert sess.run(y, {x: 3}) == 3
            assert "While" in xla_compare.lowered_types(sess)
            with pytest.raises(tf.errors.InvalidArgumentError, match="i is") as info:
                sess.run(y, {x: 6})
        assert info.value.op.type == "Assert"


def _program(rnn_trained):
    """A sequence model: a recurrent feature over the rows of x, then a dense layer. With
    `rnn_trained` the recurrent weight is a variable trained through the loop (the loop's
    gradient runs on the host); else the loop is fixed preprocessing, lowered in the step."""
    def build():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [1, 2])
        w = tf.Variable(W) if rnn_trained else tf.constant(W)
        h = _rnn_loop(x, w)
        out = tf.layers.dense(h, 2, kernel_initializer=tf.glorot_uniform_initializer(seed=3))
        loss = tf.reduce_mean(tf.square(out - y))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        return [loss, train], tf.global_variables_initializer(), [x, y]
    rng = np.random.RandomState(4)
    seqs = rng.randn(100, 4, 3).astype(np.float32)
    target = np.float32([[0.5, -0.5]])
    return build, lambda i: (seqs[i], target)


@pytest.mark.parametrize("rnn_trained", [False, True], ids=["loop_lowered", "loop_on_host"])
def test_training_with_a_while_loop_agrees_over_100_steps(rnn_trained):
    build, feeds = _program(rnn_trained)

    def check(sess):
        types = xla_compare.lowered_types(sess)
        assert "ApplyGradientDescent" in types
        assert ("StatelessWhile" in types) != rnn_trained, types
    # A differentiated loop and its gradient run on the host (their bodies compiled).
    on_host = {"StatelessWhile", "WhileGrad"} if rnn_trained else ()
    np_run, xla_run = xla_compare.run_both(build, feeds, steps=100, check=check,
                                           on_host=on_host)
    np_loss = np.array([r[0] for r in np_run])
    xla_loss = np.array([r[0] for r in xla_run])
    assert np_loss[-10:].mean() < np_loss[:10].mean()
    np.testing.assert_allclose(xla_loss, np_loss, rtol=1e-4, atol=1e-6)
