"""DecodeRaw, DecodeCSV, DecodeCompressed (values and error wording as TF's)."""
import gzip
import zlib

import numpy as np
import pytest

import trainflow.compat.v1 as tf

_CSV_CASES = [
    ([b'1,"a""b",2.5', b",x,"], [[0], [""], [1.0]], {}, [[1, 0], [b'a"b', b"x"], [2.5, 1.0]]),
    ([b"1,NA,3,4"], [[0], [1.0]], {"select_cols": [1, 3], "na_value": "NA"}, [[0], [4.0]]),
    ([b'1;"a;b"'], [[0], [""]], {"field_delim": ";"}, [[1], [b"a;b"]]),
    ([b'1,a"b'], [[0], [""]], {"use_quote_delim": False}, [[1], [b'a"b']]),
    ([b" 1.5 ,1"], [[0.], [0]], {}, [[1.5], [1]]),
    ([b"1,"], [[0], [""]], {}, [[1], [b""]]),
    ([b"7,8"], [tf.int64, tf.float64], {}, [[7], [8.0]]),
]
_CSV_ERRORS = [
    ([b"1,2"], [[0], [""], [1.0]], "Expect 3 fields but have 2 in record 0"),
    ([b"1,2,3", b"x,2,3"], [[0], [""], [1.0]], "Field 0 in record 1 is not a valid int32: x"),
    ([b"1,,3"], [[0], "required", [1.0]], "Field 1 is required but missing in record 0!"),
    ([b'1,a"b'], [[0], [""]], "Unquoted fields cannot have quotes/CRLFs inside"),
    ([b'1,"ab"c'], [[0], [""]], "Quote inside a string has to be escaped by another quote"),
    ([b'1,"ab'], [[0], [""]], "Quoted field has to end with quote followed by delim or end"),
    ([b"99999999999,1"], [[0], [0]], "Field 0 in record 0 is not a valid int32: 99999999999"),
]


def _defaults(defaults):
    out = []
    for d in defaults:
        if d == "required":
            out.append(tf.constant([], tf.string))
        elif isinstance(d, tf.DType):
            out.append(tf.constant([1], d))
        else:
            out.append(d)
    return out


@pytest.mark.parametrize("records,defaults,kwargs,expected", _CSV_CASES)
def test_decode_csv(records, defaults, kwargs, expected):
    with tf.Graph().as_default(), tf.Session() as sess:
        out = tf.decode_csv(records, _defaults(defaults), **kwargs)
        assert out[0].op.type == "DecodeCSV"
        for got, want in zip(sess.run(out), expected):
            assert got.tolist() == want


@pytest.mark.parametrize("records,defaults,message", _CSV_ERRORS)
def test_decode_csv_errors(records, defaults, message):
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("(", r"\(")):
            sess.run(tf.decode_csv(records, _defaults(defaults)))


def test_decode_csv_argument_checks():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="strictly increasing"):
            tf.decode_csv(["1,2"], [[0], [0]], select_cols=[1, 0])
        with pytest.raises(ValueError, match="do not match"):
            tf.decode_csv(["1,2"], [[0], [0]], select_cols=[1])


def test_decode_raw():
    with tf.Graph().as_default(), tf.Session() as sess:
        data = [b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"]
        assert sess.run(tf.decode_raw(data, tf.int16)).tolist() == [[1, 2], [3, 4]]
        assert sess.run(tf.decode_raw(data, tf.int16, little_endian=False)).tolist() == [
            [256, 512], [768, 1024]]
        f = np.array([1.5, -2.0], np.float32).tobytes()
        np.testing.assert_array_equal(sess.run(tf.decode_raw(f, tf.float32)), [1.5, -2.0])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="length 3 that is not a multiple of 2, the size of int16"):
            sess.run(tf.decode_raw([b"\x01\x00\x02"], tf.int16))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="element 1 has size 2 != 4"):
            sess.run(tf.decode_raw([b"\x01\x00\x02\x00", b"\x01\x00"], tf.int16))


def test_decode_compressed():
    with tf.Graph().as_default(), tf.Session() as sess:
        zs = [zlib.compress(b"hello"), zlib.compress(b"")]
        assert sess.run(tf.io.decode_compressed(zs, "ZLIB")).tolist() == [b"hello", b""]
        assert sess.run(tf.io.decode_compressed(gzip.compress(b"gz"), "GZIP")) == b"gz"
        assert sess.run(tf.io.decode_compressed(b"plain")) == b"plain"
        with pytest.raises(tf.errors.DataLossError):
            sess.run(tf.io.decode_compressed(b"garbage", "ZLIB"))


def test_decode_json_example():
    js = '{"features": {"feature": {"a": {"int64List": {"value": ["3"]}}}}}'
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(tf.decode_json_example([js]))
        ex = tf.train.Example.FromString(out[0])
        assert list(ex.features.feature["a"].int64_list.value) == [3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Error while parsing JSON"):
            sess.run(tf.io.decode_json_example("{bad"))
