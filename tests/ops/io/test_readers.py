"""Readers: records and keys of each reader kind, read_up_to per work unit, counters,
state, reset, bad files."""
import gzip
import os

import pytest

import trainflow.compat.v1 as tf

# Every blocking run in these tests ends within the deadline.
_CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def _queue_of(sess, files):
    q = tf.FIFOQueue(32, tf.string, shapes=[[]])
    sess.run(q.enqueue_many([files]))
    sess.run(q.close())
    return q


def _tfrecords(tmp_path, name, records, options=None):
    path = str(tmp_path / name)
    with tf.io.TFRecordWriter(path, options) as w:
        for r in records:
            w.write(r)
    return path


def _drain(sess, keys, values):
    out = []
    try:
        while True:
            k, v = sess.run([keys, values])
            out.extend(zip(k.tolist(), v.tolist()) if hasattr(k, "tolist") and k.ndim
                       else [(k, v)])
    except tf.errors.OutOfRangeError:
        return out


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_tfrecord_reader_keys_and_counters(tmp_path, compression):
    a = _tfrecords(tmp_path, "a", [b"a0", b"a1", b"a2"], compression)
    b = _tfrecords(tmp_path, "b", [b"b0"], compression)
    with tf.Graph().as_default(), tf.Session(config=_CONFIG) as sess:
        r = tf.TFRecordReader(options=tf.io.TFRecordOptions(compression) if compression
                              else None)
        assert r.reader_ref.op.type == "TFRecordReaderV2"
        assert r.reader_ref.op.get_attr("compression_type") in (compression,
                                                                compression.encode())
        q = _queue_of(sess, [a, b])
        k, v = r.read(q)
        assert k.op.type == "ReaderReadV2"
        got = _drain(sess, k, v)
        assert got == [(f"{a}:0".encode(), b"a0"), (f"{a}:18".encode(), b"a1"),
                       (f"{a}:36".encode(), b"a2"), (f"{b}:0".encode(), b"b0")]
        assert sess.run([r.num_records_produced(), r.num_work_units_completed()]) == [4, 2]
        with pytest.raises(tf.errors.UnimplementedError):
            sess.run(r.serialize_state())


def test_read_up_to_stops_at_the_end_of_each_file(tmp_path):
    a = _tfrecords(tmp_path, "a", [b"%d" % i for i in range(5)])
    b = _tfrecords(tmp_path, "b", [b"x", b"y"])
    with tf.Graph().as_default(), tf.Session(config=_CONFIG) as sess:
        r = tf.TFRecordReader()
        q = _queue_of(sess, [a, b])
        keys, values = r.read_up_to(q, 3)
        sizes = []
        try:
            while True:
                sizes.append(len(sess.run(values)))
        except tf.errors.OutOfRangeError:
            pass
        assert sizes == [3, 2, 2]


def test_text_line_reader(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b"header\na,1\r\nb,2\n\nlast")
    with tf.Graph().as_default(), tf.Session(config=_CONFIG) as sess:
        r = tf.TextLineReader(skip_header_lines=1)
        q = _queue_of(sess, [str(p)])
        got = _drain(sess, *r.read_up_to(q, 10))
        assert got == [(f"{p}:2".encode(), b"a,1"), (f"{p}:3".encode(), b"b,2"),
                       (f"{p}:4".encode(), b""), (f"{p}:5".encode(), b"last")]


def test_fixed_length_reader_header_footer_hop_and_gzip(tmp_path):
    data = b"HH" + bytes(range(12)) + b"F"
    plain = tmp_path / "f.bin"
    plain.write_bytes(data)
    zipped = tmp_path / "f.bin.gz"
    zipped.write_bytes(gzip.compress(data))
    with tf.Graph().as_default(), tf.Session(config=_CONFIG) as sess:
        r = tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=1, hop_bytes=3)
        got = _drain(sess, *r.read(_queue_of(sess, [str(plain)])))
        assert [v for _, v in got] == [bytes([0, 1, 2, 3]), bytes([3, 4, 5, 6]),
                                       bytes([6, 7, 8, 9])]
        assert got[2][0] == f"{plain}:2".encode()
        r2 = tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=1, encoding="GZIP")
        got = _drain(sess, *r2.read(_queue_of(sess, [str(zipped)])))
        assert [v for _, v in got] == [bytes(range(0, 4)), bytes(range(4, 8)),
                                       bytes(range(8, 12))]


def test_whole_file_and_identity_reader_state(tmp_path):
    (tmp_path / "w").write_bytes(b"contents")
    with tf.Graph().as_default(), tf.Session(config=_CONFIG) as sess:
        w = tf.WholeFileReader()
        assert _drain(sess, *w.read(_queue_of(sess, [str(tmp_path / "w")]))) == [
            (str(tmp_path / "w").encode(), b"contents")]
        r = tf.IdentityReader()
        q = tf.FIFOQueue(5, tf.string, shapes=[[]])
        sess.run(q.enqueue_many([["w1", "w2"]]))
        k, v = r.read(q)
        assert sess.run([k, v]) == [b"w1", b"w1"]
        state = sess.run(r.serialize_state())
        assert sess.run([k, v]) == [b"w2", b"w2"]
        sess.run(r.restore_state(state))
        assert sess.run(r.num_records_produced()) == 1
        sess.run(r.reset())
        assert sess.run([r.num_records_produced(), r.num_work_units_completed()]) == [0, 0]
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(r.restore_state(b"\xff\xff"))


def test_corrupt_and_truncated_records_name_file_and_offset(tmp_path):
    path = _tfrecords(tmp_path, "bad", [b"first", b"second"])
    raw = bytearray(open(path, "rb").read())
    raw[12 + 5 + 4 + 12 + 1] ^= 0xFF  # a byte inside the second record's data
    open(path, "wb").write(bytes(raw))
    trunc = _tfrecords(tmp_path, "trunc", [b"first", b"second"])
    open(trunc, "r+b").truncate(os.path.getsize(trunc) - 3)
    with tf.Graph().as_default(), tf.Session(config=_CONFIG) as sess:
        for p in (path, trunc):
            r = tf.TFRecordReader()
            k, v = r.read(_queue_of(sess, [p]))
            assert sess.run(v) == b"first"
            with pytest.raises(tf.errors.DataLossError, match=r"record at \d+.* in .*" +
                               os.path.basename(p)):
                sess.run(v)


def test_missing_file_is_not_found(tmp_path):
    with tf.Graph().as_default(), tf.Session(config=_CONFIG) as sess:
        r = tf.TFRecordReader()
        with pytest.raises(tf.errors.NotFoundError, match="nope"):
            sess.run(r.read(_queue_of(sess, [str(tmp_path / "nope")])))
