"""Sequence feature columns against TensorFlow 2.21 (through TRAINFLOW_TF_PYTHON; skipped
when unset): numeric (default value, shape 2), and the embedding / indicator columns of
identity, vocabulary-list (with OOV buckets) and hash-bucket sequence columns give the same
(dense tensor, sequence length) pairs."""
import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.feature_column.layers import LazyBuilder

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

PROGRAM = r"""
def build(tf):
    fc = tf.feature_column
    feats = {
        "num": tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0]], [1.0, 2.0, 3.0, 4.0],
                               [3, 4]),
        "ids": tf.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]],
                               tf.constant([2, 0, 1, 1], tf.int64), [4, 2]),
        "words": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["omar", "x", "marlo"], [2, 3]),
    }
    ids = fc.sequence_categorical_column_with_identity("ids", 3)
    words = fc.sequence_categorical_column_with_vocabulary_list(
        "words", ["omar", "stringer", "marlo"], num_oov_buckets=2)
    hashed = fc.sequence_categorical_column_with_hash_bucket("words", 10)
    columns = {
        "num": fc.sequence_numeric_column("num", default_value=-2.0),
        "num2": fc.sequence_numeric_column("num", shape=(2,)),
        "emb": fc.embedding_column(ids, 2, initializer=tf.constant_initializer(
            [[1.0, 2.0], [3.0, 5.0], [7.0, 11.0]])),
        "ind_words": fc.indicator_column(words),
        "ind_hash": fc.indicator_column(hashed),
    }
    return feats, columns


def run(tf, pair_of):
    with tf.Graph().as_default():
        feats, columns = build(tf)
        out = {k: pair_of(tf, feats, c) for k, c in columns.items()}
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            values = sess.run(out)
    return {k: [np.asarray(v[0]).tolist(), np.asarray(v[1]).tolist()]
            for k, v in values.items()}
"""

TF_RUNS = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from tensorflow.python.feature_column import feature_column as fc_old
from tensorflow.python.feature_column import feature_column_v2 as fc2
spec = json.loads(sys.stdin.read())
exec(spec["program"])


def pair_of(tf, feats, column):
    # TF 2.21's sequence numeric column has only the v2 API; the embedding and indicator
    # columns keep the v1 one tf.contrib's sequence_input_layer called.
    if hasattr(column, "get_sequence_dense_tensor") and column.name == "num":
        return column.get_sequence_dense_tensor(fc2.FeatureTransformationCache(feats), None)
    return column._get_sequence_dense_tensor(fc_old._LazyBuilder(feats))


print(json.dumps(run(tf, pair_of)))
"""


def _pair_of(tf_, feats, column):
    return column._get_sequence_dense_tensor(LazyBuilder(feats))


def test_sequence_columns_match_tensorflow():
    want = run_json(TF_RUNS, spec={"program": PROGRAM})
    scope = {"np": np}
    exec(PROGRAM, scope)  # noqa: S102 - the program both sides run
    got = scope["run"](tf, _pair_of)
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(got[key][0], want[key][0], rtol=1e-6, err_msg=key)
        assert got[key][1] == want[key][1], key
