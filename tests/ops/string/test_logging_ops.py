"""Assert, Print, tf.print / StringFormat, and TF's tensor summaries."""
import logging
import sys

import ml_dtypes
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.string.string_format import string_format
from trainflow._src.ops.string.summarize import summarize_value

# (value, summarize, TensorFlow's v1 text) -- from TF 2.21's Assert messages.
V1_CASES = [
    (np.array([1.5, 2.25, 1 / 3, 1e10], np.float32), 3, "1.5 2.25 0.333333343..."),
    (np.array([1e-5, 123456.7, 1234567.0, 0.1], np.float32), -1,
     "1e-05 123456.703 1234567 0.1"),
    (np.array([1 / 3, 1e100, 1e16]), -1, "0.33333333333333331 1e+100 1e+16"),
    (np.array([[1, 2], [3, 4]], np.float16), 100, "[1 2][3 4]"),
    (np.array(1.0, ml_dtypes.bfloat16), 3, "1"),
    (np.array([[1, 2, 3], [4, 5, 6]]), 4, "[1 2 3][4...]..."),
    (np.arange(10), 3, "0 1 2..."),
    (np.arange(24).reshape(2, 3, 4), 5, "[[0 1 2 3][4...]]..."),
    (np.arange(8).reshape(2, 1, 4), 3, "[[0 1 2...]]..."),
    (np.array(True), 3, "1"), (np.array([True, False]), 3, "1 0"),
    (np.array(True), 0, ""), (np.array(1.5, np.float32), 0, "..."),
    (np.arange(5), 0, "..."), (np.zeros([2, 0]), 3, ""),
    (np.array([1 + 2j], np.complex64), 3, "?"),
    (np.array([2 ** 40], np.int64), 3, "1099511627776"),
    (np.array([-np.nan, np.nan, np.inf, -np.inf, -0.0], np.float32), -1,
     "-nan nan inf -inf -0"),
    (np.array([b"a\nb\t'\"\\", "é".encode(), b"\x01"], dtype=object), 9,
     "a\\nb\\t\\'\\\"\\\\ é \\001"),
]

# (value, summarize, TensorFlow's v2 text) -- from TF 2.21's tf.strings.format.
V2_CASES = [
    (np.arange(30).reshape(5, 6), 2,
     "[[0 1 ... 4 5]\n [6 7 ... 10 11]\n ...\n [18 19 ... 22 23]\n [24 25 ... 28 29]]"),
    (np.arange(10), 2, "[0 1 ... 8 9]"),
    (np.arange(27).reshape(3, 3, 3), 1,
     "[[[0 ... 2]\n  ...\n  [6 ... 8]]\n\n ...\n\n [[18 ... 20]\n  ...\n  [24 ... 26]]]"),
    (np.ones([2, 2, 2], np.float32), -1, "[[[1 1]\n  [1 1]]\n\n [[1 1]\n  [1 1]]]"),
    (np.zeros([2, 0]), -1, "[\n ...]"), (np.zeros([0]), -1, "[]"),
    (np.array([7]), 0, "[ ...]"), (np.array(-0.0, np.float32), 3, "-0"),
    (np.array([b"a\nb\"", "é".encode()], dtype=object), -1, '["a\nb"" "é"]'),
    (np.array([1.5, 1 / 3, 1e10, np.nan], np.float32), 3, "[1.5 0.333333343 1e+10 nan]"),
    (np.array([[True, False], [False, True]]), 1, "[[1 0]\n [0 1]]"),
    (np.array([1 + 2j]), 1, "[?]"),
]


@pytest.mark.parametrize("value,summarize,text", V1_CASES)
def test_summarize_value_v1(value, summarize, text):
    assert summarize_value(value, summarize) == text


@pytest.mark.parametrize("value,summarize,text", V2_CASES)
def test_summarize_value_v2(value, summarize, text):
    assert summarize_value(value, summarize, print_v2=True) == text


def test_assert_passes_and_fails_with_tf_message():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        a = tf.Assert(tf.reduce_all(x > 0), ["x:", x], summarize=2, name="check")
        assert a.type == "Merge" and a.name == "check/AssertGuard/Merge"
        plain = tf.Assert(False, ["all int32", tf.constant([1, 2, 3, 4])])
        assert plain.type == "Assert" and plain.name == "Assert/Assert"
        with tf.Session() as sess:
            sess.run(a, {x: [1.0, 2.0]})
            with pytest.raises(errors.InvalidArgumentError,
                               match=r"^assertion failed: \[x:\] \[1 -2\.5\.\.\.\]"):
                sess.run(a, {x: [1.0, -2.5, 3.0]})
            with pytest.raises(errors.InvalidArgumentError,
                               match=r"assertion failed: \[all int32\] \[1 2 3\.\.\.\]"):
                sess.run(plain)


def test_assert_condition_must_be_scalar():
    g = tf.Graph()
    with g.as_default():
        c = tf.placeholder(tf.bool, None)
        a = tf.Assert(c, [tf.constant(1)])
        with tf.Session() as sess:
            sess.run(a, {c: [True]})
            with pytest.raises(errors.InvalidArgumentError, match=r"In\[0\] should be a scalar: "
                                                                  r"\[2\]"):
                sess.run(a, {c: [True, True]})


def test_print_is_identity_and_writes_stderr(capsys):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None], name="x")
        p = tf.Print(x, [x, "s"], message="m: ", first_n=2, summarize=2)
        assert p.op.type == "Print" and p.name == "Print:0"
        assert g.get_operation_by_name("Print/data_1").type == "Const"
        with tf.Session() as sess:
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(p, {x: [1, 2, 3]}), [1, 2, 3])
    assert capsys.readouterr().err == "m: [1 2...][s]\n" * 2


def test_tf_print_templates_and_streams(capsys, tmp_path):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, 2.0, 3.0, 4.0])
        op = tf.print("hello", x, {"a": tf.constant(1)}, [1, 2], tf.constant("s"),
                      output_stream=sys.stdout)
        assert op.type == "PrintV2" and op.name == "PrintV2"
        fmt = g.get_operation_by_name("StringFormat")
        assert fmt.get_attr("template") == b"hello {} {'a': {}} [1, 2] {}"
        two = tf.print(tf.reshape(tf.range(30), [5, 6]), tf.range(10), summarize=2, sep="|",
                       end="!\n", name="two")
        assert g.get_operation_by_name("two_format").type == "StringFormat"
        single = tf.print(tf.constant("just this"))
        assert single.inputs[0].op.type == "Const"
        path = tmp_path / "out.txt"
        to_file = tf.print("to file", x, output_stream="file://" + str(path))
        with tf.Session() as sess:
            sess.run(op)
            out = capsys.readouterr()
            assert out.out == 'hello [1 2 3 4] {\'a\': 1} [1, 2] "s"\n'
            sess.run([two, single])
            err = capsys.readouterr().err
            # The two prints of one step run in no fixed order (TF runs them on its pool).
            two_text = ("[[0 1 ... 4 5]\n [6 7 ... 10 11]\n ...\n [18 19 ... 22 23]\n"
                        " [24 25 ... 28 29]]|[0 1 ... 8 9]!\n")
            assert err in (two_text + "just this\n", "just this\n" + two_text)
            sess.run(to_file)
            sess.run(to_file)
    assert path.read_text() == "to file [1 2 3 4]\n" * 2


def test_tf_print_to_logging(caplog):
    g = tf.Graph()
    with g.as_default():
        op = tf.print("logged", tf.constant(5), output_stream=tf.logging.warning)
        with caplog.at_level(logging.WARNING, logger="trainflow"):
            with tf.Session() as sess:
                sess.run(op)
    assert "logged 5" in caplog.text


def test_tf_print_argument_errors():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="Unsupported output stream"):
            tf.print("x", output_stream=object())
        with pytest.raises(ValueError, match="Unrecognized keyword arguments for tf.print"):
            tf.print("x", colour="red")


def test_string_format():
    g = tf.Graph()
    with g.as_default():
        s = string_format("x={} y={}", [tf.constant([1, 2]), tf.constant(2.5)])
        assert s.shape.ndims == 0
        with tf.Session() as sess:
            assert sess.run(s) == b"x=[1 2] y=2.5"
        with pytest.raises(ValueError, match="num placeholders in template and num inputs "
                                             "must match: 1 vs 2"):
            string_format("{}", [tf.constant(1), tf.constant(2)])
