"""make_csv_dataset and make_batched_features_dataset / parse_example_dataset (ported from
TF contrib r1.8's reader_dataset_ops_test: MakeCsvDatasetTest, ReadBatchFeaturesTest)."""
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements

# -- make_csv_dataset ------------------------------------------------------------------------
TYPES = [tf.int32, tf.int64, tf.float32, tf.float64, tf.string]
COLUMNS = [f"col{i}" for i in range(len(TYPES))]
DEFAULT_VALS = [[], [], [], [], ["NULL"]]
NUM_FILES, NUM_RECORDS = 2, 11


def _defaults():
    return [tf.constant([], dtype=t) for t in TYPES[:-1]] + [tf.constant(["NULL"])]


def _csv_values(f, r):
    return [f, r, f * r * 0.5, f * r + 0.5, f"record {r}" if r % 2 == 1 else ""]


def _write(tmp_path, name, rows):
    lines = [",".join("" if v is None else str(v) for v in row) if isinstance(row, list)
             else row for row in rows]
    path = tmp_path / name
    path.write_text("\n".join(lines))
    return str(path)


def _csv_file(tmp_path, f, header=True):
    rows = ([COLUMNS] if header else []) + [_csv_values(f, r) for r in range(NUM_RECORDS)]
    return _write(tmp_path, f"csv_file{f}.csv", rows)


@pytest.fixture
def csv_files(tmp_path):
    return [_csv_file(tmp_path, f) for f in range(NUM_FILES)]


def _make(filenames, defaults, column_names=COLUMNS, label_name="col0", select_cols=None,
          batch_size=1, num_epochs=1, shuffle=False, shuffle_seed=None, header=True,
          na_value=""):
    return tf.data.experimental.make_csv_dataset(
        filenames, batch_size=batch_size, column_names=column_names, column_defaults=defaults,
        label_name=label_name, num_epochs=num_epochs, shuffle=shuffle,
        shuffle_seed=shuffle_seed, header=header, na_value=na_value,
        select_columns=select_cols)


def _expected_batches(files, batch_size, num_epochs, defaults=DEFAULT_VALS):
    batch = {c: [] for c in COLUMNS}
    for _ in range(num_epochs):
        for f in files:
            for r in range(NUM_RECORDS):
                values = [defaults[n][0] if v == "" else v
                          for n, v in enumerate(_csv_values(f, r))]
                values[-1] = values[-1].encode()
                for c, v in zip(COLUMNS, values):
                    batch[c].append(v)
                if len(batch["col0"]) == batch_size:
                    yield batch
                    batch = {c: [] for c in COLUMNS}


def _verify(dataset, files, batch_size=1, num_epochs=1, label_name="col0",
            defaults=DEFAULT_VALS):
    got = elements(dataset, one_shot=True)
    want = list(_expected_batches(files, batch_size, num_epochs, defaults))
    assert len(got) == len(want)
    for actual, expected in zip(got, want):
        if label_name is not None:
            np.testing.assert_array_equal(actual[1], expected.pop(label_name))
            actual = actual[0]
        for key, values in expected.items():
            np.testing.assert_allclose(actual[key], values) if key != "col4" else \
                np.testing.assert_array_equal(actual[key], values)


@pytest.mark.parametrize("which,batch,epochs", [([0], 1, 1), ([1], 1, 1), ([0, 1], 1, 1),
                                                 ([0, 1], 2, 10)])
def test_make_csv_dataset(csv_files, which, batch, epochs):
    with tf.Graph().as_default():
        names = [csv_files[i] for i in which]
        _verify(_make(names if len(names) > 1 else names[0], _defaults(), batch_size=batch,
                      num_epochs=epochs), which, batch, epochs)


def test_make_csv_dataset_bad_columns(csv_files):
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            _make(csv_files, _defaults(), column_names=COLUMNS[:-1] + COLUMNS[:1])
        with pytest.raises(ValueError):
            _make(csv_files, _defaults(), label_name="not_a_real_label")


def test_make_csv_dataset_no_label(csv_files):
    with tf.Graph().as_default():
        _verify(_make(csv_files, _defaults(), batch_size=2, num_epochs=10, label_name=None),
                [0, 1], 2, 10, label_name=None)


def test_make_csv_dataset_no_header(tmp_path, csv_files):
    name = _csv_file(tmp_path, NUM_FILES, header=False)
    with tf.Graph().as_default():
        _verify(_make(name, _defaults(), batch_size=2, num_epochs=10, header=False),
                [NUM_FILES], 2, 10)


def test_make_csv_dataset_types_as_defaults(csv_files):
    with tf.Graph().as_default():
        _verify(_make(csv_files, TYPES[:-1] + [tf.constant(["NULL"])]), [0, 1])


def test_make_csv_dataset_no_column_names(csv_files):
    with tf.Graph().as_default():
        _verify(_make(csv_files, _defaults(), column_names=None, batch_size=2, num_epochs=10),
                [0, 1], 2, 10)


def test_make_csv_dataset_type_inference_mismatch(csv_files):
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            _make(csv_files, None, column_names=COLUMNS + ["extra_name"], batch_size=2,
                  num_epochs=10)


def test_make_csv_dataset_type_inference(csv_files):
    with tf.Graph().as_default():
        _verify(_make(csv_files, None, batch_size=2, num_epochs=10), [0, 1], 2, 10,
                defaults=[[], [], [], [], [""]])


@pytest.mark.parametrize("rows,types,expected", [
    ([[None, None, None, "NAN", "", "a"], [1, 2 ** 31 + 1, 2 ** 64, 123, "NAN", ""],
      ['"123"', 2, 2 ** 64, 123.4, "NAN", '"cd,efg"']],
     [tf.int32, tf.int64, tf.float32, tf.float32, tf.string, tf.string],
     [[0, 0, 0, 0, b"", b"a"], [1, 2 ** 31 + 1, 2 ** 64, 123, b"", b""],
      [123, 2, 2 ** 64, 123.4, b"", b"cd,efg"]]),
    ([[1, 2 ** 31 + 1, 1.0, 4e40, "abc", ""]],
     [tf.int32, tf.int64, tf.float32, tf.float64, tf.string, tf.string],
     [[1, 2 ** 31 + 1, 1.0, 4e40, b"abc", b""]]),
], ids=["tricky", "all_types"])
def test_make_csv_dataset_type_inference_cases(tmp_path, rows, types, expected):
    names = [f"col{i}" for i in range(len(types))]
    fn = _write(tmp_path, "file.csv", [names] + rows)
    with tf.Graph().as_default():
        ds = _make(fn, None, column_names=None, label_name=None, na_value="NAN")
        assert [ds.output_types[n] for n in names] == types
        got = elements(ds, one_shot=True)
    assert len(got) == len(expected)
    for batch, want in zip(got, expected):
        for n, w in zip(names, want):
            value = batch[n][0]
            assert value == w or np.isclose(np.float64(value), np.float64(w), rtol=1e-6)


def _select_file(tmp_path):
    names = [f"col{i}" for i in range(5)]
    return names, _write(tmp_path, "file.csv", [names, [0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])


def test_make_csv_dataset_select_cols_errors(tmp_path):
    names, fn = _select_file(tmp_path)
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            _make(fn, [[0]] * 5, column_names=names, label_name=None, select_cols=[1, 3])
        with pytest.raises(ValueError):
            _make(fn, [[0]], column_names=names, label_name=None,
                  select_cols=["invalid_col_name"])


@pytest.mark.parametrize("defaults,names_given,select", [
    ([[0], [0]], True, [1, 3]), (None, True, [1, 3]), (None, False, [1, 3]),
    (None, False, ["col1", "col3"])])
def test_make_csv_dataset_select_cols(tmp_path, defaults, names_given, select):
    names, fn = _select_file(tmp_path)
    with tf.Graph().as_default():
        ds = _make(fn, defaults, column_names=names if names_given else None, label_name=None,
                   select_cols=select)
        got = elements(ds, one_shot=True)
    assert [{k: int(v[0]) for k, v in b.items()} for b in got] == \
        [{"col1": 1, "col3": 3}, {"col1": 6, "col3": 8}]


def test_make_csv_dataset_same_seed_same_order(csv_files):
    for batch_size in (1, 2):
        runs = []
        for _ in range(2):
            with tf.Graph().as_default():
                runs.append(elements(_make(csv_files, _defaults(), batch_size=batch_size,
                                           shuffle=True, shuffle_seed=5), one_shot=True))
        for (f1, l1), (f2, l2) in zip(*runs):
            np.testing.assert_array_equal(l1, l2)
            for key in f1:
                np.testing.assert_array_equal(f1[key], f2[key])


# -- make_batched_features_dataset ----------------------------------------------------------
FEATURES = {"file": tf.FixedLenFeature([], tf.int64),
            "record": tf.FixedLenFeature([], tf.int64)}
TF_FILES, TF_RECORDS = 2, 7


@pytest.fixture
def example_files(tmp_path):
    names = []
    for f in range(TF_FILES):
        path = str(tmp_path / f"tf_record.{f}.txt")
        with tf.io.TFRecordWriter(path) as w:
            for r in range(TF_RECORDS):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "file": tf.train.Feature(int64_list=tf.train.Int64List(value=[f])),
                    "record": tf.train.Feature(int64_list=tf.train.Int64List(value=[r])),
                })).SerializeToString())
        names.append(path)
    return names


def _expected_records(files, num_epochs, batch_size, drop_final=False):
    records = [(f, r) for _ in range(num_epochs) for f in files for r in range(TF_RECORDS)]
    out = [records[i:i + batch_size] for i in range(0, len(records), batch_size)]
    if drop_final and out and len(out[-1]) < batch_size:
        out.pop()
    return out


@pytest.mark.parametrize("batch_size", [1, 2])
@pytest.mark.parametrize("num_epochs", [1, 10])
@pytest.mark.parametrize("which", [[0], [1], [0, 1]])
def test_make_batched_features_dataset_read(example_files, batch_size, num_epochs, which):
    pattern = [example_files[i] for i in which]
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_batched_features_dataset(
            pattern if len(pattern) > 1 else pattern[0], batch_size, FEATURES,
            num_epochs=num_epochs, shuffle=False)
        got = elements(ds, one_shot=True)
    want = _expected_records(which, num_epochs, batch_size)
    assert [list(zip(b["file"], b["record"])) for b in got] == want


def test_read_with_equivalent_dataset(example_files):
    with tf.Graph().as_default():
        ds = tf.data.TFRecordDataset(example_files).map(
            lambda x: tf.parse_single_example(x, FEATURES)).repeat(10).batch(2)
        got = elements(ds)
    assert [list(zip(b["file"], b["record"])) for b in got] == \
        _expected_records([0, 1], 10, 2)


@pytest.mark.parametrize("batch_size", [1, 2])
@pytest.mark.parametrize("num_epochs", [1, 10])
def test_drop_final_batch(example_files, batch_size, num_epochs):
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_batched_features_dataset(
            example_files[0], batch_size, FEATURES, num_epochs=num_epochs, shuffle=False,
            drop_final_batch=True)
        for tensor in ds.output_shapes.values():
            assert tensor[0] == batch_size
        got = elements(ds, one_shot=True)
    assert [list(zip(b["file"], b["record"])) for b in got] == \
        _expected_records([0], num_epochs, batch_size, drop_final=True)


def test_label_key_and_defaults(example_files):
    features = dict(FEATURES, extra=tf.FixedLenFeature([2], tf.float32, default_value=[1, 2]),
                    name=tf.FixedLenFeature([], tf.string, default_value="z"))
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_batched_features_dataset(
            example_files[0], 3, features, label_key="record", num_epochs=1, shuffle=False)
        got = elements(ds, one_shot=True)
        with pytest.raises(ValueError, match="must be one of the `features` keys"):
            tf.data.experimental.make_batched_features_dataset(
                example_files[0], 3, features, label_key="nope")
    assert [list(label) for _, label in got] == [[0, 1, 2], [3, 4, 5], [6]]
    assert got[0][0]["extra"].tolist() == [[1.0, 2.0]] * 3
    assert got[0][0]["name"].tolist() == [b"z"] * 3


def test_parse_example_dataset_graph_and_checks(example_files):
    with tf.Graph().as_default() as g:
        ds = tf.data.TFRecordDataset(example_files).batch(5).apply(
            tf.data.experimental.parse_example_dataset(FEATURES))
        op = g.get_operations()[-1]
        assert op.type == "ParseExampleDatasetV2"
        assert ds.output_shapes["file"].as_list() == [None]
        got = elements(ds)
        with pytest.raises(TypeError, match="vectors of strings"):
            tf.data.TFRecordDataset(example_files).apply(
                tf.data.experimental.parse_example_dataset(FEATURES))
        with pytest.raises(ValueError):
            tf.data.experimental.parse_example_dataset(None)
    assert [b["record"].tolist() for b in got] == [[0, 1, 2, 3, 4], [5, 6, 0, 1, 2],
                                                   [3, 4, 5, 6]]


def test_no_files_match(tmp_path):
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_batched_features_dataset(
            os.path.join(str(tmp_path), "none*"), 2, FEATURES, num_epochs=1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
            elements(ds)


SPARSE_CASES = [
    # (features, batch, key, want [indices, values, dense_shape] of the first batch)
    ({"v": tf.VarLenFeature(tf.int64)}, 3, "v",
     [[[1, 0], [2, 0], [2, 1]], [0, 0, 1], [3, 2]]),
    ({"sp": tf.SparseFeature("v", "w", tf.float32, 5)}, 3, "sp",
     [[[1, 0], [2, 0], [2, 1]], [1.0, 2.0, 2.5], [3, 5]]),
    ({"sp": tf.SparseFeature("v", "w", tf.float32, 5), "v": tf.VarLenFeature(tf.int64)}, 2,
     "sp", [[[1, 0]], [1.0], [2, 5]]),
]


@pytest.mark.parametrize("features,batch,key,want", SPARSE_CASES)
def test_parse_example_dataset_sparse_features(tmp_path, features, batch, key, want):
    path = str(tmp_path / "sparse.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for r in range(4):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "v": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(r)))),
                "w": tf.train.Feature(float_list=tf.train.FloatList(
                    value=[r + 0.5 * i for i in range(r)]))})).SerializeToString())
    with tf.Graph().as_default():
        ds = tf.data.TFRecordDataset(path).batch(batch).apply(
            tf.data.experimental.parse_example_dataset(features))
        assert ds.output_classes == {k: tf.SparseTensor for k in features}
        got = elements(ds)
        batched = tf.data.experimental.make_batched_features_dataset(
            path, batch, features, num_epochs=1, shuffle=False)
        assert sorted(batched.output_shapes) == sorted(features)
        again = elements(batched, one_shot=True)
    first = got[0][key]
    assert [first.indices.tolist(), first.values.tolist(), first.dense_shape.tolist()] == want
    assert sum(len(b[key].values) for b in got) == sum(len(b[key].values) for b in again)
    assert sorted(got[0]) == sorted(features)
