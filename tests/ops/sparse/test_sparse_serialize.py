"""SerializeSparse / SerializeManySparse / DeserializeSparse: round trips in both
encodings, batching by deserialization, errors, and TensorFlow reading our string
encoding (and we reading TF's)."""
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_json
from trainflow._src.ops.sparse import sparse_serialize as ss

SP = tf.SparseTensorValue([[0, 0], [1, 2], [3, 1]], np.array([1.5, 2.5, 3.5], np.float32),
                          [4, 3])


def _run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


def _assert_equal(got, want):
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.values, want.values)
    np.testing.assert_array_equal(got.dense_shape, want.dense_shape)


@pytest.mark.parametrize("out_type", [tf.string, tf.variant])
def test_round_trip(out_type):
    with tf.Graph().as_default():
        st = tf.SparseTensor.from_value(SP)
        serialized = ss.serialize_sparse(st, out_type=out_type)
        assert serialized.shape.as_list() == [3] and serialized.dtype == out_type
        back = ss.deserialize_sparse(serialized, tf.float32, rank=2)
        assert back.indices.shape.as_list() == [None, 2]
        _assert_equal(_run(back), SP)


@pytest.mark.parametrize("out_type", [tf.string, tf.variant])
def test_many_round_trip_and_rows(out_type):
    with tf.Graph().as_default():
        serialized = ss.serialize_many_sparse(tf.SparseTensor.from_value(SP), out_type=out_type)
        rows = _run(serialized)
        assert rows.shape == (4, 3)
        _assert_equal(_run(ss.deserialize_sparse(serialized, tf.float32)), SP)
        row1 = _run(ss.deserialize_sparse(serialized[1], tf.float32))
        _assert_equal(row1, tf.SparseTensorValue([[2]], [2.5], [3]))


def test_deserialize_joins_parts_with_the_largest_shape():
    with tf.Graph().as_default():
        parts = [ss.serialize_sparse(tf.SparseTensor([[i]], [float(i)], [i + 1]),
                                     out_type=tf.variant) for i in range(3)]
        joined = _run(ss.deserialize_sparse(tf.stack(parts), tf.float32))
    _assert_equal(joined, tf.SparseTensorValue([[0, 0], [1, 1], [2, 2]], [0., 1., 2.], [3, 3]))


@pytest.mark.parametrize("make,error", [
    (lambda: ss.deserialize_sparse(tf.constant(["a", "b"]), tf.float32),
     "3 as the last dimension"),
    (lambda: ss.deserialize_sparse(ss.serialize_sparse(tf.SparseTensor.from_value(SP)),
                                   tf.int32), "Requested SparseTensor of type int32"),
    (lambda: ss.serialize_many_sparse(tf.SparseTensor([[0]], [1.], [2])),
     "Rank of input SparseTensor should be > 1"),
])
def test_errors(make, error):
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match=error):
            _run(make())


TF_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = json.load(sys.stdin)
    ours = [bytes.fromhex(h) for h in spec["ours"]]
    with tf.Session() as sess:
        back = tf.SparseTensorValue(*sess.run(tf.raw_ops.DeserializeSparse(
            serialized_sparse=tf.constant(ours, tf.string), dtype=tf.float32)))
        mine = sess.run(tf.io.serialize_sparse(tf.SparseTensor(
            spec["indices"], np.float32(spec["values"]), spec["shape"])))
    print(json.dumps({"back": [back.indices.tolist(), back.values.tolist(),
                               back.dense_shape.tolist()],
                      "theirs": [m.hex() for m in mine]}))
""")


@needs_tf
def test_string_encoding_matches_tf():
    with tf.Graph().as_default():
        ours = _run(ss.serialize_sparse(tf.SparseTensor.from_value(SP)))
    out = run_json(TF_SCRIPT, spec={"ours": [bytes(b).hex() for b in ours],
                                    "indices": SP.indices, "values": SP.values.tolist(),
                                    "shape": SP.dense_shape})
    assert out["back"] == [SP.indices, SP.values.tolist(), SP.dense_shape]
    theirs = np.array([bytes.fromhex(h) for h in out["theirs"]], dtype=object)
    with tf.Graph().as_default():
        _assert_equal(_run(ss.deserialize_sparse(tf.constant(theirs), tf.float32)), SP)
