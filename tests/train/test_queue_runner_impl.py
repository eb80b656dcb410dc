"""QueueRunner: threads until the queue closes, coordinator stops, session close,
exceptions, QueueRunnerDef round trip."""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.protos.queue_runner_pb2 import QueueRunnerDef

# Every blocking run in these tests ends within the deadline.
_CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def _counting_pipeline(limit):
    """A queue fed by a runner whose enqueue fails with OutOfRange after `limit` items."""
    counter = tf.Variable(0, name="counter")
    inc = tf.count_up_to(counter, limit)
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    qr = tf.train.QueueRunner(q, [q.enqueue(inc)] * 2)
    return q, qr


def _no_new_threads(before):
    for t in threading.enumerate():
        if t not in before:
            t.join(5)
            assert not t.is_alive(), t.name


def test_runner_closes_queue_when_inputs_end():
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        q, qr = _counting_pipeline(20)
        deq = q.dequeue()
        with tf.Session(config=_CONFIG) as sess:
            sess.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            assert len(threads) == 3
            got = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    got.append(sess.run(deq))
            assert sorted(got) == list(range(20))
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
            assert qr.exceptions_raised == []
    _no_new_threads(before)


def test_coordinator_stop_cancels_blocked_enqueues():
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, tf.float32, shapes=[[]])
        qr = tf.train.QueueRunner(q, [q.enqueue(1.0)] * 4)
        tf.train.add_queue_runner(qr)
        assert tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS) == [qr]
        with tf.Session(config=_CONFIG) as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            assert len(threads) == 5 and all(t.daemon for t in threads)
            assert sess.run(q.dequeue()) == 1.0
            assert qr.create_threads(sess, coord) == []  # already running for sess
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    _no_new_threads(before)


# As in TF, a runner without coordinator re-raises the CancelledError in its thread.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_session_close_while_threads_blocked():
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
        qr = tf.train.QueueRunner(q, [q.enqueue(1.0)] * 3)
        sess = tf.Session(config=_CONFIG)
        threads = qr.create_threads(sess, start=True)
        sess.run(q.dequeue())
        sess.close()
        for t in threads:
            t.join(5)
            assert not t.is_alive()
        assert all(isinstance(e, tf.errors.CancelledError) for e in qr.exceptions_raised)
    _no_new_threads(before)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_enqueue_error_reaches_coordinator_and_exceptions_raised():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(5, tf.float32, shapes=[[]])
        bad = tf.check_numerics(tf.constant(np.inf, tf.float32), "bad value")
        qr = tf.train.QueueRunner(q, [q.enqueue(bad)])
        with tf.Session(config=_CONFIG) as sess:
            coord = tf.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
                coord.join(threads, stop_grace_period_secs=5)
            threads = qr.create_threads(sess, start=True)
            for t in threads:
                t.join(5)
            assert len(qr.exceptions_raised) == 1


def test_proto_round_trip_and_arguments():
    with tf.Graph().as_default() as g:
        q = tf.FIFOQueue(5, tf.float32, shapes=[[]], name="q")
        enq = q.enqueue(1.0)
        qr = tf.train.QueueRunner(q, [enq], queue_closed_exception_types=(
            tf.errors.OutOfRangeError, tf.errors.CancelledError))
        proto = qr.to_proto()
        assert isinstance(proto, QueueRunnerDef)
        assert proto.queue_name == "q" and list(proto.enqueue_op_name) == [enq.name]
        assert proto.close_op_name == "q_Close" and proto.cancel_op_name == "q_Close_1"
        assert list(proto.queue_closed_exception_types) == [11, 1]
        back = tf.train.QueueRunner.from_proto(proto)
        assert back.queue is g.get_operation_by_name("q") and back.enqueue_ops == [enq]
        assert back.queue_closed_exception_types == (tf.errors.OutOfRangeError,
                                                     tf.errors.CancelledError)
        assert qr.to_proto(export_scope="other") is None
        with pytest.raises(ValueError, match="Must provide queue and enqueue_ops"):
            tf.train.QueueRunner(q, [])
        with pytest.raises(TypeError, match="queue_closed_exception_types"):
            tf.train.QueueRunner(q, [enq], queue_closed_exception_types=[ValueError])
        with pytest.raises(ValueError, match="No default session"):
            tf.train.start_queue_runners()
        assert tf.train.queue_runner.QueueRunner is tf.train.QueueRunner
