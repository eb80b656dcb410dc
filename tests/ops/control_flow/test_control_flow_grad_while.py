"""Gradients through tf.while_loop (the While op and its WhileGrad): captured
variables, training, recorded forward values, records' lifetime, export, and the
error cases."""
import gc
import threading
import weakref

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.control_flow import while_records


def _tanh_loop_reference(w, x, n):
    v = np.array(x, dtype=np.float64)
    for _ in range(n):
        v = np.tanh(v * w + w * 0.5)
    return v.sum()


def test_captured_variable_gets_the_summed_gradient():
    w0 = np.array([0.5, -0.3])
    with tf.Graph().as_default():
        w = tf.Variable(w0, dtype=tf.float64, name="w")
        x = tf.constant([1.0, 2.0], tf.float64)
        _, y = tf.while_loop(lambda i, v: i < 3,
                             lambda i, v: (i + 1, tf.tanh(v * w + w.read_value() * 0.5)), [0, x])
        grad = tf.gradients(tf.reduce_sum(y), w)[0]
        with tf.Session() as sess:
            sess.run(w.initializer)
            got = sess.run(grad)
    eps = 1e-6
    want = [(_tanh_loop_reference(w0 + eps * e, [1.0, 2.0], 3) -
             _tanh_loop_reference(w0 - eps * e, [1.0, 2.0], 3)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(got, want, rtol=1e-7)


def test_training_a_variable_read_inside_the_loop():
    with tf.Graph().as_default():
        w = tf.Variable(0.5, dtype=tf.float64)
        _, h = tf.while_loop(lambda i, h: i < 5, lambda i, h: (i + 1, tf.tanh(h * w + 0.1)),
                             [0, tf.constant(1.0, tf.float64)])
        loss = tf.square(h - 0.7)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(loss)
            for _ in range(60):
                sess.run(train)
            assert sess.run(loss) < before * 1e-6


def test_backward_pass_uses_the_forward_random_values():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [5])

        def body(i, acc, masks):
            mask = tf.cast(tf.random_uniform([5], seed=1) > 0.5, tf.float64)
            return i + 1, acc + tf.sin(x) * mask, masks + mask
        zeros = tf.zeros([5], tf.float64)
        _, acc, masks = tf.while_loop(lambda i, a, m: i < 4, body, [0, zeros, zeros])
        grad = tf.gradients(tf.reduce_sum(acc), x)[0]
        with tf.Session() as sess:
            seen = set()
            for _ in range(4):
                g, m = sess.run([grad, masks], {x: np.zeros(5)})
                np.testing.assert_array_equal(g, m)
                seen.add(tuple(m))
            assert len(seen) > 1


def test_gradient_built_after_the_loop_ran():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [])
        y = tf.while_loop(lambda a: a < 100.0, lambda a: a * x, [x])
        with tf.Session() as sess:
            assert sess.run(y, {x: 3.0}) == 243.0
            grad = tf.gradients(y, x)[0]
            assert sess.run([y, grad], {x: 3.0}) == [243.0, 405.0]


def test_two_gradients_of_one_loop_share_its_record():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [])
        _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x),
                             [0, tf.constant(1.0, tf.float64)])
        g1 = tf.gradients(y, x)[0]
        g2 = tf.gradients(y * 2.0, x)[0]
        with tf.Session() as sess:
            assert sess.run([g1, g2], {x: 2.0}) == [12.0, 24.0]


def test_records_are_freed_after_the_step():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [])
        y = tf.while_loop(lambda a: a < 100.0, lambda a: a * x, [x])
        grad = tf.gradients(y, x)[0]
        with tf.Session() as sess:
            sess.run(grad, {x: 3.0})
            assert not while_records._RECORDS
            sess.run(y, {x: 3.0})
            assert not while_records._RECORDS


def test_a_graph_with_loop_gradients_can_be_freed():
    def build():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float64, [])
            y = tf.while_loop(lambda a: a < 100.0, lambda a: a * x, [x])
            grad = tf.gradients(y, x)[0]
            with tf.Session() as sess:
                sess.run(grad, {x: 3.0})
        return weakref.ref(g)
    ref = build()
    gc.collect()
    assert ref() is None


def test_concurrent_steps_keep_their_own_records():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [])
        _, y = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x),
                             [0, tf.constant(1.0, tf.float64)])
        grad = tf.gradients(y, x)[0]
        results, errors = {}, []
        with tf.Session() as sess:
            def worker(value):
                try:
                    results[value] = [sess.run(grad, {x: value}) for _ in range(20)]
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)
            threads = [threading.Thread(target=worker, args=(v,)) for v in (1.5, 2.0, 3.0)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    assert not errors
    for value, grads in results.items():
        assert grads == [4 * value ** 3] * 20


def test_back_prop_false_gives_no_gradient():
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        y = tf.while_loop(lambda a: a < 10.0, lambda a: a * x, [x], back_prop=False)
        assert tf.gradients(y, x) == [None]


def test_integer_loop_variables_get_no_gradient():
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        n = tf.constant(3)
        i, k, a = tf.while_loop(lambda i, k, a: i < n, lambda i, k, a: (i + 1, k * 2, a * x),
                                [0, n, x])
        assert tf.gradients(a, [n, x])[0] is None
        with tf.Session() as sess:
            assert sess.run(tf.gradients(a, x)[0]) == 4 * 2.0 ** 3


def test_missing_gradient_inside_the_body_is_a_lookup_error():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])

        def body(a):
            override = {"Sin": "WhileGradTestNoSuchGradient"}
            with tf.get_default_graph().gradient_override_map(override):
                return tf.sin(a)
        y = tf.while_loop(lambda a: tf.reduce_sum(a) < 0.0, body, [x])
        with pytest.raises(LookupError, match="WhileGradTestNoSuchGradient"):
            tf.gradients(y, x)


def test_records_are_found_by_the_identity_of_the_first_output():
    record = while_records.LoopRecord([[1.0]], {})
    key = while_records.file_record(np.int32(3), record)
    assert key == 3 and isinstance(key, np.ndarray)
    assert while_records.find_record(key, "loop") is record
    with pytest.raises(tf.errors.InvalidArgumentError, match="no record of the forward loop"):
        while_records.find_record(np.array(3, np.int32), "loop")
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be a numeric tensor"):
        while_records.file_record(object(), record)
    ident = id(key)
    del key
    assert ident not in while_records._RECORDS


def test_graph_with_loop_gradients_exports_and_reimports():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (
            i + 1, tf.cond(p, lambda: v * x, lambda: tf.sin(v))), [0, x])
        grad = tf.gradients(y, x)[0]
        graph_def = g.as_graph_def(add_shapes=True)
        grad_ops = [n for n in graph_def.node if n.op == "WhileGrad"]
        assert len(grad_ops) == 1
        functions = {f.signature.name for f in graph_def.library.function}
        assert grad_ops[0].attr["grad_body"].func.name in functions
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(grad, {x: [1.0, 2.0], p: True}), [4.0, 32.0])
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y.name, {"x:0": [1.0, 2.0], "p:0": True}),
                                       [1.0, 16.0])
            with pytest.raises(tf.errors.UnimplementedError, match="not built in this process"):
                sess.run(grad.name, {"x:0": [1.0, 2.0], "p:0": True})


def test_second_derivative_through_a_loop_is_refused():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])
        with pytest.raises(LookupError, match="second derivatives through tf.while_loop"):
            tf.hessians(tf.reduce_sum(y), x)
