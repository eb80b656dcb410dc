"""parse_example / parse_single_example / parse_(single_)sequence_example: values,
op structure, errors naming the feature and the record; interop with TF."""
import json

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_json


def _feature(v):
    if isinstance(v[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=v))
    if isinstance(v[0], int):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))


def _example(**kw):
    return tf.train.Example(features=tf.train.Features(
        feature={k: _feature(v) for k, v in kw.items()})).SerializeToString()


DATA = [_example(a=[1, 2], b=[b"x"], c=[1., 2., 3.], ix=[3, 1], vx=[.5, .25]),
        _example(b=[b"y", b"z"], c=[4.], ix=[0], vx=[1.])]


def _features():
    return {"a": tf.FixedLenFeature([2], tf.int64, default_value=[7, 8]),
            "b": tf.VarLenFeature(tf.string),
            "c": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
            "sp": tf.SparseFeature(index_key="ix", value_key="vx", dtype=tf.float32, size=10)}


def test_parse_example_values_and_structure():
    with tf.Graph().as_default() as g, tf.Session() as sess:
        s = tf.placeholder(tf.string, [None])
        out = tf.parse_example(s, _features())
        op = g.get_operation_by_name("ParseExample/ParseExampleV2")
        assert op.type == "ParseExampleV2" and op.get_attr("num_sparse") == 3
        assert [[d.size for d in s.dim] for s in op.get_attr("dense_shapes")] == [[2], [-1]]
        assert out["a"].shape.as_list() == [None, 2] and out["c"].shape.as_list() == [None, None]
        v = sess.run(out, {s: DATA})
        assert v["a"].tolist() == [[1, 2], [7, 8]]
        assert v["b"].indices.tolist() == [[0, 0], [1, 0], [1, 1]]
        assert v["b"].values.tolist() == [b"x", b"y", b"z"]
        assert v["b"].dense_shape.tolist() == [2, 2]
        assert v["c"].tolist() == [[1., 2., 3.], [4., 0., 0.]]
        assert v["sp"].indices.tolist() == [[0, 1], [0, 3], [1, 0]]
        np.testing.assert_allclose(v["sp"].values, [.25, .5, 1.])
        assert v["sp"].dense_shape.tolist() == [2, 10]
        assert sorted(v) == ["a", "b", "c", "sp"]


def test_parse_single_example():
    with tf.Graph().as_default(), tf.Session() as sess:
        out = tf.parse_single_example(DATA[0], {"a": tf.FixedLenFeature([2], tf.int64),
                                                "b": tf.VarLenFeature(tf.string)})
        assert out["a"].op.name == "ParseSingleExample/ParseExample/ParseExampleV2"
        assert out["a"].shape.as_list() == [2]
        v = sess.run(out)
        assert v["a"].tolist() == [1, 2]
        assert v["b"].indices.tolist() == [[0]] and v["b"].dense_shape.tolist() == [1]


@pytest.mark.parametrize("features,data,message", [
    ({"a": tf.FixedLenFeature([2], tf.int64)}, DATA,
     r"Name: <unknown>, Feature: a \(data type: int64\) is required but could not be found"),
    ({"a": tf.FixedLenFeature([3], tf.int64)}, DATA[:1],
     r"Key: a, Index: 0.  Number of int64 values != expected.  Values size: 2 but output "
     r"shape: \[3\]"),
    ({"a": tf.FixedLenFeature([2], tf.float32)}, DATA[:1],
     "Feature: a.  Data types don't match. Data type: int64 but expected type: float"),
    ({"a": tf.FixedLenFeature([2], tf.int64)}, [b"\xff\xff"], "Could not parse example input"),
])
def test_parse_errors_name_feature_and_record(features, data, message):
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(tf.parse_example(data, features))


def test_feature_config_errors():
    with pytest.raises(ValueError, match="allow_missing"):
        tf.parse_example(DATA, {"c": tf.FixedLenSequenceFeature([], tf.float32)})
    with pytest.raises(ValueError, match="need to be known"):
        tf.parse_example(DATA, {"a": tf.FixedLenFeature([None], tf.int64)})


def _sequence_example():
    se = tf.train.SequenceExample()
    se.context.feature["len"].int64_list.value.append(2)
    for t in range(2):
        se.feature_lists.feature_list["tok"].feature.add().int64_list.value.append(t + 5)
        se.feature_lists.feature_list["v"].feature.add().float_list.value.extend([1.0] * (t + 1))
    return se.SerializeToString()


def test_parse_single_sequence_example():
    with tf.Graph().as_default(), tf.Session() as sess:
        ctx, seq = tf.parse_single_sequence_example(
            _sequence_example(), context_features={"len": tf.FixedLenFeature([], tf.int64)},
            sequence_features={"tok": tf.FixedLenSequenceFeature([], tf.int64),
                               "v": tf.VarLenFeature(tf.float32),
                               "miss": tf.FixedLenSequenceFeature([2], tf.float32,
                                                                  allow_missing=True)})
        assert seq["tok"].op.type == "ParseSequenceExampleV2"
        c, s = sess.run([ctx, seq])
        assert c["len"] == 2 and s["tok"].tolist() == [5, 6] and s["miss"].shape == (0, 2)
        assert s["v"].indices.tolist() == [[0, 0], [1, 0], [1, 1]]
        assert s["v"].dense_shape.tolist() == [2, 2]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Feature list 'gone' is required"):
            sess.run(tf.parse_single_sequence_example(
                _sequence_example(),
                sequence_features={"gone": tf.FixedLenSequenceFeature([], tf.int64)}))


def test_parse_sequence_example_batch_lengths():
    with tf.Graph().as_default(), tf.Session() as sess:
        ctx, seq, lengths = tf.io.parse_sequence_example(
            [_sequence_example()] * 2, context_features={"len": tf.FixedLenFeature([], tf.int64)},
            sequence_features={"tok": tf.FixedLenSequenceFeature([], tf.int64)})
        c, s, n = sess.run([ctx, seq, lengths])
        assert c["len"].tolist() == [2, 2] and s["tok"].tolist() == [[5, 6], [5, 6]]
        assert n["tok"].tolist() == [2, 2]


_TF_PARSE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
data = [bytes.fromhex(h) for h in json.loads(sys.stdin.read())]
feats = {"a": tf.FixedLenFeature([2], tf.int64, default_value=[7, 8]),
         "b": tf.VarLenFeature(tf.string),
         "c": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
         "sp": tf.SparseFeature(index_key="ix", value_key="vx", dtype=tf.float32, size=10)}
out = tf.parse_example(tf.constant(data), feats)
with tf.Session() as s:
    v = s.run(out)
def j(x):
    if hasattr(x, "indices"):
        return [x.indices.tolist(), [y.decode() if isinstance(y, bytes) else y
                                     for y in x.values.tolist()], x.dense_shape.tolist()]
    return x.tolist()
print(json.dumps({k: j(x) for k, x in v.items()}))
"""


@needs_tf
def test_parse_example_matches_tensorflow():
    expected = run_json(_TF_PARSE, spec=[d.hex() for d in DATA])
    with tf.Graph().as_default(), tf.Session() as sess:
        v = sess.run(tf.parse_example(DATA, _features()))
    for key, want in expected.items():
        got = v[key]
        if hasattr(got, "indices"):
            got = [got.indices.tolist(), [y.decode() if isinstance(y, bytes) else y
                                          for y in got.values.tolist()],
                   got.dense_shape.tolist()]
        else:
            got = got.tolist()
        assert json.loads(json.dumps(got)) == want, key


# A feature spec whose dtype the parsing ops don't take: TF's TypeError, naming the op
# parameter the dtype feeds. (call, spec source) pairs, run here and in TensorFlow.
BAD_DTYPE_CASES = {
    "fixed_len": "tf.parse_example(s, {'a': tf.FixedLenFeature([], tf.int32)})",
    "var_len": "tf.parse_example(s, {'a': tf.VarLenFeature(tf.float64)})",
    "fixed_len_sequence": "tf.parse_example(s, {'a': tf.FixedLenSequenceFeature("
                          "[], tf.int32, allow_missing=True)})",
    "sparse_feature": "tf.parse_example(s, {'a': tf.SparseFeature('i', 'v', tf.int32, 3)})",
    "single": "tf.parse_single_example(s[0], {'a': tf.FixedLenFeature([], tf.int32)})",
    "context": "tf.io.parse_single_sequence_example(s[0], context_features="
               "{'a': tf.FixedLenFeature([], tf.int32)})",
    "context_sparse": "tf.io.parse_single_sequence_example(s[0], context_features="
                      "{'a': tf.VarLenFeature(tf.int32)})",
    "feature_list": "tf.io.parse_single_sequence_example(s[0], sequence_features="
                    "{'a': tf.FixedLenSequenceFeature([], tf.int32)})",
    "feature_list_sparse": "tf.io.parse_single_sequence_example(s[0], sequence_features="
                           "{'a': tf.VarLenFeature(tf.bool)})",
}

_BAD_DTYPE_CODE = """
def bad_dtype_errors(tf, cases):
    out = {}
    for key, call in sorted(cases.items()):
        with tf.Graph().as_default():
            s = tf.placeholder(tf.string, [None])
            try:
                eval(call)
                out[key] = None
            except Exception as e:
                out[key] = [type(e).__name__, str(e)]
    return out
"""


def _bad_dtype_errors():
    scope = {}
    exec(_BAD_DTYPE_CODE, scope)
    return scope["bad_dtype_errors"](tf, BAD_DTYPE_CASES)


def test_bad_feature_dtype_is_type_error_naming_the_parameter():
    errors = _bad_dtype_errors()
    assert errors["fixed_len"] == [
        "TypeError", "Value passed to parameter 'dense_defaults' has DataType int32 not in "
        "list of allowed values: float32, int64, string"]
    assert errors["feature_list_sparse"][1].startswith(
        "Value passed to parameter 'feature_list_sparse_types' has DataType bool")
    assert {e[0] for e in errors.values()} == {"TypeError"}


@needs_tf
def test_bad_feature_dtype_errors_match_tensorflow():
    theirs = run_json(_BAD_DTYPE_CODE + """
import json
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
print(json.dumps(bad_dtype_errors(tf, json.loads(input()))))
""", spec=BAD_DTYPE_CASES)
    assert _bad_dtype_errors() == theirs
