"""tf.train.Supervisor and basic_train_loop."""
import glob
import os
import threading

import pytest

import trainflow.compat.v1 as tf


def _model():
    step = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
    tf.summary.scalar("w_value", w)
    return step, w, train


def test_managed_session_initializes_saves_and_restores(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default() as g:
        step, w, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
        assert g.finalized and sv.is_chief and sv.saver is not None
        assert sv.global_step is step
        with sv.managed_session() as sess:
            for _ in range(3):
                sess.run(train)
            sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))
    with tf.Graph().as_default():
        step, w, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            assert sess.run(w) == 3.0 and sess.run(step) == 3


def test_standard_services_write_checkpoints_and_summaries(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default():
        step, w, train = _model()
        sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0.05,
                                 save_summaries_secs=0.05)
        with sv.managed_session() as sess:
            deadline = threading.Event()
            while not deadline.wait(0.01):
                sess.run(train)
                if tf.train.latest_checkpoint(logdir) and sess.run(step) > 20:
                    break
    events = []
    for path in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
        events.extend(tf.train.summary_iterator(path))
    tags = {v.tag for e in events for v in e.summary.value}
    assert {"w_value", "global_step/sec"} <= tags
    statuses = [e.session_log.status for e in events if e.HasField("session_log")]
    assert statuses[0] == tf.SessionLog.START and statuses[-1] == tf.SessionLog.STOP
    assert tf.SessionLog.CHECKPOINT in statuses


def test_basic_train_loop_and_exceptions_from_the_body(tmp_path):
    with tf.Graph().as_default():
        step, w, train = _model()
        sv = tf.train.Supervisor(logdir=None, summary_op=None)
        calls = []

        def train_step(sess, limit):
            calls.append(sess.run(train))
            if len(calls) >= limit:
                sv.request_stop()

        tf.train.basic_train_loop(sv, train_step, args=[4])
        assert len(calls) == 4
        with pytest.raises(ZeroDivisionError):
            with sv.managed_session():
                1 / 0  # noqa: B018
        with sv.managed_session():
            raise tf.errors.OutOfRangeError(None, None, "input exhausted")


def test_non_chief_needs_devices_and_start_services_needs_chief(tmp_path):
    with tf.Graph().as_default():
        _model()
        with pytest.raises(ValueError, match="all Variables must have their device set"):
            tf.train.Supervisor(is_chief=False, logdir=str(tmp_path))
    with tf.Graph().as_default():
        with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
            _model()
        sv = tf.train.Supervisor(is_chief=False, logdir=str(tmp_path), recovery_wait_secs=0.01)
        with pytest.raises(RuntimeError, match="Only chief supervisor"):
            sv.start_standard_services(None)
        with pytest.raises(RuntimeError, match="requires a summary writer"):
            sv.summary_computed(None, b"")
        with pytest.raises(tf.errors.DeadlineExceededError):
            sv.prepare_or_wait_for_session(max_wait_secs=0)
