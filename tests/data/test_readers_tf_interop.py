"""Reader pipelines built by trainflow run under TensorFlow 2.21 (graph imported) and
yield the same elements as here: the ops, attrs and functions are TF's."""
import gzip
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements
from tests.helpers.tf_interop import needs_tf, run_json

_RUN = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
gd = tf.GraphDef()
gd.ParseFromString(bytes.fromhex(spec["graph_def"]))
out = []
with tf.Graph().as_default():
    tf.import_graph_def(gd, name="")
    with tf.Session() as sess:
        sess.run(spec["init"])
        while True:
            try:
                values = sess.run(spec["fetches"])
            except tf.errors.OutOfRangeError:
                break
            out.append([v.tolist() if hasattr(v, "tolist") else v for v in values])
def plain(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v
print(json.dumps(plain(out)))
"""


def _plain(value):
    value = value.tolist() if hasattr(value, "tolist") else value
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _files(tmp_path):
    paths = {}
    rec = str(tmp_path / "r.tfrecord")
    with tf.io.TFRecordWriter(rec, "GZIP") as w:
        for i in range(5):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2, -i])),
            })).SerializeToString())
    paths["tfrecord"] = rec
    (tmp_path / "t.txt.gz").write_bytes(gzip.compress(b"a\r\nbb\nccc"))
    paths["text"] = str(tmp_path / "t.txt.gz")
    (tmp_path / "f.bin").write_bytes(b"HHabcdefghiF")
    paths["fixed"] = str(tmp_path / "f.bin")
    (tmp_path / "c.csv").write_text('h1,h2,h3\n1,"x,y",2.5\n,z,\n')
    paths["csv"] = str(tmp_path / "c.csv")
    return paths


FEATURES = {"i": tf.FixedLenFeature([], tf.int64), "x": tf.FixedLenFeature([2], tf.float32)}

PIPELINES = {
    "tfrecord_parse_single": lambda p: tf.data.TFRecordDataset(p["tfrecord"], "GZIP").map(
        lambda s: tf.parse_single_example(s, FEATURES)).batch(2),
    "tfrecord_parse_batched": lambda p: tf.data.TFRecordDataset([p["tfrecord"]], "GZIP")
    .batch(3).map(lambda s: tf.parse_example(s, FEATURES)),
    "parse_example_dataset": lambda p: tf.data.TFRecordDataset(p["tfrecord"], "GZIP").batch(2)
    .apply(tf.data.experimental.parse_example_dataset(FEATURES)),
    "text_line": lambda p: tf.data.TextLineDataset(p["text"], compression_type="GZIP"),
    "fixed_length": lambda p: tf.data.FixedLengthRecordDataset(p["fixed"], 3, 2, 1),
    "csv": lambda p: tf.data.experimental.CsvDataset(
        p["csv"], [[0], [""], [1.5]], header=True),
    "csv_select": lambda p: tf.data.experimental.CsvDataset(
        p["csv"], [[0.0], [""]], header=True, select_cols=[0, 2]),
    "list_files": lambda p: tf.data.Dataset.list_files(
        os.path.join(os.path.dirname(p["csv"]), "*.bin"), shuffle=False),
}


@needs_tf
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_runs_in_tensorflow(tmp_path, name):
    paths = _files(tmp_path)
    with tf.Graph().as_default() as g:
        dataset = PIPELINES[name](paths)
        iterator = tf.data.make_initializable_iterator(dataset)
        nest = iterator.get_next()
        flat = tf.nest.flatten(nest)
        ours = [[_plain(v) for v in tf.nest.flatten(e)] for e in elements(dataset)]
        graph_def = g.as_graph_def()
    theirs = run_json(_RUN, spec={"graph_def": graph_def.SerializeToString().hex(),
                                  "init": iterator.initializer.name,
                                  "fetches": [t.name for t in flat]})
    assert len(theirs) == len(ours) > 0
    for a, b in zip(ours, theirs):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x == y or np.allclose(np.asarray(x, float), np.asarray(y, float)), (x, y)


_BUILD = r"""
import json, os, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
p = spec["paths"]
features = {"i": tf.FixedLenFeature([], tf.int64), "x": tf.FixedLenFeature([2], tf.float32)}
make = {
    "tfrecord": lambda: tf.data.TFRecordDataset(p["tfrecord"], "GZIP").batch(3).map(
        lambda s: tf.parse_example(s, features)),
    "parse_example_dataset": lambda: tf.data.TFRecordDataset(p["tfrecord"], "GZIP").batch(2)
        .apply(tf.data.experimental.parse_example_dataset(features)),
    "text_line": lambda: tf.data.TextLineDataset(p["text"], compression_type="GZIP"),
    "fixed_length": lambda: tf.data.FixedLengthRecordDataset(p["fixed"], 3, 2, 1),
    "csv": lambda: tf.data.experimental.CsvDataset(p["csv"], [[0], [""], [1.5]], header=True),
}[spec["name"]]
with tf.Graph().as_default() as g:
    it = tf.data.make_initializable_iterator(make())
    flat = tf.nest.flatten(it.get_next())
    print(json.dumps({"graph_def": g.as_graph_def().SerializeToString().hex(),
                      "init": it.initializer.name, "fetches": [t.name for t in flat]}))
"""


@needs_tf
@pytest.mark.parametrize("name", ["tfrecord", "parse_example_dataset", "text_line",
                                  "fixed_length", "csv"])
def test_tensorflow_pipeline_runs_here(tmp_path, name):
    paths = _files(tmp_path)
    built = run_json(_BUILD, spec={"paths": paths, "name": name})
    graph_def = tf.GraphDef()
    graph_def.ParseFromString(bytes.fromhex(built["graph_def"]))
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            sess.run(built["init"])
            got = []
            while True:
                try:
                    got.append([_plain(v) for v in sess.run(built["fetches"])])
                except tf.errors.OutOfRangeError:
                    break
    ours = {"tfrecord": PIPELINES["tfrecord_parse_batched"],
            "parse_example_dataset": PIPELINES["parse_example_dataset"],
            "text_line": PIPELINES["text_line"], "fixed_length": PIPELINES["fixed_length"],
            "csv": PIPELINES["csv"]}[name]
    with tf.Graph().as_default():
        want = [[_plain(v) for v in tf.nest.flatten(e)] for e in elements(ours(paths))]
    assert len(got) == len(want) > 0
    for a, b in zip(got, want):
        for x, y in zip(a, b):
            assert x == y or np.allclose(np.asarray(x, float), np.asarray(y, float)), (x, y)
