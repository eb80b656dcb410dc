"""Coordinator and LooperThread: stop requests, exception reporting, join and grace."""
import contextlib
import logging
import threading
import time

import pytest

import trainflow.compat.v1 as tf


def _worker(coord, started, fail=None):
    started.set()
    with coord.stop_on_exception():
        while not coord.should_stop():
            if fail is not None:
                raise fail
            time.sleep(0.005)


def test_request_stop_and_join():
    coord = tf.train.Coordinator()
    started = threading.Event()
    threads = [threading.Thread(target=_worker, args=(coord, started)) for _ in range(3)]
    for t in threads:
        t.start()
    assert started.wait(5) and not coord.should_stop()
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5)
    assert coord.joined and coord.should_stop()
    assert not any(t.is_alive() for t in threads)


def test_exception_reraised_by_join_and_first_one_wins():
    coord = tf.train.Coordinator()
    started = threading.Event()
    t = threading.Thread(target=_worker, args=(coord, started, ValueError("boom")))
    coord.register_thread(t)
    t.start()
    assert coord.wait_for_stop(5)
    coord.request_stop(RuntimeError("second"))
    with pytest.raises(ValueError, match="boom"):
        coord.join(stop_grace_period_secs=5)
    with pytest.raises(ValueError, match="boom"):
        coord.raise_requested_exception()
    with pytest.raises(KeyError):  # after join, a reported exception is raised at once
        coord.request_stop(KeyError("late"))


def test_clean_stop_exceptions_are_not_reported():
    coord = tf.train.Coordinator()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
    coord.join()
    coord.clear_stop()
    assert not coord.should_stop() and not coord.joined
    coord2 = tf.train.Coordinator(clean_stop_exception_types=(KeyError,))
    coord2.request_stop(KeyError("fine"))
    coord2.join()
    with pytest.raises(ValueError, match="ex must be a tuple"):
        tf.train.Coordinator().request_stop("not an exception")


@contextlib.contextmanager
def _captured_log():
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = tf.get_logger()
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


def test_join_reports_stragglers():
    coord = tf.train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, args=(5,), name="straggler")
    t.start()
    try:
        coord.request_stop()
        with _captured_log() as records:
            with pytest.raises(RuntimeError, match="threads still running: straggler"):
                coord.join([t], stop_grace_period_secs=0.05)
        # The thread given up on is logged with its name and where it is stuck.
        logged = "\n".join(r.getMessage() for r in records)
        assert "Thread straggler is still running" in logged
        assert "in wait" in logged and "threading.py" in logged
        coord.clear_stop()
        coord.request_stop()
        coord.join([t], stop_grace_period_secs=0.01, ignore_live_threads=True)
    finally:
        release.set()
        t.join(5)


def test_looper_thread_timer_and_target():
    coord = tf.train.Coordinator()
    calls = []
    looper = tf.train.LooperThread.loop(coord, 0.01, calls.append, args=(1,))
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    coord.request_stop()
    coord.join(stop_grace_period_secs=5)
    assert len(calls) >= 3 and not looper.is_alive()
    with pytest.raises(ValueError):
        tf.train.LooperThread(coord, None, args=(1,))


def test_looper_exception_stops_coordinator():
    coord = tf.train.Coordinator()

    def bad():
        raise IndexError("looper failed")
    tf.train.LooperThread.loop(coord, None, bad)
    with pytest.raises(IndexError, match="looper failed"):
        coord.join(stop_grace_period_secs=5)
