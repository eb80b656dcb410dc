"""TensorFlow reads the TFRecords we write (plain, GZIP, ZLIB) and parses our Examples.

Runs TF in a subprocess through $TRAINFLOW_TF_PYTHON; skipped when unset.
"""
import json

from trainflow._src.formats.tensor_proto import make_ndarray, make_tensor_proto
from trainflow._src.formats.tfrecord import TFRecordWriter
from trainflow._src.protos import example_pb2, feature_pb2, tensor_pb2

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

_READ_AND_PARSE = r'''
import json, sys
import tensorflow as tf
paths = json.loads(sys.argv[1])
out = {}
for kind, path in paths.items():
    records = list(tf.compat.v1.io.tf_record_iterator(path, options=kind or None))
    dataset = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=kind)]
    assert dataset == records
    spec = {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "score": tf.io.FixedLenFeature([], tf.float32),
        "emb": tf.io.FixedLenFeature([3], tf.float32),
        "name": tf.io.FixedLenFeature([], tf.string),
        "tags": tf.io.VarLenFeature(tf.string),
    }
    parsed = tf.io.parse_example(records, spec)
    out[kind] = {
        "records": [r.hex() for r in records],
        "id": parsed["id"].numpy().tolist(),
        "score": parsed["score"].numpy().tolist(),
        "emb": parsed["emb"].numpy().tolist(),
        "name": [n.decode() for n in parsed["name"].numpy().tolist()],
        "tags_values": [t.decode() for t in parsed["tags"].values.numpy().tolist()],
        "tags_indices": parsed["tags"].indices.numpy().tolist(),
    }
print(json.dumps(out))
'''


def _example(i):
    example = example_pb2.Example()
    feature = example.features.feature
    feature["id"].int64_list.value.append(i)
    feature["score"].float_list.value.append(i * 0.25 - 1)
    feature["emb"].float_list.value.extend([i, i + 0.5, -i])
    feature["name"].bytes_list.value.append(b"example-%02d" % i)
    feature["tags"].bytes_list.value.extend(b"t%d" % k for k in range(i % 3))
    feature["unused"].CopyFrom(feature_pb2.Feature())
    return example.SerializeToString()


def test_tf_reads_and_parses_our_records(tmp_path):
    records = [_example(i) for i in range(7)] + [b""]
    paths = {}
    for kind in ("", "GZIP", "ZLIB"):
        paths[kind] = str(tmp_path / f"ours{kind}.tfrecord")
        with TFRecordWriter(paths[kind], kind) as writer:
            for record in records[:-1]:
                writer.write(record)
    result = run_json(_READ_AND_PARSE, json.dumps(paths), timeout=600)
    for kind in paths:
        got = result[kind]
        assert [bytes.fromhex(h) for h in got["records"]] == records[:-1]
        assert got["id"] == list(range(7))
        assert got["score"] == [i * 0.25 - 1 for i in range(7)]
        assert got["emb"] == [[i, i + 0.5, -i] for i in range(7)]
        assert got["name"] == ["example-%02d" % i for i in range(7)]
        assert got["tags_values"] == [f"t{k}" for i in range(7) for k in range(i % 3)]
        assert got["tags_indices"] == [[i, k] for i in range(7) for k in range(i % 3)]


_MAKE_PROTOS = r'''
import json, sys
import numpy as np
import tensorflow as tf
cases = json.loads(sys.argv[1])
out = []
for case in cases:
    kwargs = dict(case["kwargs"])
    if "dtype" in kwargs:
        kwargs["dtype"] = tf.as_dtype(kwargs["dtype"])
    if "np_dtype" in case:
        kwargs["values"] = np.array(kwargs["values"], dtype=case["np_dtype"])
    out.append(tf.make_tensor_proto(**kwargs).SerializeToString().hex())
print(json.dumps(out))
'''

_PROTO_CASES = [
    {"kwargs": {"values": 1.5}}, {"kwargs": {"values": [1, 2, 3]}},
    {"kwargs": {"values": [[1.0, 2.0], [3.0, 4.0]]}}, {"kwargs": {"values": 2 ** 40}},
    {"kwargs": {"values": [True, False]}}, {"kwargs": {"values": ["a", "bc", ""]}},
    {"kwargs": {"values": 1.0, "shape": [2, 3]}},
    {"kwargs": {"values": [1, 2], "dtype": "float16"}},
    {"kwargs": {"values": [1, 2], "dtype": "bfloat16"}},
    {"kwargs": {"values": 7, "dtype": "bfloat16"}},
    {"kwargs": {"values": 3, "dtype": "complex64"}},
    {"kwargs": {"values": [1, 2], "dtype": "complex128"}},
    {"kwargs": {"values": [5], "dtype": "uint8"}},
    {"kwargs": {"values": [5, 6], "dtype": "uint16"}},
    {"kwargs": {"values": [5], "dtype": "uint32"}}, {"kwargs": {"values": [5], "dtype": "uint64"}},
    {"kwargs": {"values": [-5, 6], "dtype": "int8"}}, {"kwargs": {"values": 9, "dtype": "int64"}},
    {"kwargs": {"values": [1.5, 2.5]}, "np_dtype": "float64"},
    {"kwargs": {"values": [1, 2], "dtype": "int32"}, "np_dtype": "int64"},
    {"kwargs": {"values": [], "shape": [0, 3]}},
    {"kwargs": {"values": [[]]}},
    {"kwargs": {"values": 1, "shape": [2], "allow_broadcast": True}},
]


def test_make_tensor_proto_matches_tf_bytes():
    import numpy as np
    want = run_json(_MAKE_PROTOS, json.dumps(_PROTO_CASES), timeout=600)
    for case, hex_bytes in zip(_PROTO_CASES, want):
        kwargs = dict(case["kwargs"])
        if "np_dtype" in case:
            kwargs["values"] = np.array(kwargs["values"], dtype=case["np_dtype"])
        ours = make_tensor_proto(**kwargs)
        theirs = tensor_pb2.TensorProto.FromString(bytes.fromhex(hex_bytes))
        assert ours == theirs, case
        assert ours.SerializeToString() == bytes.fromhex(hex_bytes), case
        np.testing.assert_array_equal(make_ndarray(ours), make_ndarray(theirs))
