"""FIFO input pipelines give TensorFlow's record counts and batch contents for the same
files (TFRecords -> read_up_to -> parse_example -> batch; CSV lines -> decode_csv;
fixed-length records -> decode_raw)."""
import json
import os
import subprocess
import sys

import numpy as np

from tf_interop import needs_tf, run_json

PROGRAM = r"""
import importlib, json, sys
tf = importlib.import_module(sys.argv[1])
if hasattr(tf, "disable_v2_behavior"):
    tf.disable_v2_behavior()
d = sys.argv[2]
def drain(fetch):
    out = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while True:
                out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    return out
res = {}
with tf.Graph().as_default():
    files = [d + "/r%d.tfrecord" % i for i in range(3)]
    fq = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    keys, vals = tf.TFRecordReader().read_up_to(fq, 5)
    feats = tf.parse_example(vals, {"x": tf.FixedLenFeature([2], tf.float32),
                                    "tag": tf.VarLenFeature(tf.string)})
    b = tf.train.batch([keys, feats["x"]], 7, enqueue_many=True,
                       allow_smaller_final_batch=True)
    res["tfrecord"] = [[k.tolist(), x.tolist()] for k, x in drain(b)]
with tf.Graph().as_default():
    fq = tf.train.string_input_producer([d + "/t.csv"], num_epochs=1, shuffle=False)
    k, line = tf.TextLineReader(skip_header_lines=1).read(fq)
    a, s, f = tf.decode_csv(line, [[0], [""], [0.5]])
    b = tf.train.batch([k, a, s, f], 3, allow_smaller_final_batch=True)
    res["csv"] = [[v.tolist() for v in x] for x in drain(b)]
with tf.Graph().as_default():
    fq = tf.train.string_input_producer([d + "/f.bin"], num_epochs=1, shuffle=False)
    k, v = tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=1).read(fq)
    b = tf.train.batch([k, tf.reshape(tf.decode_raw(v, tf.int16), [2])], 2,
                       allow_smaller_final_batch=True)
    res["fixed"] = [[x.tolist() for x in y] for y in drain(b)]
def enc(o):
    if isinstance(o, bytes):
        return o.decode().replace(d, "DIR")
    if isinstance(o, list):
        return [enc(i) for i in o]
    if isinstance(o, dict):
        return {k: enc(v) for k, v in o.items()}
    return o
print(json.dumps(enc(res)))
"""


def _write_files(tmp_path):
    import trainflow.compat.v1 as tf
    for i in range(3):
        with tf.io.TFRecordWriter(str(tmp_path / f"r{i}.tfrecord")) as w:
            for j in range(4 + i):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, j / 3])),
                    "tag": tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[b"t"] * j))})).SerializeToString())
    (tmp_path / "t.csv").write_bytes(b"a,s,f\n1,x,2.5\n2,\"y,z\",\n3,,-1\n4,w,1e3\n")
    (tmp_path / "f.bin").write_bytes(b"HH" + np.arange(10, dtype=np.int16).tobytes()[:16] + b"F")


@needs_tf
def test_fifo_pipelines_match_tensorflow(tmp_path):
    _write_files(tmp_path)
    expected = run_json(PROGRAM, "tensorflow.compat.v1", str(tmp_path))
    import trainflow
    src = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))
    proc = subprocess.run([sys.executable, "-c", PROGRAM, "trainflow.compat.v1", str(tmp_path)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=src))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["tfrecord"] == expected["tfrecord"]
    assert sum(len(b[0]) for b in got["tfrecord"]) == 2 * (4 + 5 + 6)
    assert got["csv"] == expected["csv"]
    assert got["fixed"] == expected["fixed"]
