"""String ops: split (v1/v2), join, reduce_join, to_number, hash buckets, substr,
regex_replace, as_string, length, lower/upper. Expected values were recorded with
TensorFlow 2.21 (and are re-checked live by the interop test)."""
import pytest

import trainflow.compat.v1 as tf
from tf_interop import needs_tf, run_json

WORDS = ["hello", "", "a b  c", "Ünï", "x" * 20]


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def _sp(v):
    return [v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()]


def test_hash_buckets_match_tensorflow_values():
    with tf.Graph().as_default():
        s = tf.constant(WORDS)
        assert _run(tf.string_to_hash_bucket_fast(s, 1000000007)).tolist() == [
            359589692, 912170738, 881222344, 386878170, 116240151]
        assert _run(tf.string_to_hash_bucket_strong(s, 1000000007, [1, 2])).tolist() == [
            889399473, 436933189, 154158877, 759364868, 630525922]
        assert _run(tf.string_to_hash_bucket(s, 1000000007)).tolist() == [
            302950538, 727638525, 67579063, 334800130, 48121266]
        assert _run(tf.strings.to_hash_bucket_fast(s, 10)).tolist() == [6, 3, 7, 7, 8]
        with pytest.raises(ValueError):
            tf.string_to_hash_bucket_strong(s, 10, [1])


def test_as_string_formats():
    with tf.Graph().as_default():
        f = tf.constant([1.5, -2.25e-7, 3e10])
        assert _run(tf.as_string(f)).tolist() == [b"1.500000", b"-0.000000",
                                                   b"30000001024.000000"]
        two = tf.constant([1.5, 3.0])
        assert _run(tf.as_string(two, precision=2, width=8, fill="0")).tolist() == [
            b"00001.50", b"00003.00"]
        assert _run(tf.as_string(tf.constant([1.5, 3e10]), shortest=True)).tolist() == [
            b"1.5", b"3e+10"]
        assert _run(tf.as_string(tf.constant([1.5, 3e10]), scientific=True)).tolist() == [
            b"1.500000e+00", b"3.000000e+10"]
        assert _run(tf.as_string(tf.constant([3, -4]))).tolist() == [b"3", b"-4"]
        assert _run(tf.as_string(tf.constant([True, False]))).tolist() == [b"true", b"false"]
        assert _run(tf.as_string(tf.constant([7]), width=4)).tolist() == [b"   7"]


def test_string_split_v1_and_v2():
    with tf.Graph().as_default():
        v1 = tf.string_split(["a b  c", "", "d,e"], delimiter=" ,")
        assert v1.indices.op.type == "StringSplit"
        assert v1.indices.op.name == "StringSplit/StringSplit"
        assert _sp(_run(v1)) == [[[0, 0], [0, 1], [0, 2], [2, 0], [2, 1]],
                                 [b"a", b"b", b"c", b"d", b"e"], [3, 3]]
        assert _sp(_run(tf.string_split(["abc"], delimiter=""))) == [
            [[0, 0], [0, 1], [0, 2]], [b"a", b"b", b"c"], [1, 3]]
        v2 = tf.strings.split(["a b  c", " x ", "d,,e"])
        assert v2.indices.op.type == "StringSplitV2"
        assert _sp(_run(v2)) == [[[0, 0], [0, 1], [0, 2], [1, 0], [2, 0]],
                                 [b"a", b"b", b"c", b"x", b"d,,e"], [3, 3]]
        assert _sp(_run(tf.strings.split(["a b  c", " x ", "d,,e"], sep=","))) == [
            [[0, 0], [1, 0], [2, 0], [2, 1], [2, 2]], [b"a b  c", b" x ", b"d", b"", b"e"],
            [3, 3]]


def test_join_reduce_join_substr_regex_length_case():
    with tf.Graph().as_default():
        assert _run(tf.string_join([["a", "b"], "-", ["c", "d"]], separator="+")).tolist() == [
            b"a+-+c", b"b+-+d"]
        m = tf.constant([["a", "b"], ["c", "d"]])
        assert _run(tf.reduce_join(m)) == b"abcd"
        assert _run(tf.reduce_join(m, [0, 1])) == b"acbd"
        assert _run(tf.reduce_join(m, axis=1, separator=",")).tolist() == [b"a,b", b"c,d"]
        assert _run(tf.reduce_join(m, 0, keep_dims=True)).tolist() == [[b"ac", b"bd"]]
        s = tf.constant(["hello", "world"])
        assert _run(tf.substr(s, 1, 3)).tolist() == [b"ell", b"orl"]
        assert _run(tf.substr(s, -2, 5)).tolist() == [b"lo", b"ld"]
        assert _run(tf.substr(s, [0, 4], [2, 1])).tolist() == [b"he", b"d"]
        with pytest.raises(tf.errors.InvalidArgumentError, match="pos 9 out of range"):
            _run(tf.substr(s, 9, 1))
        r = tf.regex_replace(s, "l+", "L")
        assert r.op.type == "StaticRegexReplace" and _run(r).tolist() == [b"heLo", b"worLd"]
        assert _run(tf.regex_replace(s, "(o)", r"<\1>", replace_global=False)).tolist() == [
            b"hell<o>", b"w<o>rld"]
        u = tf.constant(["Ünï", "AbC"])
        assert _run(tf.strings.length(u)).tolist() == [5, 3]
        assert _run(tf.strings.length(u, unit="UTF8_CHAR")).tolist() == [3, 3]
        assert _run(tf.strings.lower(u)).tolist() == ["Ünï".encode(), b"abc"]
        assert _run(tf.strings.upper(u, encoding="utf-8")).tolist() == ["ÜNÏ".encode(), b"ABC"]
        assert _run(tf.string_to_number(["1.5", "-2"])).tolist() == [1.5, -2.0]
        assert _run(tf.string_to_number(["7"], tf.int64)).tolist() == [7]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="StringToNumberOp could not correctly convert string: x"):
            _run(tf.string_to_number(["x"], tf.int32))


_TF_STRINGS = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
w = json.loads(sys.stdin.read())
s = tf.constant([x.encode() for x in w])
with tf.Session() as sess:
    out = sess.run([tf.string_to_hash_bucket_fast(s, 997), tf.string_to_hash_bucket_strong(
        s, 997, [123456789, 987654321]), tf.string_to_hash_bucket(s, 997),
        tf.strings.length(s), tf.reduce_join(s, separator="|")])
print(json.dumps([o.tolist() if hasattr(o, "tolist") else o for o in out[:4]] +
                 [out[4].decode()]))
"""


@needs_tf
def test_string_ops_match_tensorflow_live():
    words = WORDS + ["The quick brown fox", "0123456789abcdef", "é" * 9]
    expected = run_json(_TF_STRINGS, spec=words)
    with tf.Graph().as_default():
        s = tf.constant([x.encode() for x in words])
        got = _run([tf.string_to_hash_bucket_fast(s, 997),
                    tf.string_to_hash_bucket_strong(s, 997, [123456789, 987654321]),
                    tf.string_to_hash_bucket(s, 997), tf.strings.length(s),
                    tf.reduce_join(s, separator="|")])
    assert [g.tolist() for g in got[:4]] + [got[4].decode()] == expected
