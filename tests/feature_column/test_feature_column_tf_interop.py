"""Feature columns against TensorFlow 2.21's tf.compat.v1.feature_column (through
TRAINFLOW_TF_PYTHON; skipped when unset): the same columns over the same features give
the same variable names and shapes, input_layer and linear_model outputs (numeric,
bucketized, vocabulary list / file, identity, hash bucket for strings and integers,
weighted, crossed, indicator, embedding and shared embedding columns), and hash buckets
equal."""
import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

PROGRAM = r"""
def build(tf, vocab):
    fc = tf.feature_column
    price = fc.numeric_column("price")
    vec = fc.numeric_column("vec", shape=(2,))
    bucketized = fc.bucketized_column(price, [0.0, 10.0, 100.0])
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"],
                                                       num_oov_buckets=2)
    word = fc.categorical_column_with_vocabulary_file("word", vocab, vocabulary_size=3,
                                                      num_oov_buckets=1)
    ident = fc.categorical_column_with_identity("id", 5, default_value=0)
    city = fc.categorical_column_with_hash_bucket("city", 7)
    zipcode = fc.categorical_column_with_hash_bucket("zip", 9, dtype=tf.int64)
    weighted = fc.weighted_categorical_column(ident, "idw")
    features = {
        "price": tf.constant([[-3.0], [5.0], [50.0], [500.0]]),
        "vec": tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),
        "color": tf.constant([["red", "blue"], ["pink", ""], ["green", "green"], ["", ""]]),
        "word": tf.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]],
                                tf.constant(["salad", "brain", "tarkus", "surgery"]), [4, 2]),
        "id": tf.constant([[1], [4], [7], [2]], tf.int64),
        "id2": tf.constant([[3], [3], [0], [1]], tf.int64),
        "idw": tf.constant([[0.5], [2.0], [1.0], [3.0]]),
        "city": tf.constant([["paris"], ["rome"], ["oslo"], ["lima"]]),
        "zip": tf.constant([[75001], [10115], [-1], [12345]], tf.int64),
    }
    dense = [price, vec, bucketized, fc.indicator_column(color),
             fc.embedding_column(word, 3, initializer=tf.ones_initializer()),
             fc.embedding_column(city, 2, combiner="sum",
                                 initializer=tf.constant_initializer(0.5)),
             fc.indicator_column(weighted), fc.indicator_column(zipcode)]
    dense += fc.shared_embedding_columns(
        [ident, fc.categorical_column_with_identity("id2", 5)], 2,
        initializer=tf.constant_initializer(0.25))
    net = fc.input_layer(features, dense)
    cross = fc.crossed_column(["city", bucketized, color], 11)
    cross_int = fc.crossed_column([fc.crossed_column(["zip", ident], 5), "city"], 13,
                                  hash_key=99)
    dense += [fc.indicator_column(cross), fc.indicator_column(cross_int)]
    net = fc.input_layer(features, dense)
    linear = fc.linear_model(features, [price, bucketized, color, word, ident, city,
                                        weighted, zipcode, vec, cross, cross_int], units=2)
    spec = fc.make_parse_example_spec(dense[:-2])  # (cross_int parses "zip" as string)
    return net, linear, sorted(spec)


def run(tf, vocab):
    with tf.Graph().as_default():
        net, linear, spec = build(tf, vocab)
        names = sorted([v.op.name, v.shape.as_list()] for v in tf.global_variables())
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            for v in tf.global_variables():
                if v.op.name.startswith("linear_model/"):
                    n = int(np.prod(v.shape.as_list()))
                    sess.run(v.assign(np.reshape(np.arange(n) * 0.1 - 0.3,
                                                 v.shape.as_list()).astype(np.float32)))
            net_v, linear_v = sess.run([net, linear])
    return {"names": names, "net": net_v.tolist(), "linear": linear_v.tolist(),
            "spec": spec}
"""

TF_RUNS = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
exec(spec["program"])
print(json.dumps(run(tf, spec["vocab"])))
"""


def test_input_layer_and_linear_model_match_tensorflow(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("brain\nsalad\nsurgery\n")
    want = run_json(TF_RUNS, spec={"program": PROGRAM, "vocab": str(vocab)})
    scope = {"np": np}
    exec(PROGRAM, scope)  # noqa: S102 - the program both sides run
    got = scope["run"](tf, str(vocab))
    assert got["names"] == want["names"]
    assert got["spec"] == want["spec"]
    np.testing.assert_allclose(got["net"], want["net"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got["linear"], want["linear"], rtol=1e-6, atol=1e-6)
