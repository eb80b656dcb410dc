"""Buffer donation in XLA steps: the variables' old device buffers are given to the step
that writes them, a failed run-time check leaves every variable at its old value, and
threads stepping and reading the same variables never see a donated buffer. Skipped when
jax is not installed."""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")
from trainflow._src.runtime.backends import xla_backend  # noqa: E402
from xla_compare import config, segment_kernels  # noqa: E402


@pytest.fixture(autouse=True)
def _switch_from_config_only(monkeypatch):
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)
    # These models are small: donate whatever the size.
    monkeypatch.setattr(xla_backend, "DONATE_MIN_BYTES", 0)


def _adam_mlp():
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.int64, [None])
    rng = np.random.RandomState(0)
    w = tf.Variable(rng.uniform(-0.5, 0.5, (6, 4)).astype(np.float32), name="w")
    b = tf.Variable(np.zeros(4, np.float32), name="b")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=tf.matmul(x, w) + b))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    return x, y, loss, train


def _variables(sess):
    return {v.op.name: sess.run(v) for v in tf.global_variables()}


def _feeds(x, y, labels):
    data = np.random.RandomState(1).rand(len(labels), 6).astype(np.float32)
    return {x: data, y: np.array(labels, np.int64)}


def test_written_variables_buffers_are_donated():
    with tf.Graph().as_default():
        x, y, loss, train = _adam_mlp()
        with tf.Session(config=config(True)) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, _feeds(x, y, [0, 1, 2]))
            slot = sess._resources.variables()["w"]
            before = slot._device
            sess.run(train, _feeds(x, y, [0, 1, 2]))
            assert before is not None and before.is_deleted()
            donated = [len(t.donated) for k in segment_kernels(sess) for t in k._traces.values()
                       if any(op.type == "ApplyAdam" for op in k.ops)]
            assert donated == [8]  # w, b, their m and v, the two beta powers
            # The label check depends on no variable: it runs before the step.
            assert [t.pre for k in segment_kernels(sess) for t in k._traces.values()
                    if t.donated] == [(0,)]


def test_failed_check_leaves_every_variable_as_it_was():
    """A label out of range fails the step's check: the NumPy path's error, and the
    variables (whose buffers were donated) keep their old values; the next step goes on
    as it would have on NumPy."""
    results = {}
    for jit in (False, True):
        with tf.Graph().as_default():
            x, y, loss, train = _adam_mlp()
            with tf.Session(config=config(jit)) as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train, _feeds(x, y, [0, 1, 2]))
                before = _variables(sess)
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(train, _feeds(x, y, [0, 9, 2]))
                assert "label" in info.value.message.lower()
                after = _variables(sess)
                for name, value in before.items():
                    np.testing.assert_array_equal(after[name], value, err_msg=name)
                results[jit] = sess.run([loss, train], _feeds(x, y, [3, 1, 2]))[0]
    np.testing.assert_allclose(results[True], results[False], rtol=1e-6)


def test_threads_stepping_and_reading_the_same_variables():
    """Two threads step a counter with unlocked updates while a third reads it on the
    host: no read meets a donated buffer, no increment is lost."""
    with tf.Graph().as_default():
        counter = tf.Variable(np.zeros(1 << 20, np.float32), name="counter")
        step = tf.assign_add(counter, tf.ones([1 << 20]) + 0.0 * tf.reduce_sum(counter),
                             use_locking=False)
        host_read = tf.py_func(lambda a: np.float32(a[0]), [counter], tf.float32)
        with tf.Session(config=config(True)) as sess:
            sess.run(counter.initializer)
            errors, seen = [], []

            def stepper():
                try:
                    for _ in range(50):
                        sess.run(step.op)
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            def reader():
                try:
                    for _ in range(50):
                        seen.append(float(sess.run(host_read)))
                except Exception as e:  # noqa: BLE001
                    errors.append(e)

            threads = [threading.Thread(target=f) for f in (stepper, stepper, reader)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=120)
            assert not any(t.is_alive() for t in threads)
            assert not errors, errors
            assert seen == sorted(seen)
            np.testing.assert_array_equal(sess.run(counter), np.full(1 << 20, 100, np.float32))


def test_failed_check_on_a_variable_value_leaves_every_variable_as_it_was():
    """A check that depends on the variables (CheckNumerics of a gradient) can only fail
    inside the step: the values set after it are selected back to the old ones."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(np.full((3, 1), 0.5, np.float32), name="w")
        loss = tf.reduce_mean(tf.matmul(x, w) ** 2)
        grad = tf.debugging.check_numerics(tf.gradients(loss, [w])[0], "gradient")
        train = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(grad, w)])
        with tf.Session(config=config(True)) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {x: np.ones((2, 3), np.float32)})
            before = _variables(sess)
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(train, {x: np.full((2, 3), np.inf, np.float32)})
            assert info.value.op.type == "CheckNumerics"
            after = _variables(sess)
            for name, value in before.items():
                np.testing.assert_array_equal(after[name], value, err_msg=name)
            entries = [t for k in segment_kernels(sess) for t in k._traces.values()
                       if t.donated]
            assert entries and all(t.late and not t.pre for t in entries)
            sess.run(train, {x: np.ones((2, 3), np.float32)})
            assert not np.array_equal(sess.run(w), before["w"])


def test_small_steps_do_not_donate():
    with tf.Graph().as_default():
        x, y, loss, train = _adam_mlp()
        with tf.Session(config=config(True)) as sess:
            sess.run(tf.global_variables_initializer())
            xla_backend.DONATE_MIN_BYTES = 1 << 20
            sess.run(train, _feeds(x, y, [0, 1, 2]))
            entries = [t for k in segment_kernels(sess) for t in k._traces.values()
                       if any(op.type == "ApplyAdam" for op in k.ops)]
            assert [(t.donated, t.pre_fn) for t in entries] == [((), None)]
