"""Session.close() against runs that are starting: with large feed dicts and a tiny GIL
switch interval, every run returns (cancelled, or refused as closed) within a second of
close(), and no thread is left behind."""
import random
import sys
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.shape_inference import scalar_shapes

TRIALS = 10
THREADS = 4
FEEDS = 1000

if not registry.is_registered("TestCloseRaceWait"):
    def _wait(*, ctx):
        """Blocks until the run is cancelled (nothing else releases it)."""
        cond = ctx.state.setdefault("cond", threading.Condition())
        with cond:
            ctx.run_state.wait(cond, lambda: False)
        return np.int32(0)

    registry.register_op("TestCloseRaceWait", outputs=["out: int32"], shape_fn=scalar_shapes,
                         kernel=_wait, stateful=True, blocking=True)


@pytest.fixture
def short_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _graph():
    g = tf.Graph()
    with g.as_default():
        blocker = apply_op("TestCloseRaceWait", name="blocker").outputs[0]
        feeds = [tf.placeholder(tf.float32, shape=[], name=f"p{i}") for i in range(FEEDS)]
    return g, blocker, feeds


def test_close_cancels_runs_that_are_starting(short_switch_interval):
    g, blocker, feeds = _graph()
    feed_dict = {p: 1.0 for p in feeds}
    rng = random.Random(7)
    outcomes = {}
    for _ in range(TRIALS):
        sess = tf.Session(graph=g)
        start = threading.Barrier(THREADS + 1)
        boxes = [{} for _ in range(THREADS)]

        def run(box):
            start.wait(timeout=10)
            try:
                box["value"] = sess.run(blocker, feed_dict=feed_dict)
            except BaseException as e:  # noqa: BLE001 - checked below
                box["error"] = e
        threads = [threading.Thread(target=run, args=(b,), daemon=True) for b in boxes]
        for t in threads:
            t.start()
        start.wait(timeout=10)
        time.sleep(rng.uniform(0.0, 0.03))
        sess.close()
        closed_at = time.monotonic()
        for t in threads:
            t.join(timeout=max(0.0, closed_at + 1.0 - time.monotonic()))
        stuck = sum(t.is_alive() for t in threads)
        assert stuck == 0, f"{stuck} runs still going a second after close()"
        for box in boxes:
            err = box.get("error")
            assert isinstance(err, (tf.errors.CancelledError, RuntimeError)), box
            name = type(err).__name__
            outcomes[name] = outcomes.get(name, 0) + 1
    print(f"\nclose/run race: {outcomes}")


def test_a_run_closed_while_processing_its_feeds_is_cancelled(monkeypatch):
    g, blocker, feeds = _graph()
    sess = tf.Session(graph=g)
    real = sess._process_feeds

    def close_midway(feed_dict):
        out = real(feed_dict)
        sess.close()
        return out
    monkeypatch.setattr(sess, "_process_feeds", close_midway)
    with pytest.raises(tf.errors.CancelledError, match="Session has been closed"):
        sess.run(blocker, feed_dict={feeds[0]: 1.0})
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(blocker)
