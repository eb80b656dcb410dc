"""MonitoredSession, SingularMonitoredSession and MonitoredTrainingSession."""
import glob
import os
import threading

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors


def _counter_model():
    step = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
    return step, w, train


class _Recorder(tf.train.SessionRunHook):
    def __init__(self):
        self.calls = []

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return tf.train.SessionRunArgs({"w": "w:0"})

    def after_run(self, run_context, run_values):
        self.calls.append(("after_run", float(run_values.results["w"])))

    def end(self, session):
        self.calls.append("end")


def test_hooks_are_called_in_order_and_see_their_fetches():
    with tf.Graph().as_default():
        _, _, train = _counter_model()
        rec = _Recorder()
        with tf.train.MonitoredSession(hooks=[rec]) as sess:
            sess.run(train)
            sess.run(train)
        assert rec.calls == ["begin", "after_create_session", "before_run", ("after_run", 1.0),
                             "before_run", ("after_run", 2.0), "end"]


def test_stop_at_step_hook_and_should_stop():
    with tf.Graph().as_default():
        step, _, train = _counter_model()
        steps = 0
        with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
            while not sess.should_stop():
                sess.run(train)
                steps += 1
        assert steps == 5
        with pytest.raises(ValueError, match="Exactly one of num_steps and last_step"):
            tf.train.StopAtStepHook(num_steps=1, last_step=2)


def test_run_after_stop_raises_and_graph_is_unfinalized_on_close():
    with tf.Graph().as_default() as g:
        _, _, train = _counter_model()
        sess = tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=1)])
        assert g.finalized
        sess.run(train)
        assert sess.should_stop()
        with pytest.raises(RuntimeError, match="Run called even after should_stop requested"):
            sess.run(train)
        sess.close()
        assert not g.finalized
        with pytest.raises(RuntimeError, match="Session is already closed"):
            sess.close()


def test_context_manager_swallows_out_of_range():
    with tf.Graph().as_default():
        _counter_model()
        bad = tf.py_func(lambda: _raise(StopIteration()), [], tf.float32)  # OutOfRangeError
        with tf.train.MonitoredSession() as sess:
            sess.run(bad)
        assert sess.should_stop()


def _raise(e):
    raise e


def test_hook_feed_conflicts_are_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = x * 2

        class Feeder(tf.train.SessionRunHook):
            def before_run(self, run_context):
                return tf.train.SessionRunArgs(None, feed_dict={x: 3.0})

        with tf.train.MonitoredSession(hooks=[Feeder()]) as sess:
            assert sess.run(y) == 6.0
            with pytest.raises(RuntimeError, match="fed by a SessionRunHook and user"):
                sess.run(y, feed_dict={x: 1.0})
        with tf.train.MonitoredSession(hooks=[Feeder(), Feeder()]) as sess:
            with pytest.raises(RuntimeError, match="fed by two hooks"):
                sess.run(y)


def test_non_hook_is_a_type_error():
    with tf.Graph().as_default():
        _counter_model()
        with pytest.raises(TypeError, match="SessionRunHook"):
            tf.train.MonitoredSession(hooks=[object()])


def test_run_step_fn_and_request_stop():
    with tf.Graph().as_default():
        _, w, train = _counter_model()

        def step_fn(step_context):
            value = step_context.run_with_hooks(train)
            if step_context.session.run(w) >= 3:
                step_context.request_stop()
            return value

        with tf.train.MonitoredSession() as sess:
            while not sess.should_stop():
                sess.run_step_fn(step_fn)
            assert sess._tf_sess().run(w) == 3.0
            with pytest.raises(ValueError, match="step_context"):
                sess.run_step_fn(lambda a, b: None)


def test_recoverable_session_recreates_after_aborted(tmp_path):
    class AbortOnce(tf.train.SessionRunHook):
        armed = False

        def before_run(self, run_context):
            if self.armed:
                self.armed = False
                raise errors.AbortedError(None, None, "preempted")

    with tf.Graph().as_default():
        step, w, train = _counter_model()
        abort = AbortOnce()
        clobber = w.assign(100.0)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=[abort],
                                               save_checkpoint_steps=1,
                                               save_summaries_steps=None,
                                               log_step_count_steps=None) as sess:
            sess.run(train)
            sess.run(train)
            sess.run(clobber)  # lost: the session is recreated from step 2
            abort.armed = True
            sess.run(train)
            assert sess.run(step) == 3
            assert sess.run(w) == 3.0


def test_monitored_training_session_resumes_from_checkpoint(tmp_path):
    ckpt = str(tmp_path)
    for run in range(2):
        with tf.Graph().as_default():
            step, w, train = _counter_model()
            with tf.train.MonitoredTrainingSession(
                    checkpoint_dir=ckpt, save_checkpoint_steps=2,
                    hooks=[tf.train.StopAtStepHook(last_step=4 * (run + 1))]) as sess:
                while not sess.should_stop():
                    sess.run(train)
            assert tf.train.latest_checkpoint(ckpt).endswith(f"model.ckpt-{4 * (run + 1)}")
    reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(ckpt))
    assert reader.get_tensor("w") == 8.0 and reader.get_tensor("global_step") == 8
    assert glob.glob(os.path.join(ckpt, "events.out.tfevents.*"))
    assert os.path.exists(os.path.join(ckpt, "graph.pbtxt"))


def test_singular_monitored_session_raw_session_and_no_threads_left():
    before = threading.active_count()
    with tf.Graph().as_default():
        _, w, train = _counter_model()
        queue = tf.FIFOQueue(4, tf.float32)
        enqueue = queue.enqueue(1.0)
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 2))
        dequeue = queue.dequeue()
        with tf.train.SingularMonitoredSession(stop_grace_period_secs=5) as sess:
            assert sess.run(dequeue) == 1.0
            assert sess.raw_session().run(w) == 0.0
    assert threading.active_count() == before


def test_worker_waits_for_chief_and_times_out():
    with tf.Graph().as_default():
        _counter_model()
        creator = tf.train.WorkerSessionCreator(max_wait_secs=0)
        with pytest.raises(errors.DeadlineExceededError, match="not ready"):
            tf.train.MonitoredSession(session_creator=creator)


def test_close_returns_within_grace_period_with_blocked_queue_threads():
    import time
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        _counter_model()
        queue = tf.FIFOQueue(1, tf.float32)  # full after one element: enqueuers block
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue(1.0)] * 8))
        size = queue.size()
        sess = tf.train.MonitoredSession(stop_grace_period_secs=3)
        deadline = time.monotonic() + 5
        while sess._tf_sess().run(size) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        start = time.monotonic()
        sess.close()
        assert time.monotonic() - start < 3.5
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not set(threading.enumerate()) - before
