"""A queue runner's per-record enqueue (read -> parse_single_example -> enqueue) runs many
records a call: the same records, the order of one thread, the per-record error after the
records before a bad one, cancellation on stop; other enqueue ops run unfused."""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.train import fused_enqueue, queue_runner_impl

N = 150
FEATURES = {"id": tf.FixedLenFeature([], tf.int64),
            "x": tf.FixedLenFeature([2], tf.float32, default_value=[7.0, 8.0]),
            "name": tf.FixedLenFeature([], tf.string)}


def _example(i):
    feature = {"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
               "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"r%d" % i]))}
    if i % 3:
        feature["x"] = tf.train.Feature(float_list=tf.train.FloatList(value=[i, -i]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


@pytest.fixture
def files(tmp_path):
    paths = []
    for f in range(3):
        path = str(tmp_path / f"d{f}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for i in range(f * N // 3, (f + 1) * N // 3):
                w.write(b"not an example" if i == -1 else _example(i))
        paths.append(path)
    return paths


def _per_record(files, batcher):
    fq = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    key, value = tf.TFRecordReader().read(fq)
    feats = tf.parse_single_example(value, FEATURES)
    return batcher([feats["id"], feats["x"], feats["name"], key])


BATCHERS = {
    "batch_1_thread": (lambda t: tf.train.batch(t, 10, allow_smaller_final_batch=True), True),
    "batch_3_threads": (lambda t: tf.train.batch(t, 7, num_threads=3,
                                                 allow_smaller_final_batch=True), False),
    "shuffle_batch_2_threads": (lambda t: tf.train.shuffle_batch(
        t, 16, capacity=64, min_after_dequeue=8, num_threads=2, seed=3,
        allow_smaller_final_batch=True), False),
}


def _drain(files, batcher):
    with tf.Graph().as_default():
        fetches = _per_record(files, batcher)
        rows = []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            try:
                while True:
                    ids, xs, names, keys = sess.run(fetches)
                    rows += [(int(i), tuple(x), n, k) for i, x, n, k in
                             zip(ids, xs.tolist(), names, keys)]
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
    return rows


@pytest.mark.parametrize("name", sorted(BATCHERS))
def test_fused_gives_the_unfused_records(files, monkeypatch, name):
    batcher, ordered = BATCHERS[name]
    fused = _drain(files, batcher)
    monkeypatch.setattr(queue_runner_impl, "fused_enqueue_callable", lambda s, op: None)
    plain = _drain(files, batcher)
    assert len(fused) == len(plain) == N
    if ordered:
        assert fused == plain
        assert [r[0] for r in fused] == list(range(N))
    assert sorted(fused) == sorted(plain)
    row = sorted(fused)[3]
    assert row[1] == (7.0, 8.0) and row[2] == b"r3" and b"d0.tfrecord:" in row[3]


def _enqueue_op(build):
    """The enqueue op of the components `build(tf, key, value, fq, reader)` returns (a
    list, or ("many", list) for enqueue_many)."""
    with tf.Graph().as_default():
        fq = tf.train.string_input_producer(["f"], shuffle=False)
        reader = tf.TFRecordReader()
        key, value = reader.read(fq)
        comps = build(tf, key, value, fq, reader)
        many = isinstance(comps, tuple)
        comps = comps[1] if many else comps
        q = tf.FIFOQueue(10, [t.dtype for t in comps])
        return q.enqueue_many(comps) if many else q.enqueue(comps)


def _parse(value, features=None):
    return tf.parse_single_example(value, features or {"id": FEATURES["id"]})["id"]


MATCH_CASES = [
    ("parse_single_example", True, lambda tf, k, v, fq, r: [_parse(v), k]),
    ("parse_with_defaults", True, lambda tf, k, v, fq, r: list(
        tf.parse_single_example(v, FEATURES).values())),
    ("key_and_value", True, lambda tf, k, v, fq, r: [v, k]),
    ("read_up_to_enqueue_many", False, lambda tf, k, v, fq, r: ("many", [
        tf.parse_example(r.read_up_to(fq, 4)[1], {"id": FEATURES["id"]})["id"]])),
    ("cast_between", False, lambda tf, k, v, fq, r: [tf.cast(_parse(v), tf.int32), k]),
    ("other_tensor", False, lambda tf, k, v, fq, r: [_parse(v), tf.constant("k")]),
    ("sequence_feature", False, lambda tf, k, v, fq, r: [tf.parse_single_example(v, {
        "s": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True)})["s"]]),
    ("varlen_feature", False, lambda tf, k, v, fq, r: [tf.parse_single_example(v, {
        "v": tf.VarLenFeature(tf.int64)})["v"].values]),
]


@pytest.mark.parametrize("name,fusable,build", MATCH_CASES, ids=[c[0] for c in MATCH_CASES])
def test_match(name, fusable, build):
    op = _enqueue_op(build)
    assert (fused_enqueue.match(op) is not None) == fusable


def test_malformed_record_after_the_good_ones(tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(10):
            w.write(b"\x0a\x03bad" if i == 6 else _example(i))
    errors_seen = {}
    for fused in (True, False):
        with tf.Graph().as_default():
            fq = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
            ids = _parse(tf.TFRecordReader().read(fq)[1])
            q = tf.FIFOQueue(100, [tf.int64], shapes=[[]])
            runner = tf.train.QueueRunner(q, [q.enqueue([ids])])
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                coord = tf.train.Coordinator()
                make = queue_runner_impl.fused_enqueue_callable
                if not fused:
                    queue_runner_impl.fused_enqueue_callable = lambda s, op: None
                try:
                    tf.train.add_queue_runner(runner)
                    threads = tf.train.start_queue_runners(sess, coord)
                    with pytest.raises(tf.errors.InvalidArgumentError) as err:
                        coord.join(threads)
                finally:
                    queue_runner_impl.fused_enqueue_callable = make
                assert sess.run(q.size()) == 6
                assert sess.run(q.dequeue_many(6)).tolist() == list(range(6))
                errors_seen[fused] = err.value.message
    assert errors_seen[True] == errors_seen[False]


def test_stop_cancels_a_blocked_fused_enqueue(files):
    with tf.Graph().as_default():
        fq = tf.train.string_input_producer(files, shuffle=False)
        ids = _parse(tf.TFRecordReader().read(fq)[1])
        q = tf.FIFOQueue(5, [tf.int64], shapes=[[]])
        runner = tf.train.QueueRunner(q, [q.enqueue([ids])])
        assert fused_enqueue.match(runner.enqueue_ops[0]) is not None
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            tf.train.add_queue_runner(runner)
            threads = tf.train.start_queue_runners(sess, coord)
            got = sess.run(q.dequeue_many(5)).tolist()
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            assert not any(t.is_alive() for t in threads)
    assert got == [0, 1, 2, 3, 4]
    assert threading.active_count() >= 1
    assert np.all(np.diff(got) == 1)
