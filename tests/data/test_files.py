"""Dataset.list_files (ported from TF r1.8's list_files_dataset_op_test) and
tf.data.experimental.TFRecordWriter (from contrib r1.8's writer_ops_test)."""
import os

import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements


def _touch(tmp_path, names):
    for name in names:
        (tmp_path / name).touch()
    return [os.path.join(str(tmp_path), n).encode() for n in names]


def _pattern(tmp_path, pat="*"):
    return os.path.join(str(tmp_path), pat)


def test_empty_directory_one_shot_ends(tmp_path):
    # (a one-shot iterator's dataset function drops the assertion's control edge, as TF's)
    assert elements(tf.data.Dataset.list_files(_pattern(tmp_path)), one_shot=True) == []


def test_empty_directory_initializer(tmp_path):
    with tf.Graph().as_default():
        pattern = tf.placeholder(tf.string, shape=[])
        dataset = tf.data.Dataset.list_files(pattern)
        with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern: "):
            elements(dataset, {pattern: _pattern(tmp_path)})


# (files made, pattern(s) or None for "*", placeholder shape or None, shuffle, expected)
CASES = [
    ("simple", ["a", "b", "c"], None, None, None, [0, 1, 2]),
    ("not_shuffled", ["b", "c", "a"], None, None, False, "sorted"),
    ("initializer", ["a", "b", "c"], None, [], None, [0, 1, 2]),
    ("suffixes", ["a.txt", "b.py", "c.py", "d.pyc"], "*.py", [], None, [1, 2]),
    ("middles", ["a.txt", "b.py", "c.pyc"], "*.py*", [], None, [1, 2]),
    ("patterns_list", ["a.txt", "b.py", "c.py", "d.pyc"], ["*.py", "*.txt"], None, None,
     [0, 1, 2]),
    ("patterns_tensor", ["a.txt", "b.py", "c.py", "d.pyc"], ["*.py", "*.txt"], [2], None,
     [0, 1, 2]),
]


@pytest.mark.parametrize("name,files,pat,placeholder,shuffle,want", CASES,
                         ids=[c[0] for c in CASES])
def test_list_files(tmp_path, name, files, pat, placeholder, shuffle, want):
    full = _touch(tmp_path, files)
    pat = pat or "*"
    patterns = [_pattern(tmp_path, p) for p in pat] if isinstance(pat, list) \
        else _pattern(tmp_path, pat)
    with tf.Graph().as_default():
        feed = None
        if placeholder is not None:
            holder = tf.placeholder(tf.string, shape=placeholder)
            feed = {holder: patterns}
            patterns = holder
        kwargs = {} if shuffle is None else {"shuffle": shuffle}
        got = elements(tf.data.Dataset.list_files(patterns, **kwargs), feed)
    if want == "sorted":
        assert got == sorted(full)
    else:
        assert sorted(got) == sorted(full[i] for i in want)


def test_no_shuffle_repeats_in_one_order(tmp_path):
    full = _touch(tmp_path, ["a", "b", "c"])
    got = elements(tf.data.Dataset.list_files(_pattern(tmp_path), shuffle=False).repeat(2),
                   one_shot=True)
    assert sorted(got) == sorted(full * 2)
    assert got[:3] == got[3:]


def test_fixed_seed_results_in_repeatable_order(tmp_path):
    full = _touch(tmp_path, ["a", "b", "c", "d", "e", "f"])
    runs = []
    for _ in range(2):
        with tf.Graph().as_default():
            runs.append(elements(tf.data.Dataset.list_files(_pattern(tmp_path), shuffle=True,
                                                            seed=37)))
    assert sorted(runs[0]) == sorted(full)
    assert runs[0] == runs[1]


def test_list_files_graph(tmp_path):
    with tf.Graph().as_default() as g:
        tf.data.Dataset.list_files(_pattern(tmp_path), shuffle=False)
        types = [op.type for op in g.get_operations()]
        assert "MatchingFiles" in types and "Assert" in types
        assert g.get_operation_by_name("list_files/TensorSliceDataset").type == \
            "TensorSliceDataset"


# -- TFRecordWriter ----------------------------------------------------------------------
def _record(i):
    return b"Record %d" % i


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_tfrecord_writer(tmp_path, compression):
    source, target = str(tmp_path / "tf_record.in.txt"), str(tmp_path / "tf_record.out.txt")
    with tf.io.TFRecordWriter(source, compression or None) as w:
        for i in range(7):
            w.write(_record(i))
    with tf.Graph().as_default():
        filename = tf.placeholder(tf.string, shape=[])
        kind = tf.placeholder_with_default("", shape=[])
        dataset = tf.data.TFRecordDataset([filename], kind)
        write = tf.data.experimental.TFRecordWriter(target, kind).write(dataset)
        assert write.type == "DatasetToTFRecord"
        with tf.Session() as sess:
            sess.run(write, {filename: source, kind: compression})
    got = list(tf.io.tf_record_iterator(target, compression or None))
    assert got == [_record(i) for i in range(7)]


@pytest.mark.parametrize("bad", [
    lambda: "whoops",
    lambda: tf.data.Dataset.from_tensors(10),
    lambda: tf.data.Dataset.from_tensors([["hello"], ["world"]]),
])
def test_tfrecord_writer_rejects(tmp_path, bad):
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            tf.data.experimental.TFRecordWriter(str(tmp_path / "out")).write(bad())
