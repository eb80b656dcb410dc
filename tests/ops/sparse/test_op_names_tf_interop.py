"""The names of the ops the new sparse, count, audio, proto, SparseMatMul and batch-scatter
functions create are TensorFlow's (name scopes included), op for op."""
import json
import textwrap

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

SCRIPT = textwrap.dedent("""
    def op_names(tf, expressions):
        out = {}
        for ex in expressions:
            g = tf.Graph()
            with g.as_default():
                sp = tf.SparseTensor([[0, 0], [1, 1]], [1., 2.], [2, 3])
                spi = tf.SparseTensor([[0, 0], [1, 1]], tf.constant([1, 2], tf.int64), [2, 3])
                v = tf.Variable(tf.zeros([2, 2]))
                n = len(g.get_operations())
                eval(ex, {"tf": tf, "sp": sp, "spi": spi, "v": v})
                out[ex] = [o.name for o in g.get_operations()[n:] if o.type != "Const"]
        return out
""")
_TF_MAIN = SCRIPT + textwrap.dedent("""
    import json, sys
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    print(json.dumps(op_names(tf, json.load(sys.stdin))))
""")


EXPRESSIONS = [
    "tf.sparse.slice(sp, [0, 0], [1, 2])", "tf.sparse.split(sp_input=sp, num_split=2, axis=1)",
    "tf.sparse.softmax(sp)", "tf.sparse.maximum(sp, sp)", "tf.sparse_minimum(sp, sp, name='mn')",
    "tf.edit_distance(sp, sp)", "tf.sparse.bincount(tf.constant([1, 2]))",
    "tf.sparse.bincount(spi, weights=sp, axis=-1)", "tf.sparse_merge(spi, sp, 4)",
    "tf.sparse_to_indicator(spi, 4)", "tf.sparse.from_dense([[1, 0]])", "tf.sparse.eye(2)",
    "tf.sparse.expand_dims(sp, 1)", "tf.sparse.reset_shape(sp, [3, 4])",
    "tf.sparse_reset_shape(sp)", "tf.audio.decode_wav(tf.constant(b''))",
    "tf.audio.encode_wav(tf.zeros([2, 1]), 8000)",
    "tf.sparse_matmul(tf.ones([2, 2]), tf.ones([2, 2]))",
    "tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), a_is_sparse=True)",
    "tf.gradients(tf.sparse_matmul(tf.ones([2, 2]), tf.ones([2, 2])), tf.ones([2, 2]))",
    "sp * tf.constant(2.)", "sp / tf.constant(2.)", "tf.gradients((sp * 2.).values, sp.values)",
    "tf.gradients(tf.sparse.softmax(sp).values, sp.values)",
    "tf.gradients(tf.sparse.slice(sp, [0, 0], [1, 2]).values, sp.values)",
    "tf.deserialize_many_sparse(tf.serialize_many_sparse(sp), tf.float32)",
    "tf.batch_scatter_update(v, [[0], [1]], [[1.], [2.]])",
    "tf.io.decode_proto(tf.constant(b''), 'tensorflow.Int64List', ['value'], [tf.int64])",
    "tf.io.encode_proto([[1]], [tf.constant([[1]], tf.int64)], ['value'],"
    " 'tensorflow.Int64List')",
]


def test_op_names_match_tf():
    import trainflow.compat.v1 as tf
    env = {}
    exec(SCRIPT, env)  # noqa: S102 - the script above
    ours = env["op_names"](tf, EXPRESSIONS)
    theirs = run_json(_TF_MAIN, spec=EXPRESSIONS)
    assert ours == theirs, json.dumps({k: [ours[k], theirs[k]] for k in theirs
                                       if ours.get(k) != theirs[k]})
