"""tf.train input functions: producers, epochs, batching variants, SparseTensor inputs,
keep_input, dynamic padding, op names as TF's."""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf

# Every blocking run in these tests ends within the deadline.
_CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def _run_pipeline(fetch, limit=10000):
    """Runs the queue runners and `fetch` until OutOfRangeError; returns the values."""
    out = []
    with tf.Session(config=_CONFIG) as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            for _ in range(limit):
                out.append(sess.run(fetch, options=tf.RunOptions(timeout_in_ms=10000)))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return out


def test_string_input_producer_epochs_and_names():
    with tf.Graph().as_default() as g:
        q = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
        names = {op.name: op.type for op in g.get_operations()}
        assert names["input_producer"] == "FIFOQueueV2"
        assert names["input_producer/input_producer_EnqueueMany"] == "QueueEnqueueManyV2"
        assert names["input_producer/limit_epochs/epochs"] == "VariableV2"
        assert names["input_producer/limit_epochs/CountUpTo"] == "CountUpTo"
        epochs = g.get_tensor_by_name("input_producer/limit_epochs/epochs:0")
        assert epochs.op in [v.op for v in tf.local_variables()]
        assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 1
        got = _run_pipeline(q.dequeue())
        assert got == [b"a", b"b", b"c"] * 2
    with pytest.raises(ValueError, match="non-null"):
        tf.train.string_input_producer([])
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        tf.train.limit_epochs(tf.constant(1), 0)


def test_shuffled_producer_covers_each_epoch():
    with tf.Graph().as_default():
        q = tf.train.range_input_producer(10, num_epochs=3, shuffle=True, seed=5)
        got = _run_pipeline(q.dequeue())
        assert len(got) == 30
        for e in range(3):
            assert sorted(got[e * 10:(e + 1) * 10]) == list(range(10))


def test_slice_input_producer_and_batch_smaller_final():
    with tf.Graph().as_default():
        xs = np.arange(10, dtype=np.float32)
        ys = np.arange(10, 20)
        x, y = tf.train.slice_input_producer([xs, ys], num_epochs=1, shuffle=False)
        bx, by = tf.train.batch([x, y], 4, allow_smaller_final_batch=True)
        assert bx.shape.as_list() == [None] and bx.op.name == "batch"
        got = _run_pipeline([bx, by])
        assert [len(a) for a, _ in got] == [4, 4, 2]
        assert np.concatenate([b for _, b in got]).tolist() == list(range(10, 20))


def test_batch_dict_enqueue_many_and_dynamic_pad():
    with tf.Graph().as_default():
        feats = tf.train.batch({"a": tf.constant([[1, 2], [3, 4]]), "b": tf.constant([5, 6])},
                               batch_size=3, enqueue_many=True)
        assert sorted(feats) == ["a", "b"] and feats["a"].shape.as_list() == [3, 2]
        with tf.Session(config=_CONFIG) as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            v = sess.run(feats)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
        assert v["a"].tolist() == [[1, 2], [3, 4], [1, 2]] and v["b"].tolist() == [5, 6, 5]
    with tf.Graph().as_default():
        n = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
        seq = tf.range(n + 1)
        padded = tf.train.batch([seq], 2, dynamic_pad=True, allow_smaller_final_batch=True)
        got = _run_pipeline(padded)
        assert [g.tolist() for g in got] == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]


def test_sparse_tensor_inputs():
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue()
        sp = tf.SparseTensor(indices=[[0], [1]], values=tf.stack([i, i * 10]),
                             dense_shape=[2])
        out = tf.train.batch([sp], 3)
        assert isinstance(out, tf.SparseTensor)
        got = _run_pipeline(out)
        assert len(got) == 1
        v = got[0]
        assert v.indices.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]]
        assert v.values.tolist() == [0, 0, 1, 10, 2, 20] and v.dense_shape.tolist() == [3, 2]


def test_maybe_batch_keep_input():
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
        out = tf.train.maybe_batch([i], tf.equal(i % 2, 0), 2, allow_smaller_final_batch=True)
        assert np.concatenate(_run_pipeline(out)).tolist() == [0, 2, 4, 6, 8]
    with tf.Graph().as_default():
        vals = tf.constant([1, 2, 3, 4])
        out = tf.train.maybe_batch([vals], tf.constant([True, False, True, False]), 2,
                                   enqueue_many=True)
        with tf.Session(config=_CONFIG) as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            assert sess.run(out).tolist() == [1, 3]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    with pytest.raises(ValueError, match="cannot be a vector"):
        tf.train.maybe_batch([tf.constant(1)], tf.constant([True]), 2)


def test_shuffle_batch_and_joins_deliver_every_element():
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(50, num_epochs=1, shuffle=False).dequeue()
        out = tf.train.shuffle_batch([i], 5, capacity=20, min_after_dequeue=10, num_threads=3,
                                     seed=1, allow_smaller_final_batch=True)
        assert out.op.name == "shuffle_batch"
        got = np.concatenate(_run_pipeline(out)).tolist()
        assert sorted(got) == list(range(50)) and got != list(range(50))
    with tf.Graph().as_default():
        q = tf.train.range_input_producer(40, num_epochs=1, shuffle=False)
        lists = [[q.dequeue()] for _ in range(4)]
        out = tf.train.batch_join(lists, 8, allow_smaller_final_batch=True)
        assert sorted(np.concatenate(_run_pipeline(out)).tolist()) == list(range(40))
    with tf.Graph().as_default():
        q = tf.train.range_input_producer(40, num_epochs=1, shuffle=False)
        lists = [[q.dequeue()] for _ in range(2)]
        out = tf.train.shuffle_batch_join(lists, 8, capacity=30, min_after_dequeue=5,
                                          allow_smaller_final_batch=True)
        assert sorted(np.concatenate(_run_pipeline(out)).tolist()) == list(range(40))
        with pytest.raises(ValueError, match="must be bigger than min_after_dequeue"):
            tf.train.shuffle_batch([tf.constant(1)], 2, capacity=5, min_after_dequeue=5)


def test_match_filenames_once(tmp_path):
    for n in ("a.txt", "b.txt", "c.bin"):
        (tmp_path / n).write_bytes(b"x")
    with tf.Graph().as_default():
        files = tf.train.match_filenames_once(str(tmp_path / "*.txt"))
        assert files.op.name == "matching_filenames"
        with tf.Session(config=_CONFIG) as sess:
            sess.run(tf.local_variables_initializer())
            assert [f.decode().rsplit("/", 1)[-1] for f in sess.run(files)] == ["a.txt", "b.txt"]


def test_sixteen_threads_deliver_every_record_once_per_epoch_and_stop(tmp_path):
    before = set(threading.enumerate())
    files = []
    for f in range(4):
        path = str(tmp_path / f"d{f}.tfrecord")
        files.append(path)
        with tf.io.TFRecordWriter(path) as w:
            for r in range(50):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "id": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[f * 1000 + r]))})).SerializeToString())
    with tf.Graph().as_default():
        fq = tf.train.string_input_producer(files, num_epochs=3, shuffle=True, seed=3)
        examples = []
        for _ in range(16):
            _, value = tf.TFRecordReader().read(fq)
            examples.append([tf.parse_single_example(
                value, {"id": tf.FixedLenFeature([], tf.int64)})["id"]])
        ids = tf.train.shuffle_batch_join(examples, 32, capacity=200, min_after_dequeue=50,
                                          allow_smaller_final_batch=True)
        w = tf.Variable(0, dtype=tf.int64)
        train = tf.assign_add(w, tf.reduce_sum(ids))
        got = []
        with tf.Session(config=_CONFIG) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            assert len(threads) == 19  # producer + 16 enqueue threads, a cancel thread each
            try:
                while not coord.should_stop():
                    got.extend(sess.run([ids, train],
                                        options=tf.RunOptions(timeout_in_ms=20000))[0].tolist())
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=10)
    expected = sorted(f * 1000 + r for f in range(4) for r in range(50)) * 3
    assert sorted(got) == sorted(expected)
    for t in threading.enumerate():
        if t not in before:
            t.join(5)
            assert not t.is_alive()


def test_session_close_while_pipeline_threads_blocked():
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        q = tf.train.range_input_producer(1000, shuffle=False, capacity=4)
        out = tf.train.batch([q.dequeue()], 2, num_threads=16, capacity=4)
        sess = tf.Session(config=_CONFIG)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        sess.run(out)
        sess.close()  # threads are blocked on full queues
        with pytest.raises(tf.errors.CancelledError):
            coord.join(threads, stop_grace_period_secs=10)
    for t in threading.enumerate():
        if t not in before:
            t.join(5)
            assert not t.is_alive()


def test_fullness_summaries_use_summary_scalar(monkeypatch):
    from trainflow._src.ops.summary import summary_ops as summary_mod
    calls = []
    monkeypatch.setattr(summary_mod, "scalar", lambda name, value: calls.append(
        (name, value)), raising=False)
    with tf.Graph().as_default():
        q = tf.train.string_input_producer(["a"])
        tf.train.batch([q.dequeue()], 2)
        tf.train.shuffle_batch([q.dequeue()], 2, capacity=30, min_after_dequeue=10)
    assert [n for n, _ in calls] == ["fraction_of_32_full", "fraction_of_32_full",
                                     "fraction_over_10_of_20_full"]
    assert all(v.dtype == tf.float32 for _, v in calls)
    assert calls[1][1].op.name == "batch/mul"


def test_argument_errors_and_shapes_argument():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="fully defined shape"):
            tf.train.input_producer(tf.placeholder(tf.float32, [None, None]))
        with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
            tf.train.batch([tf.placeholder(tf.float32)], 2)
        with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
            tf.train.maybe_batch([tf.constant([[1]])], tf.constant([[True]]), 2,
                                 enqueue_many=True)
        x = tf.train.batch([tf.placeholder(tf.float32)], 2, shapes=[[3]])
        assert x.shape.as_list() == [2, 3]
        lim = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=2)
        assert lim.op.name == "limit_epochs" and lim.op.type == "Identity"
        with tf.Session(config=_CONFIG) as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(lim).tolist() == [1, 2]
            assert sess.run(lim).tolist() == [1, 2]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(lim)
