"""The worker service: partitions run without their colocation targets, and closing a
session cancels its steps still blocked on a task (as TF's CloseSession does)."""
import threading
import time

import trainflow.compat.v1 as tf
from local_cluster import local_cluster

CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def test_node_colocated_with_an_op_outside_the_step_runs():
    with local_cluster(ps=1, workers=1) as (cluster, servers):
        with tf.Graph().as_default() as g:
            with tf.device("/job:worker/task:0"):
                anchor = tf.no_op()
            with tf.device("/job:ps/task:0"):
                x = tf.constant(2.0)
            with tf.colocate_with(anchor):
                y = x * 3.0
            assert y.op.colocation_groups() == [b"loc:@NoOp"]
            with tf.Session(servers["worker"][0].target, graph=g, config=CONFIG) as sess:
                assert sess.run(y) == 6.0


def test_closing_the_session_cancels_a_blocked_step():
    with local_cluster(ps=1, workers=1) as (cluster, servers):
        with tf.Graph().as_default() as g:
            with tf.device("/job:ps/task:0"):
                q = tf.FIFOQueue(1, tf.float32, shapes=(), shared_name="q")
                take = q.dequeue()
                put = q.enqueue(1.0)
                size = q.size()
            sess = tf.Session(servers["worker"][0].target, graph=g, config=CONFIG)
            raised = []

            def run():
                try:
                    sess.run(take)
                except tf.errors.CancelledError as e:
                    raised.append(e)
            t = threading.Thread(target=run)
            t.start()
            time.sleep(0.5)
            start = time.monotonic()
            sess.close()
            t.join(10)
            assert not t.is_alive()
            assert time.monotonic() - start < 10
            assert len(raised) == 1
            # The dequeue on the ps ended too: it doesn't take the next element.
            with tf.Session(servers["worker"][0].target, graph=g, config=CONFIG) as sess:
                sess.run(put)
                time.sleep(0.2)
                assert sess.run(size) == 1
