"""Blocking kernels: RunOptions.timeout_in_ms, ConfigProto.operation_timeout_in_ms and
Session.close() cancel them; a blocked step holds no lock other steps need."""
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.shape_inference import scalar_shapes
from trainflow._src.protos import config_pb2

if not registry.is_registered("TestBlockingWait"):
    def _wait(*, ctx):
        """Blocks until the test sets `released` (or the run is cancelled)."""
        cond = ctx.state.setdefault("cond", threading.Condition())
        with cond:
            ctx.state["waiting"] = ctx.state.get("waiting", 0) + 1
            cond.notify_all()
            ctx.run_state.wait(cond, lambda: ctx.state.get("released", False))
        return np.int32(7)

    registry.register_op("TestBlockingWait", outputs=["out: int32"], shape_fn=scalar_shapes,
                         kernel=_wait, stateful=True, blocking=True)


@pytest.fixture
def env():
    g = tf.Graph()
    with g.as_default():
        blocker = apply_op("TestBlockingWait", name="blocker").outputs[0]
        a = tf.constant(1.0, name="a")
    return g, blocker, a


def _state(sess, t):
    return sess._context.kernels[t.op].keywords["ctx"].state


def _wait_until_blocked(sess, t, count=1, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = sess._context.kernels.get(t.op)
        if state is not None and _state(sess, t).get("waiting", 0) >= count:
            return
        time.sleep(0.005)
    raise AssertionError("the blocking kernel never started")


def _run_in_thread(fn):
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e
    t = threading.Thread(target=target)
    t.start()
    return t, box


def test_run_options_timeout(env):
    g, blocker, a = env
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError) as info:
            sess.run(blocker, options=tf.RunOptions(timeout_in_ms=50))
        assert info.value.op is blocker.op
        assert "[[node blocker" in info.value.message
        assert sess.run(a) == 1.0  # the session is still usable


def test_config_operation_timeout(env):
    g, blocker, a = env
    config = config_pb2.ConfigProto(operation_timeout_in_ms=50)
    with tf.Session(graph=g, config=config) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(blocker)


def test_close_cancels_a_blocked_step(env):
    g, blocker, a = env
    sess = tf.Session(graph=g)
    thread, box = _run_in_thread(lambda: sess.run(blocker))
    _wait_until_blocked(sess, blocker)
    sess.close()
    thread.join(5)
    assert not thread.is_alive()
    assert isinstance(box.get("error"), tf.errors.CancelledError)
    assert "Session has been closed." in box["error"].message


def test_blocked_step_does_not_block_other_steps(env):
    g, blocker, a = env
    with tf.Session(graph=g) as sess:
        thread, box = _run_in_thread(lambda: sess.run(blocker))
        _wait_until_blocked(sess, blocker)
        assert sess.run(a) == 1.0  # runs while the other step waits
        state = _state(sess, blocker)
        with state["cond"]:
            state["released"] = True
            state["cond"].notify_all()
        thread.join(5)
        assert box == {"value": 7}


def test_timeout_applies_per_run(env):
    g, blocker, a = env
    with tf.Session(graph=g) as sess:
        thread, box = _run_in_thread(lambda: sess.run(blocker))
        _wait_until_blocked(sess, blocker)
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(blocker, options=tf.RunOptions(timeout_in_ms=20))
        state = _state(sess, blocker)
        with state["cond"]:
            state["released"] = True
            state["cond"].notify_all()
        thread.join(5)
        assert box == {"value": 7}  # the run without a deadline was not affected
