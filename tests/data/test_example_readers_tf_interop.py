"""parse_example_dataset / make_batched_features_dataset with sparse features
(VarLenFeature, SparseFeature) give TensorFlow 2.21's elements and static shapes, and the
graph built here runs under TensorFlow with the same results."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements
from tests.helpers.tf_interop import needs_tf, run_json

# Evaluated on both sides with `tf` (TF1 API), `path` (a TFRecord file) and `F` (features).
FEATURES = """{"v": tf.VarLenFeature(tf.int64), "s": tf.VarLenFeature(tf.string),
     "d": tf.FixedLenFeature([], tf.int64),
     "sp": tf.SparseFeature("idx", "val", tf.float32, 4),
     "sp2": tf.SparseFeature(["idx", "idx"], "val", tf.float32, [3, 5], already_sorted=True)}"""

PIPELINES = {
    "parse_example_dataset":
        "tf.data.TFRecordDataset(path).batch(3).apply("
        "tf.data.experimental.parse_example_dataset(F))",
    "parse_example_dataset_varlen_only":
        "tf.data.TFRecordDataset(path).batch(4).apply("
        "tf.data.experimental.parse_example_dataset({'v': F['v'], 's': F['s']}))",
    "make_batched_features_dataset":
        "tf.data.experimental.make_batched_features_dataset(path, 2, F, num_epochs=1, "
        "shuffle=False)",
    "make_batched_features_dataset_label":
        "tf.data.experimental.make_batched_features_dataset(path, 3, F, label_key='d', "
        "num_epochs=2, shuffle=False, drop_final_batch=True)",
}

_TF = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
path = spec["path"]
F = eval(spec["features"])
def plain(v):
    if isinstance(v, tf.SparseTensorValue):
        return [plain(v.indices), plain(v.values), plain(v.dense_shape)]
    v = v.tolist() if hasattr(v, "tolist") else v
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v
with tf.Graph().as_default():
    ds = eval(spec["pipeline"])
    shapes = [s.as_list() for s in tf.nest.flatten(tf.data.get_output_shapes(ds))]
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append([plain(v) for v in tf.nest.flatten(sess.run(nxt))])
            except tf.errors.OutOfRangeError:
                break
print(json.dumps({"shapes": shapes, "elements": out}))
"""


def _plain(v):
    if isinstance(v, tf.SparseTensorValue):
        return [_plain(v.indices), _plain(v.values), _plain(v.dense_shape)]
    v = v.tolist() if hasattr(v, "tolist") else v
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _write(tmp_path):
    path = str(tmp_path / "sparse.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(7):
            n = i % 3
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "v": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i)))),
                "idx": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=[(i + 2) % 3, i % 3][:n])),
                "val": tf.train.Feature(float_list=tf.train.FloatList(
                    value=[i, i + 0.5][:n])),
                "s": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[b"w%d" % i] * (i % 2))),
                "d": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}))
                .SerializeToString())
    return path


def _ours(path, pipeline):
    env = {"tf": tf, "path": path}
    env["F"] = eval(FEATURES, env)
    with tf.Graph().as_default():
        ds = eval(pipeline, env)
        shapes = [s.as_list() for s in tf.nest.flatten(tf.data.get_output_shapes(ds))]
        got = [[_plain(v) for v in tf.nest.flatten(e)] for e in elements(ds, one_shot=True)]
    return shapes, got


@needs_tf
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_sparse_features_match_tensorflow(tmp_path, name):
    path = _write(tmp_path)
    shapes, got = _ours(path, PIPELINES[name])
    theirs = run_json(_TF, spec={"path": path, "features": FEATURES,
                                 "pipeline": PIPELINES[name]})
    assert shapes == theirs["shapes"]
    assert len(got) == len(theirs["elements"]) > 0
    for a, b in zip(got, theirs["elements"]):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            if isinstance(x, list) and len(x) == 3 and isinstance(x[1], list):
                assert x[0] == y[0] and x[2] == y[2], (x, y)
                x, y = x[1], y[1]
            assert x == y or np.allclose(np.asarray(x, float), np.asarray(y, float)), (x, y)


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
            out.append([[x.decode() if isinstance(x, bytes) else x for x in v.reshape(-1)]
                        for v in values])
print(json.dumps(out, default=lambda x: x.item()))
"""


@needs_tf
def test_sparse_parse_graph_runs_in_tensorflow(tmp_path):
    path = _write(tmp_path)
    env = {"tf": tf, "path": path}
    env["F"] = eval(FEATURES, env)
    with tf.Graph().as_default() as g:
        ds = eval(PIPELINES["parse_example_dataset"], env)
        iterator = tf.data.make_initializable_iterator(ds)
        nxt = iterator.get_next()
        flat = []
        for key in sorted(nxt):
            t = nxt[key]
            flat += [t.indices, t.values, t.dense_shape] if isinstance(t, tf.SparseTensor) \
                else [t]
        graph_def = g.as_graph_def()
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            ours = []
            while True:
                try:
                    ours.append([_plain(v.reshape(-1)) for v in sess.run(flat)])
                except tf.errors.OutOfRangeError:
                    break
    theirs = run_json(_RUN, spec={"graph_def": graph_def.SerializeToString().hex(),
                                  "init": iterator.initializer.name,
                                  "fetches": [t.name for t in flat]})
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x == y or np.allclose(np.asarray(x, float), np.asarray(y, float)), (x, y)
