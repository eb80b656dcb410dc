"""Queue runners travel through meta graphs as QueueRunnerDefs (TF's QUEUE_RUNNERS
collection), so an imported input pipeline starts its threads again."""
import trainflow.compat.v1 as tf


def test_queue_runners_round_trip_through_a_meta_graph():
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, tf.float32, name="numbers")
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue(7.0)] * 2))
        queue.dequeue(name="take")
        meta = tf.train.export_meta_graph()
    assert len(meta.collection_def["queue_runners"].bytes_list.value) == 1
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(meta)
        runners = g.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert len(runners) == 1 and len(runners[0].enqueue_ops) == 2
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            assert sess.run("take:0", options=tf.RunOptions(timeout_in_ms=10000)) == 7.0
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
