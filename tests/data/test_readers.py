"""tf.data's file readers: TextLineDataset, FixedLengthRecordDataset, TFRecordDataset
(ported from TF r1.8's reader_dataset_ops_test: same files, same checks)."""
import gzip
import os
import zlib

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op
from tests.helpers.dataset_run import elements

NUM_FILES, NUM_RECORDS = 2, 7


def _line(f, n):
    return b"%d: %d" % (f, n)


def _compress(contents, compression):
    if compression == "GZIP":
        return gzip.compress(contents)
    if compression == "ZLIB":
        return zlib.compress(contents)
    return contents


def _text_files(tmp_path, num_files=2, num_lines=5, crlf=False, compression=None):
    names = []
    for i in range(num_files):
        parts = []
        for j in range(num_lines):
            parts.append(_line(i, j))
            if j + 1 != num_lines or i == 0:  # file 1 ends without a newline
                parts.append(b"\r\n" if crlf else b"\n")
        path = tmp_path / f"text_line.{i}.txt"
        path.write_bytes(_compress(b"".join(parts), compression))
        names.append(str(path))
    return names


def _read_all(sess, get_next):
    out = []
    while True:
        try:
            out.append(sess.run(get_next))
        except tf.errors.OutOfRangeError:
            return out


def _check_reinitializable(make, files, record, num_records, compression=None):
    """TF's reader pattern: one iterator re-initialized over file 0, file 1, both, both
    ten times, and batches of one file's records."""
    with tf.Graph().as_default():
        filenames = tf.placeholder(tf.string, shape=[None])
        num_epochs = tf.placeholder(tf.int64, shape=[])
        batch_size = tf.placeholder(tf.int64, shape=[])
        repeat = make(filenames, compression).repeat(num_epochs)
        batch = repeat.batch(batch_size)
        iterator = tf.data.Iterator.from_structure(batch.output_types)
        init, init_batch = iterator.make_initializer(repeat), iterator.make_initializer(batch)
        get_next = iterator.get_next()
        with tf.Session() as sess:
            for chosen in ([0], [1], [0, 1]):
                sess.run(init, {filenames: [files[f] for f in chosen], num_epochs: 1})
                assert _read_all(sess, get_next) == \
                    [record(f, r) for f in chosen for r in range(num_records)]
            sess.run(init, {filenames: files, num_epochs: 10})
            assert _read_all(sess, get_next) == \
                [record(f, r) for f in (0, 1) for r in range(num_records)] * 10
            sess.run(init_batch, {filenames: files, num_epochs: 10, batch_size: num_records})
            got = _read_all(sess, get_next)
            assert len(got) == 20
            for k, batch_value in enumerate(got):
                assert list(batch_value) == [record(k % 2, r) for r in range(num_records)]


# -- TextLineDataset -----------------------------------------------------------------------------
@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_text_line_dataset(tmp_path, compression):
    files = _text_files(tmp_path, crlf=True, compression=compression)
    _check_reinitializable(
        lambda names, c: tf.data.TextLineDataset(names, compression_type=c), files, _line, 5,
        compression)


def test_text_line_dataset_buffering(tmp_path):
    files = _text_files(tmp_path, crlf=True)
    got = elements(tf.data.TextLineDataset(files, buffer_size=10), one_shot=True)
    assert got == [_line(f, n) for f in range(2) for n in range(5)]


def test_text_line_iterator_closes_its_file(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("0\n1\n2\n")
    with tf.Graph().as_default():
        get_next = tf.data.make_one_shot_iterator(
            tf.data.TextLineDataset(str(path))).get_next()
        with tf.Session() as sess:
            assert sess.run(get_next) == b"0"
            assert str(path) in _open_files()
    assert str(path) not in _open_files()


def _open_files():
    fd_dir = "/proc/self/fd"
    out = set()
    for fd in os.listdir(fd_dir):
        try:
            out.add(os.readlink(os.path.join(fd_dir, fd)))
        except OSError:
            pass
    return out


# -- FixedLengthRecordDataset ------------------------------------------------------------------
HEADER, RECORD, FOOTER = 5, 3, 2


def _fixed_record(f, r):
    return str(f * 2 + r).encode() * RECORD


def _fixed_files(tmp_path, compression=None):
    names = []
    for i in range(NUM_FILES):
        body = b"H" * HEADER + b"".join(_fixed_record(i, j) for j in range(NUM_RECORDS)) + \
            b"F" * FOOTER
        path = tmp_path / f"fixed_length_record.{i}.txt"
        path.write_bytes(_compress(body, compression))
        names.append(str(path))
    return names


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_fixed_length_record_dataset(tmp_path, compression):
    files = _fixed_files(tmp_path, compression)
    _check_reinitializable(
        lambda names, c: tf.data.FixedLengthRecordDataset(
            names, RECORD, HEADER, FOOTER, compression_type=c),
        files, _fixed_record, NUM_RECORDS, compression)


def test_fixed_length_record_dataset_buffering(tmp_path):
    files = _fixed_files(tmp_path)
    got = elements(tf.data.FixedLengthRecordDataset(files, RECORD, HEADER, FOOTER,
                                                    buffer_size=10), one_shot=True)
    assert got == [_fixed_record(f, r) for f in range(NUM_FILES) for r in range(NUM_RECORDS)]


def test_fixed_length_record_dataset_wrong_size(tmp_path):
    files = _fixed_files(tmp_path)
    dataset = tf.data.FixedLengthRecordDataset(files, RECORD + 1, HEADER, FOOTER,
                                               buffer_size=10)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Excluding the header \(5 bytes\) and footer \(2 bytes\), input "
                             r"file \".*fixed_length_record.0.txt\" has body length 21 bytes, "
                             r"which is not an exact multiple of the record length "
                             r"\(4 bytes\)."):
        elements(dataset, one_shot=True)


def test_fixed_length_record_dataset_defaults(tmp_path):
    path = tmp_path / "plain.bin"
    path.write_bytes(b"abcdefgh")
    assert elements(tf.data.FixedLengthRecordDataset(str(path), 4)) == [b"abcd", b"efgh"]


# -- TFRecordDataset ------------------------------------------------------------------------
def _tf_record(f, r):
    return b"Record %d of file %d" % (r, f)


@pytest.fixture
def tfrecord_files(tmp_path):
    names = []
    for i in range(NUM_FILES):
        path = str(tmp_path / f"tf_record.{i}.txt")
        with tf.io.TFRecordWriter(path) as writer:
            for j in range(NUM_RECORDS):
                writer.write(_tf_record(i, j))
        names.append(path)
    return names


ALL_RECORDS = [_tf_record(f, r) for f in range(NUM_FILES) for r in range(NUM_RECORDS)]


def test_tfrecord_one_and_ten_epochs_and_batches(tfrecord_files):
    _check_reinitializable(
        lambda names, c: tf.data.TFRecordDataset(
            names, tf.placeholder_with_default("", shape=[])), tfrecord_files, _tf_record,
        NUM_RECORDS)


@pytest.mark.parametrize("compression", ["ZLIB", "GZIP"])
def test_tfrecord_compressed_files(tfrecord_files, tmp_path, compression):
    packed = []
    for i, name in enumerate(tfrecord_files):
        path = tmp_path / f"tfrecord_{i}.{compression}"
        path.write_bytes(_compress(open(name, "rb").read(), compression))
        packed.append(str(path))
    with tf.Graph().as_default():
        names = tf.placeholder(tf.string, shape=[None])
        kind = tf.placeholder_with_default("", shape=[])
        dataset = tf.data.TFRecordDataset(names, kind)
        assert elements(dataset, {names: packed, kind: compression}) == ALL_RECORDS


@pytest.mark.parametrize("source", ["list", "scalar", "tensor", "dataset", "buffer"])
def test_tfrecord_filenames_forms(tfrecord_files, source):
    if source == "scalar":
        got = elements(tf.data.TFRecordDataset(tfrecord_files[1]), one_shot=True)
        assert got == ALL_RECORDS[NUM_RECORDS:]
        return
    make = {"list": lambda: tf.data.TFRecordDataset(tfrecord_files),
            "tensor": lambda: tf.data.TFRecordDataset(tf.constant(tfrecord_files)),
            "dataset": lambda: tf.data.TFRecordDataset(
                tf.data.Dataset.from_tensor_slices(tfrecord_files)),
            "buffer": lambda: tf.data.TFRecordDataset(tfrecord_files, buffer_size=2 ** 20)}
    with tf.Graph().as_default():
        assert elements(make[source](), one_shot=True) == ALL_RECORDS


def test_tfrecord_ten_epochs_from_dataset_of_files_in_parallel(tfrecord_files):
    with tf.Graph().as_default():
        files = tf.data.Dataset.from_tensor_slices(tfrecord_files).repeat(10)
        got = elements(tf.data.TFRecordDataset(files, num_parallel_reads=4), one_shot=True)
    assert sorted(got) == sorted(ALL_RECORDS * 10)


def test_tfrecord_graph_is_tfs(tfrecord_files):
    with tf.Graph().as_default() as g:
        tf.data.TFRecordDataset(tfrecord_files, "GZIP")
        types = [op.type for op in g.get_operations() if op.type.endswith("Dataset")]
        assert types == ["TensorSliceDataset", "FlatMapDataset"]
        fn = g.get_operation_by_name("FlatMapDataset")._get_attr_value("f")
        assert "TFRecordDataset" in [op.type for op in fn.get_operations()]


@pytest.mark.parametrize("bad,error", [
    (lambda: tf.data.Dataset.range(3), "must contain `tf.string` elements"),
    (lambda: tf.data.Dataset.from_tensors(["a", "b"]), "of shape \\[\\]"),
    (lambda: [1, 2], "must contain `tf.string` elements"),
])
def test_tfrecord_bad_filenames(bad, error):
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=error):
            tf.data.TFRecordDataset(bad())


@pytest.mark.parametrize("damage,error", [
    (lambda data: data[:8] + b"\xff" + data[9:], "corrupted record at 0"),
    (lambda data: data[:-3], "truncated record at"),
])
def test_tfrecord_damaged_file_names_it(tfrecord_files, damage, error):
    path = tfrecord_files[0]
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(damage(data))
    with pytest.raises(tf.errors.DataLossError, match=error) as info:
        elements(tf.data.TFRecordDataset(path), one_shot=True)
    assert path in str(info.value)


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        elements(tf.data.TFRecordDataset(str(tmp_path / "nothing")), one_shot=True)


def test_fixed_length_record_init_then_restore(tmp_path):
    # FixedLengthRecordReaderTest.testInitThenRestore: saved at epoch 5, file 1, record 3
    # of 10 epochs; restored into an initialized iterator of a new graph and session.
    # (Its save/restore methods that restore into an iterator never initialized fail
    # under TF 2.21 as written, as range's do: see test_range_checkpoint.py.)
    names, path = _fixed_files(tmp_path), str(tmp_path / "iterator")

    def build():
        it = tf.data.FixedLengthRecordDataset(names, RECORD, HEADER, FOOTER).repeat(10) \
            .make_initializable_iterator()
        state = apply_op("SerializeIterator", resource_handle=it._iterator_resource).outputs[0]
        save = tf.write_file(path, tf.io.serialize_tensor(state))
        restore = apply_op("DeserializeIterator", resource_handle=it._iterator_resource,
                           serialized=tf.io.parse_tensor(tf.read_file(path), tf.variant))
        return it.initializer, it.get_next(), save, restore

    order = [_fixed_record(f, r) for _ in range(10) for f in range(NUM_FILES)
             for r in range(NUM_RECORDS)]
    at = 5 * NUM_FILES * NUM_RECORDS + (NUM_FILES // 2) * NUM_RECORDS + NUM_RECORDS // 2
    with tf.Graph().as_default():
        init, get_next, save, restore = build()
        with tf.Session() as sess:
            sess.run(init)
            with pytest.raises(tf.errors.NotFoundError):
                sess.run(restore)
            assert [sess.run(get_next) for _ in range(at)] == order[:at]
            sess.run(save)
    with tf.Graph().as_default():
        init, get_next, _, restore = build()
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert [sess.run(get_next) for _ in range(len(order) - at)] == order[at:]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
