"""Public readers, writers and Session entry points given wrong types, missing files,
folders, files where folders belong, unicode and bytes paths: the error class TF raises (each
row's class was checked against TensorFlow 2.21; `test_tensorflow_agrees` re-checks them in
the interop environment). Rows with "ok" must succeed."""
import json

import pytest

from tf_interop import needs_tf, run_json

# (id, snippet, expected outcome). Snippets see: tf, d (an empty folder), f (a text file),
# u (a folder with a unicode name), ckpt (a V2 checkpoint holding v = [1., 2.]), and
# fresh(name) (a new path inside d).
ROWS = [
    # TFRecord files
    ("tfrecord-read-missing", "list(tf.io.tf_record_iterator(fresh('missing')))",
     "NotFoundError"),
    ("tfrecord-read-dir", "list(tf.io.tf_record_iterator(d))", "FailedPreconditionError"),
    ("tfrecord-read-int", "list(tf.io.tf_record_iterator(5))", "TypeError"),
    ("tfrecord-write-dir", "tf.io.TFRecordWriter(d)", "FailedPreconditionError"),
    ("tfrecord-write-missing-dir", "tf.io.TFRecordWriter(fresh('no/x'))", "NotFoundError"),
    ("tfrecord-write-under-file", "tf.io.TFRecordWriter(f + '/sub')",
     "FailedPreconditionError"),
    ("tfrecord-write-int", "tf.io.TFRecordWriter(5)", "TypeError"),
    ("tfrecord-write-record-int", "tf.io.TFRecordWriter(fresh('r')).write(5)", "TypeError"),
    ("tfrecord-unicode-and-bytes",
     "w = tf.io.TFRecordWriter(os.path.join(u, 'r.tfr')); w.write(b'x'); w.close(); "
     "assert list(tf.io.tf_record_iterator(os.path.join(u, 'r.tfr').encode())) == [b'x']",
     "ok"),
    # event files
    ("events-read-missing", "list(tf.train.summary_iterator(fresh('missing')))",
     "NotFoundError"),
    ("events-read-dir", "list(tf.train.summary_iterator(d))", "FailedPreconditionError"),
    ("filewriter-on-file", "tf.summary.FileWriter(f)", "FailedPreconditionError"),
    ("filewriter-under-file", "tf.summary.FileWriter(f + '/sub')", "FailedPreconditionError"),
    ("filewriter-unicode", "w = tf.summary.FileWriter(os.path.join(u, 'logs')); w.close()",
     "ok"),
    # checkpoints
    ("reader-int", "tf.train.NewCheckpointReader(5)", "TypeError"),
    ("reader-none", "tf.train.NewCheckpointReader(None)", "TypeError"),
    ("reader-dir", "tf.train.NewCheckpointReader(d)", "DataLossError"),
    ("reader-missing", "tf.train.NewCheckpointReader(fresh('missing'))", "NotFoundError"),
    ("reader-text-file", "tf.train.NewCheckpointReader(f)", "DataLossError"),
    ("reader-bytes-path", "tf.train.NewCheckpointReader(ckpt.encode()).get_tensor('v')", "ok"),
    ("reader-get-int", "tf.train.NewCheckpointReader(ckpt).get_tensor(5)", "TypeError"),
    ("reader-get-none", "tf.train.NewCheckpointReader(ckpt).get_tensor(None)", "TypeError"),
    ("reader-get-bytes", "tf.train.NewCheckpointReader(ckpt).get_tensor(b'v')", "ok"),
    ("reader-get-missing", "tf.train.NewCheckpointReader(ckpt).get_tensor('nope')",
     "NotFoundError"),
    ("reader-has-int", "tf.train.NewCheckpointReader(ckpt).has_tensor(5)", "TypeError"),
    ("latest-missing-dir", "assert tf.train.latest_checkpoint(fresh('missing')) is None",
     "ok"),
    ("latest-int", "tf.train.latest_checkpoint(5)", "TypeError"),
    ("state-of-file", "assert tf.train.get_checkpoint_state(f) is None", "ok"),
    ("state-missing-dir",
     "tf.train.update_checkpoint_state(fresh('no/x'), fresh('no/x/m'))", "NotFoundError"),
    ("state-under-file", "tf.train.update_checkpoint_state(f, f + '/m')",
     "FailedPreconditionError"),
    ("state-unicode",
     "tf.train.update_checkpoint_state(u, os.path.join(u, 'm')); "
     "assert tf.train.get_checkpoint_state(u).model_checkpoint_path.endswith('m')", "ok"),
    # graphs and sessions
    ("import-graph-def-int", "tf.import_graph_def(5)", "TypeError"),
    ("import-graph-def-bytes", "tf.import_graph_def(b'abc')", "TypeError"),
    ("session-target-int", "tf.Session(5)", "TypeError"),
    ("session-graph-int", "tf.Session(graph=5)", "TypeError"),
    ("session-config-int", "tf.Session(config=5)", "TypeError"),
    ("run-int", "g = tf.Graph()\nwith g.as_default(): tf.constant(1.0)\n"
                "tf.Session(graph=g).run(5)", "TypeError"),
    ("run-none", "g = tf.Graph()\nwith g.as_default(): tf.constant(1.0)\n"
                 "tf.Session(graph=g).run(None)", "TypeError"),
    ("run-missing-name", "g = tf.Graph()\nwith g.as_default(): tf.constant(1.0)\n"
                         "tf.Session(graph=g).run('nope:0')", "ValueError"),
    ("feed-int-key", "g = tf.Graph()\nwith g.as_default(): c = tf.constant(1.0)\n"
                     "tf.Session(graph=g).run(c, feed_dict={5: 1.0})", "TypeError"),
    ("feed-missing-name", "g = tf.Graph()\nwith g.as_default(): c = tf.constant(1.0)\n"
                          "tf.Session(graph=g).run(c, feed_dict={'nope:0': 1.0})",
     "TypeError"),
    ("run-after-close", "g = tf.Graph()\nwith g.as_default(): c = tf.constant(1.0)\n"
                        "s = tf.Session(graph=g); s.close(); s.run(c)", "RuntimeError"),
]

# Runs every row (under trainflow or TensorFlow) and prints {id: outcome} as JSON.
RUNNER = r'''
import json, os, sys, tempfile
mod = sys.argv[1]
if mod == "tensorflow":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import trainflow.compat.v1 as tf
rows = json.loads(sys.stdin.read())
d = tempfile.mkdtemp()
f = os.path.join(d, "afile")
with open(f, "w") as fh:
    fh.write("x")
u = os.path.join(d, "\u00fcnic\u00f6de-\u65e5\u672c")
os.makedirs(u)
g = tf.Graph()
with g.as_default():
    v = tf.Variable([1.0, 2.0], name="v")
    saver = tf.train.Saver() if hasattr(tf.train, "Saver") else None
    init = tf.global_variables_initializer()
ckpt = os.path.join(d, "model.ckpt")
if saver is not None:
    with tf.Session(graph=g) as sess:
        sess.run(init)
        saver.save(sess, ckpt)
else:
    import numpy as np
    from trainflow._src.formats import tensor_bundle
    tensor_bundle.save(ckpt, {"v": np.array([1.0, 2.0], np.float32)})
counter = [0]
def fresh(name):
    counter[0] += 1
    return os.path.join(d, f"n{counter[0]}", name) if "/" in name else \
        os.path.join(d, f"{name}{counter[0]}")
out = {}
for rid, code in rows:
    try:
        exec(code, {"tf": tf, "os": os, "d": d, "f": f, "u": u, "ckpt": ckpt,
                    "fresh": fresh})
        out[rid] = "ok"
    except BaseException as e:
        out[rid] = type(e).__name__
print(json.dumps(out))
'''


def _outcomes(python, module):
    rows = [(rid, code) for rid, code, _ in ROWS]
    return run_json(RUNNER, module, python=python, spec=rows)


@pytest.fixture(scope="module")
def trainflow_outcomes():
    import sys
    return _outcomes(sys.executable, "trainflow")


@pytest.mark.parametrize("rid,code,expected", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input_raises_tfs_class(trainflow_outcomes, rid, code, expected):
    assert trainflow_outcomes[rid] == expected, code


@needs_tf
def test_tensorflow_agrees():
    got = _outcomes(None, "tensorflow")
    diff = {rid: got[rid] for rid, _, want in ROWS if got[rid] != want}
    assert diff == {}, json.dumps(diff)
