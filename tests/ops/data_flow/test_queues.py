"""Queues: FIFO/padding/shuffle/priority semantics, blocking, closing, cancellation and
deadlines, shared queues."""
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.data_flow.queues import (
    FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue)

# Every blocking run in these tests ends within the deadline.
_CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def _thread(fn):
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


def test_fifo_order_names_and_shapes():
    with tf.Graph().as_default():
        q = FIFOQueue(10, [tf.int32, tf.float32], shapes=[[], [2]])
        enq = q.enqueue_many([[1, 2, 3], [[1, 2], [3, 4], [5, 6]]])
        d = q.dequeue()
        dm = q.dequeue_many(2)
        assert enq.type == "QueueEnqueueManyV2" and enq.name == "fifo_queue_EnqueueMany"
        assert q.queue_ref.op.type == "FIFOQueueV2" and q.name == "fifo_queue"
        assert d[0].op.name == "fifo_queue_Dequeue" and d[1].shape.as_list() == [2]
        assert dm[1].shape.as_list() == [2, 2] and dm[0].op.type == "QueueDequeueManyV2"
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            assert sess.run(q.size()) == 3
            a, b = sess.run(d)
            assert a == 1 and b.tolist() == [1, 2]
            a, b = sess.run(dm)
            assert a.tolist() == [2, 3] and b.tolist() == [[3, 4], [5, 6]]


def test_names_dict_enqueue_dequeue():
    with tf.Graph().as_default():
        q = FIFOQueue(4, [tf.int32, tf.string], shapes=[[], []], names=["x", "s"])
        enq = q.enqueue({"x": 3, "s": b"a"})
        out = q.dequeue()
        assert sorted(out) == ["s", "x"]
        with pytest.raises(ValueError):
            q.enqueue([3, b"a"])
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            v = sess.run(out)
            assert v["x"] == 3 and v["s"] == b"a"


def test_closed_queue_errors_and_up_to():
    with tf.Graph().as_default():
        q = FIFOQueue(10, tf.int32, shapes=[[]])
        enq = q.enqueue_many([[1, 2, 3]])
        many = q.dequeue_many(2)
        upto = q.dequeue_up_to(5)
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            sess.run(q.close())
            assert sess.run(q.is_closed())
            with pytest.raises(tf.errors.CancelledError, match="is closed"):
                sess.run(enq)
            assert sess.run(many).tolist() == [1, 2]
            with pytest.raises(tf.errors.OutOfRangeError,
                               match=r"insufficient elements \(requested 2, current size 1\)"):
                sess.run(many)
            assert sess.run(upto).tolist() == [3]  # the element was put back
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(upto)


def test_blocking_dequeue_larger_than_capacity():
    with tf.Graph().as_default():
        q = FIFOQueue(2, tf.int32, shapes=[[]])
        enq = q.enqueue_many([list(range(7))])
        many = q.dequeue_many(7)
        with tf.Session(config=_CONFIG) as sess:
            t, box = _thread(lambda: sess.run(enq))
            assert sess.run(many).tolist() == list(range(7))
            t.join(5)
            assert not t.is_alive() and "error" not in box


def test_enqueue_blocks_when_full_and_close_cancels_pending():
    with tf.Graph().as_default():
        q = FIFOQueue(1, tf.int32, shapes=[[]])
        enq = q.enqueue(1)
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            t, box = _thread(lambda: sess.run(enq))
            time.sleep(0.1)
            assert t.is_alive()
            sess.run(q.close(cancel_pending_enqueues=True))
            t.join(5)
            assert isinstance(box.get("error"), tf.errors.CancelledError)


def test_close_without_cancel_lets_pending_enqueue_finish():
    with tf.Graph().as_default():
        q = FIFOQueue(1, tf.int32, shapes=[[]])
        enq = q.enqueue(1)
        deq = q.dequeue()
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            t, box = _thread(lambda: sess.run(enq))
            time.sleep(0.05)
            sess.run(q.close())
            assert sess.run(deq) == 1
            t.join(5)
            assert "error" not in box
            assert sess.run(deq) == 1


def test_dequeue_deadline_and_session_close():
    with tf.Graph().as_default():
        q = FIFOQueue(1, tf.int32, shapes=[[]])
        deq = q.dequeue()
        sess = tf.Session(config=_CONFIG)
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(deq, options=tf.RunOptions(timeout_in_ms=30))
        t, box = _thread(lambda: sess.run(deq))
        time.sleep(0.05)
        sess.close()
        t.join(5)
        assert isinstance(box.get("error"), tf.errors.CancelledError)


def test_runtime_shape_mismatch():
    with tf.Graph().as_default():
        q = FIFOQueue(3, tf.int32, shapes=[[2]])
        p = tf.placeholder(tf.int32)
        enq = q.enqueue(p)
        with tf.Session(config=_CONFIG) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Shape mismatch in tuple component 0. Expected \[2\], "
                                     r"got \[3\]"):
                sess.run(enq, {p: [1, 2, 3]})
        with pytest.raises(ValueError):
            q.enqueue([1, 2, 3])


def test_dequeue_many_needs_shapes():
    with tf.Graph().as_default():
        q = FIFOQueue(3, tf.int32)
        enq = q.enqueue(1)
        many = q.dequeue_many(1)
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            with pytest.raises(tf.errors.InvalidArgumentError, match="specified shapes"):
                sess.run(many)


def test_padding_fifo_queue_pads():
    with tf.Graph().as_default():
        q = PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], [None]])
        e1 = q.enqueue([[1, 2, 3], [b"a"]])
        e2 = q.enqueue([[4], [b"b", b"c"]])
        out = q.dequeue_many(2)
        assert out[0].shape.as_list() == [2, None]
        with tf.Session(config=_CONFIG) as sess:
            sess.run([e1])
            sess.run([e2])
            a, s = sess.run(out)
            assert a.tolist() == [[1, 2, 3], [4, 0, 0]]
            assert s.tolist() == [[b"a", b""], [b"b", b"c"]]


def test_random_shuffle_queue_keeps_min_after_dequeue():
    with tf.Graph().as_default():
        q = RandomShuffleQueue(50, 5, tf.int32, shapes=[[]], seed=7)
        enq = q.enqueue_many([list(range(20))])
        many = q.dequeue_many(15)
        one = q.dequeue()
        assert q.queue_ref.op.get_attr("min_after_dequeue") == 5
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            got = sess.run(many).tolist()
            assert len(set(got)) == 15 and got != list(range(15))
            with pytest.raises(tf.errors.DeadlineExceededError):  # 5 left == min_after
                sess.run(one, options=tf.RunOptions(timeout_in_ms=30))
            sess.run(q.close())
            rest = [sess.run(one) for _ in range(5)]
            assert sorted(got + rest) == list(range(20))


def test_priority_queue_order():
    with tf.Graph().as_default():
        q = PriorityQueue(10, [tf.string], shapes=[[]])
        enq = q.enqueue_many([[5, 1, 3], [b"a", b"b", b"c"]])
        pri, val = q.dequeue_many(3)
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq)
            p, v = sess.run([pri, val])
            assert p.tolist() == [1, 3, 5] and v.tolist() == [b"b", b"c", b"a"]


def test_from_list_routes_to_selected_queue():
    with tf.Graph().as_default():
        qs = [FIFOQueue(5, tf.int32, shapes=[[]]) for _ in range(2)]
        idx = tf.placeholder(tf.int32, [])
        sel = QueueBase.from_list(idx, qs)
        enq = sel.enqueue(9)
        with tf.Session(config=_CONFIG) as sess:
            sess.run(enq, {idx: 1})
            assert sess.run([qs[0].size(), qs[1].size()]) == [0, 1]
        with pytest.raises(TypeError):
            QueueBase.from_list(idx, [qs[0], FIFOQueue(5, tf.float32)])


def test_shared_name_shared_within_target_resources():
    with tf.Graph().as_default():
        a = FIFOQueue(5, tf.int32, shapes=[[]], shared_name="shared_q", name="a")
        b = FIFOQueue(5, tf.int32, shapes=[[]], shared_name="shared_q", name="b")
        c = FIFOQueue(5, tf.float32, shapes=[[]], shared_name="shared_q", name="c")
        with tf.Session(config=_CONFIG) as sess:
            sess.run(a.enqueue(4))
            assert sess.run(b.dequeue()) == 4
            with pytest.raises(tf.errors.InvalidArgumentError, match="shared_q"):
                sess.run(c.size())


def test_concurrent_producers_deliver_every_element_once():
    with tf.Graph().as_default():
        q = FIFOQueue(8, tf.int32, shapes=[[]])
        p = tf.placeholder(tf.int32, [None])
        enq = q.enqueue_many(p)
        upto = q.dequeue_up_to(16)
        with tf.Session(config=_CONFIG) as sess:
            threads = [_thread(lambda i=i: sess.run(enq, {p: np.arange(i * 50, i * 50 + 50)}))
                       for i in range(8)]
            got = []
            while len(got) < 400:
                got.extend(sess.run(upto, options=tf.RunOptions(timeout_in_ms=5000)).tolist())
            for t, _ in threads:
                t.join(5)
            assert sorted(got) == list(range(400))


def test_error_messages_use_tf_resource_names_and_double_close():
    with tf.Graph().as_default():
        q = FIFOQueue(3, tf.int32, shapes=[[]], name="first")
        s = PaddingFIFOQueue(3, tf.int32, shapes=[[None]], shared_name="shared")
        with tf.Session(config=_CONFIG) as sess:
            sess.run(q.close())
            with pytest.raises(tf.errors.OutOfRangeError,
                               match=r"FIFOQueue '_\d+_first' is closed and has insufficient"):
                sess.run(q.dequeue())
            with pytest.raises(tf.errors.CancelledError,
                               match=r"Queue '_\d+_first' is already closed."):
                sess.run(q.close())
            sess.run(q.close(cancel_pending_enqueues=True))  # allowed, as in TF
            sess.run(s.close())
            with pytest.raises(tf.errors.CancelledError, match="FIFOQueue 'shared' is closed."):
                sess.run(s.enqueue([[1]]))
