"""The everyday hooks: LoggingTensorHook, StopAtStepHook, NanTensorHook, FeedFnHook,
FinalOpsHook, GlobalStepWaiterHook, and SecondOrStepTimer."""
import logging
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json


def _model():
    step = tf.train.get_or_create_global_step()
    loss = tf.placeholder_with_default(1.0, [], name="loss")
    train = tf.assign_add(step, 1)
    return step, loss, train


@pytest.fixture
def info_logs(caplog):
    caplog.set_level(logging.INFO, logger="trainflow")
    return caplog


def test_second_or_step_timer():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(0)
    assert timer.update_last_triggered_step(0) == (None, None)
    assert not timer.should_trigger_for_step(0)
    assert not timer.should_trigger_for_step(2)
    assert timer.should_trigger_for_step(3)
    elapsed_secs, elapsed_steps = timer.update_last_triggered_step(3)
    assert elapsed_steps == 3 and elapsed_secs >= 0
    assert timer.last_triggered_step() == 3
    secs = tf.train.SecondOrStepTimer(every_secs=0.05)
    secs.update_last_triggered_step(1)
    assert not secs.should_trigger_for_step(2)
    time.sleep(0.06)
    assert secs.should_trigger_for_step(2)
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="Can not provide both"):
        tf.train.SecondOrStepTimer(every_secs=1, every_steps=1)


def test_logging_tensor_hook_every_n_iter_and_at_end(info_logs):
    with tf.Graph().as_default():
        step, loss, train = _model()
        twice = tf.constant(2.0, name="twice")
        hook = tf.train.LoggingTensorHook({"loss": loss, "two": twice.name}, every_n_iter=2,
                                          at_end=True)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
    lines = [r.getMessage() for r in info_logs.records if "loss = " in r.getMessage()]
    assert len(lines) == 4  # iterations 0, 2, 4 and the end
    assert lines[0] == "loss = 1.0, two = 2.0"
    assert lines[1].startswith("loss = 1.0, two = 2.0 (") and lines[1].endswith(" sec)")


def test_logging_tensor_hook_formatter_and_argument_errors(info_logs):
    with tf.Graph().as_default():
        _, loss, train = _model()
        hook = tf.train.LoggingTensorHook([loss], every_n_iter=1,
                                          formatter=lambda v: f"L={v[loss]:.1f}")
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(train)
    assert "L=1.0" in [r.getMessage() for r in info_logs.records]
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.train.LoggingTensorHook({"a": "a"})
    with pytest.raises(ValueError, match="invalid every_n_iter=0"):
        tf.train.LoggingTensorHook({"a": "a"}, every_n_iter=0)


def test_stop_at_step_hook_needs_global_step():
    with tf.Graph().as_default():
        tf.constant(1.0)
        with pytest.raises(RuntimeError, match="Global step should be created"):
            tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=1)])
    with pytest.raises(ValueError, match="num_steps must be positive"):
        tf.train.StopAtStepHook(num_steps=-1)


def test_nan_tensor_hook_fails_or_stops():
    with tf.Graph().as_default():
        _, loss, train = _model()
        with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
            sess.run(train)
            with pytest.raises(tf.train.NanLossDuringTrainingError,
                               match="NaN loss during training"):
                sess.run(train, feed_dict={loss: np.nan})
        hook = tf.train.NanTensorHook(loss, fail_on_nan_loss=False)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(train, feed_dict={loss: np.nan})
            assert sess.should_stop()


def test_feed_fn_hook_and_final_ops_hook():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        total = tf.get_variable("total", [], initializer=tf.zeros_initializer())
        add = tf.assign_add(total, x)
        final = tf.train.FinalOpsHook(total * 10)
        feeds = iter([1.0, 2.0, 3.0])
        with tf.train.MonitoredSession(
                hooks=[tf.train.FeedFnHook(lambda: {x: next(feeds)}), final]) as sess:
            for _ in range(3):
                sess.run(add)
        assert final.final_ops_values == 60.0


def test_global_step_waiter_hook_waits_for_other_worker():
    with tf.Graph().as_default():
        step, _, train = _model()
        waiter = tf.train.GlobalStepWaiterHook(wait_until_step=3)
        with tf.train.SingularMonitoredSession(hooks=[waiter]) as sess:
            raw = sess.raw_session()
            bump = threading.Thread(target=lambda: [raw.run(train) for _ in range(3)])
            timer = threading.Timer(0.1, bump.start)
            timer.start()
            sess.run(step)  # blocks in before_run until the step reaches 3
            timer.join(5)
            bump.join(5)
            assert raw.run(step) == 3


# LoggingTensorHook's line for values of each kind, as TF formats them: "%s" of the fetched
# value (float32 scalars print as float32) with NumPy's suppress=True for arrays.
_LOGGED_VALUES_CODE = """
import json
import logging
import numpy as np

def logged_line(tf, logger_name):
    lines = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        with tf.Graph().as_default():
            tf.train.get_or_create_global_step()
            values = {
                "f32": tf.constant(1.5178089, tf.float32),
                "f64": tf.constant(1.5178089, tf.float64),
                "i64": tf.constant(7, tf.int64),
                "small": tf.constant([1e-5, 2.0, 123456.78], tf.float32),
                "s": tf.constant(b"text"),
            }
            hook = tf.train.LoggingTensorHook(values, every_n_iter=1)
            with tf.train.MonitoredSession(hooks=[hook]) as sess:
                sess.run(values["i64"])
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    return [line for line in lines if "f32 = " in line]
"""


def _our_logged_line():
    scope = {}
    exec(_LOGGED_VALUES_CODE, scope)
    return scope["logged_line"](tf, "trainflow")


def test_logging_tensor_hook_formats_values_as_tf():
    line, = _our_logged_line()
    assert line.startswith("f32 = 1.5178089, f64 = 1.5178089, i64 = 7, ")
    assert line.endswith("small = [     0.00001      2.      123456.78   ]")
    assert np.get_printoptions()["suppress"] is False


@needs_tf
def test_logging_tensor_hook_line_matches_tensorflow():
    theirs = run_json(_LOGGED_VALUES_CODE + """
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
print(json.dumps(logged_line(tf, "tensorflow")))
""")
    assert _our_logged_line() == theirs
