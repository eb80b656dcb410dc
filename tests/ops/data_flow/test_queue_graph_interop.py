"""GraphDefs built by trainflow with queue, reader, accumulator, parsing and string ops
import and run in TensorFlow (op types, attrs and signatures are TF's)."""
import numpy as np

import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_json

_RUN_STEPS = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
gd = tf.GraphDef()
gd.ParseFromString(bytes.fromhex(spec["graph_def"]))
def enc(v):
    v = v.tolist() if hasattr(v, "tolist") else v
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, list):
        return [enc(x) for x in v]
    return v
out = []
with tf.Graph().as_default() as g:
    tf.import_graph_def(gd, name="")
    with tf.Session() as sess:
        for step in spec["steps"]:
            out.append([enc(v) for v in sess.run(step)])
print(json.dumps(out))
"""


def _enc(v):
    v = v.tolist() if hasattr(v, "tolist") else v
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, list):
        return [_enc(x) for x in v]
    return v


def _both(graph, steps):
    expected = run_json(_RUN_STEPS, spec={"graph_def": graph.as_graph_def()
                                          .SerializeToString().hex(), "steps": steps})
    with tf.Session(graph=graph) as sess:
        got = [[_enc(v) for v in sess.run(step)] for step in steps]
    assert got == expected
    return got


@needs_tf
def test_queue_and_accumulator_graph_runs_in_tensorflow():
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(10, [tf.int32, tf.string], shapes=[[], [2]], name="q")
        enq = q.enqueue_many([[1, 2, 3], [["a", "b"], ["c", "d"], ["e", "f"]]])
        many = q.dequeue_many(2)
        p = tf.PaddingFIFOQueue(4, [tf.int64], shapes=[[None]], name="p")
        pe1, pe2 = p.enqueue([[1, 2, 3]]), p.enqueue([[4]])
        pd = p.dequeue_many(2)
        r = tf.RandomShuffleQueue(10, 0, tf.float32, shapes=[[]], seed=3, name="r")
        re = r.enqueue_many([[1.0, 2.0]])
        rsize = r.size()
        pq = tf.PriorityQueue(5, [tf.string], shapes=[[]], name="pq")
        pqe = pq.enqueue_many([[3, 1], ["x", "y"]])
        pqd = pq.dequeue_many(2)
        acc = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
        ap = acc.apply_grad([1.0, 3.0], local_step=0)
        take = acc.take_grad(1)
        closed = q.close()
        upto = q.dequeue_up_to(5)
    steps = [[enq.name], [t.name for t in many], [pe1.name], [pe2.name], [pd.name],
             [re.name], [rsize.name], [pqe.name], [t.name for t in pqd], [ap.name],
             [take.name], [closed.name], [t.name for t in upto]]
    got = _both(g, steps)
    assert got[1] == [[1, 2], [["a", "b"], ["c", "d"]]]
    assert got[4] == [[[1, 2, 3], [4, 0, 0]]]


@needs_tf
def test_reader_parse_and_string_graph_runs_in_tensorflow(tmp_path):
    path = str(tmp_path / "d.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i + 1])),
                "s": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[b"w%d" % i] * i))})).SerializeToString())
    g = tf.Graph()
    with g.as_default():
        fq = tf.FIFOQueue(4, tf.string, shapes=[[]], name="files")
        fenq = fq.enqueue_many([[path]])
        fclose = fq.close()
        reader = tf.TFRecordReader(name="reader")
        keys, values = reader.read_up_to(fq, 5)
        feats = tf.parse_example(values, {"v": tf.FixedLenFeature([2], tf.int64),
                                          "s": tf.VarLenFeature(tf.string)})
        csv = tf.decode_csv(tf.constant(["1,a,2.5", "3,,"]), [[0], ["z"], [1.0]])
        words = tf.string_split(tf.constant(["a b", "c"]))
        joined = tf.reduce_join(tf.string_join([tf.constant(["x", "y"]), "!"]), separator=",")
        hashed = tf.string_to_hash_bucket_fast(tf.constant(["x", "y"]), 100)
        raw = tf.decode_raw(tf.constant([np.array([1, 2], np.int32).tobytes()]), tf.int32)
        fmt = tf.as_string(tf.constant([1.25]), precision=1)
        sub = tf.substr(tf.constant(["hello"]), 1, 2)
        rx = tf.regex_replace(tf.constant(["aab"]), "a+", "-")
        n = reader.num_records_produced()
    steps = [[fenq.name], [fclose.name],
             [keys.name, feats["v"].name, feats["s"].indices.name, feats["s"].values.name],
             [n.name], [t.name for t in csv], [words.values.name, words.indices.name],
             [joined.name, hashed.name, raw.name, fmt.name, sub.name, rx.name]]
    got = _both(g, steps)
    assert got[2][1] == [[0, 1], [1, 2], [2, 3]]
