"""tf.data iterators inside sessions: Session.close() and RunOptions deadlines end a
blocked get_next, re-initializing leaks nothing, MonitoredSession / MonitoredTrainingSession
/ Supervisor end training cleanly at the end of the data (the XLA check of a step fed by
get_next is in test_xla_data_pipeline.py)."""
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset


def _pipeline_threads():
    return [t for t in threading.enumerate() if "tf.data" in t.name and t.is_alive()]


def _wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _slow(x):
    time.sleep(0.5)
    return x


def _blocking_get_next():
    """get_next of a prefetching pipeline whose producer takes 0.5 s an element."""
    ds = D.range(1000).map(lambda x: tf.py_func(_slow, [x], tf.int64, stateful=False))
    return ds.prefetch(1).make_one_shot_iterator().get_next()


def test_close_cancels_a_blocked_get_next_and_stops_the_threads():
    before = set(_pipeline_threads())
    with tf.Graph().as_default():
        nxt = _blocking_get_next()
        sess = tf.Session()
        outcome = []

        def consumer():
            try:
                while True:
                    sess.run(nxt)
            except Exception as e:  # noqa: BLE001 - the test inspects it
                outcome.append(e)

        thread = threading.Thread(target=consumer)
        thread.start()
        time.sleep(0.8)
        sess.close()
        thread.join(10)
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], tf.errors.CancelledError), outcome
    assert _wait_for(lambda: set(_pipeline_threads()) <= before), _pipeline_threads()


def test_run_options_timeout_on_a_blocked_get_next_is_deadline_exceeded():
    with tf.Graph().as_default():
        nxt = _blocking_get_next()
        with tf.Session() as sess:
            start = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(nxt, options=tf.RunOptions(timeout_in_ms=100))
            assert time.monotonic() - start < 0.45
            assert sess.run(nxt) in (0, 1)  # the pipeline goes on after the deadline


def test_a_hundred_reinitializations_leak_nothing():
    before = set(_pipeline_threads())
    with tf.Graph().as_default():
        it = D.range(50).map(lambda x: x + 1).prefetch(4).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            n_plans = None
            for i in range(100):
                sess.run(it.initializer)
                assert sess.run(nxt) == 1 and sess.run(nxt) == 2
                assert len(set(_pipeline_threads()) - before) <= 1, i
                if i == 1:
                    n_plans = len(sess._plans)
            assert len(sess._plans) == n_plans
    assert _wait_for(lambda: set(_pipeline_threads()) <= before)


def _model(features):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - 1.0))
    gs = tf.train.get_or_create_global_step()
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs), gs


def _features(n):
    return D.from_tensor_slices(np.ones((n, 3), np.float32)).batch(2)


def test_monitored_training_session_stops_at_the_end_of_the_data(tmp_path):
    with tf.Graph().as_default():
        train, gs = _model(_features(10).make_one_shot_iterator().get_next())
        steps = 0
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                               save_summaries_steps=None) as sess:
            while not sess.should_stop():
                sess.run(train)
                steps += 1
        assert steps == 5  # 10 rows in batches of 2; the 6th run ends the loop
        assert tf.train.load_variable(str(tmp_path), "global_step") == 5


def test_stop_at_step_hook_stops_before_the_data_ends():
    with tf.Graph().as_default():
        train, gs = _model(_features(100).repeat().make_one_shot_iterator().get_next())
        with tf.train.MonitoredTrainingSession(
                hooks=[tf.train.StopAtStepHook(last_step=7)]) as sess:
            while not sess.should_stop():
                step = sess.run([train, gs])[1]
        assert step == 7


def test_monitored_session_with_an_initializable_iterator_in_the_scaffold():
    with tf.Graph().as_default():
        it = _features(6).make_initializable_iterator()
        train, gs = _model(it.get_next())
        scaffold = tf.train.Scaffold(local_init_op=tf.group(tf.local_variables_initializer(),
                                                            it.initializer))
        runs = 0
        with tf.train.MonitoredSession(
                session_creator=tf.train.ChiefSessionCreator(scaffold=scaffold)) as sess:
            while not sess.should_stop():
                sess.run(train)
                runs += 1
        assert runs == 3


def test_supervisor_managed_session_ends_cleanly_at_the_end_of_the_data(tmp_path):
    with tf.Graph().as_default():
        train, gs = _model(_features(8).make_one_shot_iterator().get_next())
        sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            while not sv.should_stop():
                sess.run(train)
        assert sv.should_stop()
