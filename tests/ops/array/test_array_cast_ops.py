"""Cast and the to_* helpers, saturate_cast, StopGradient, PreventGradient, IdentityN:
names, conversions at the edges and errors as TensorFlow 2.21 gives them (checked in
a TF 2.21 environment)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op


def test_names_like_tf():
    with tf.Graph().as_default() as g:
        c = tf.constant([[1., 2., 3.], [4., 5., 6.]], name="c")
        assert tf.cast(c, tf.int32).op.name == "Cast"
        assert tf.cast(c, tf.float32) is c
        assert tf.cast([1, 2], tf.float32).op.inputs[0].op.name == "Cast_1/x"
        f = tf.to_float(tf.constant([1]))
        assert (f.op.name, f.op.type, f.dtype) == ("ToFloat", "Cast", tf.float32)
        assert tf.to_int32(c).op.name == "ToInt32" and tf.to_int64(c).op.name == "ToInt64"
        assert tf.to_double(c).op.name == "ToDouble"
        assert tf.to_bfloat16(c).dtype == tf.bfloat16
        assert tf.stop_gradient(c).op.name == "StopGradient"
        a, b = tf.identity_n([c, tf.placeholder(tf.float32, [None, 3])])
        assert a.op.name == "IdentityN" and (str(a.shape), str(b.shape)) == ("(2, 3)", "(?, 3)")
        p = apply_op("PreventGradient", input=c, message="no grad here").outputs[0]
        assert p.op.get_attr("message") == b"no grad here"
        assert [o.type for o in g.get_operations()].count("Cast") == 7


def test_conversions_match_tf():
    with tf.Graph().as_default():
        outs = [tf.cast(tf.constant([np.nan, np.inf, -np.inf, 3e9, -2.7], tf.float32), tf.int32),
                tf.cast(tf.constant([-1., 256., 300.5]), tf.uint8),
                tf.cast(tf.constant([1 + 2j], tf.complex64), tf.float32),
                tf.cast(tf.constant([0., -0.5, np.nan]), tf.bool),
                tf.cast(tf.constant([True, False]), tf.float16),
                tf.cast(tf.constant([1.5, 2.5]), tf.bfloat16)]
        with tf.Session() as sess:
            got = sess.run(outs)
    int_min = -2147483648
    assert got[0].tolist() == [int_min, int_min, int_min, int_min, -2]
    assert got[1].tolist() == [255, 0, 44]
    assert got[2].tolist() == [1.0]
    assert got[3].tolist() == [False, True, True]
    assert got[4].dtype == np.float16 and got[4].tolist() == [1.0, 0.0]
    assert got[5].astype(np.float32).tolist() == [1.5, 2.5]


def test_string_cast_is_unimplemented():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.string)
        y = tf.cast(p, tf.float32)
        z = tf.cast(tf.placeholder_with_default(1.0, []), tf.string)
        with tf.Session() as sess:
            with pytest.raises(errors.UnimplementedError,
                               match="Cast string to float is not supported"):
                sess.run(y, {p: [b"1"]})
            with pytest.raises(errors.UnimplementedError,
                               match="Cast float to string is not supported"):
                sess.run(z)


def test_saturate_cast():
    with tf.Graph().as_default() as g:
        x = tf.constant([-5., 7.5, 300.])
        y = tf.saturate_cast(x, tf.uint8)
        types_ = [o.type for o in g.get_operations() if o.name.startswith("saturate_cast")]
        # TF 2.21 always clamps, with one ClipByValue named "clamp".
        assert types_ == ["Const", "Const", "ClipByValue", "Cast"]
        wide = tf.saturate_cast(tf.constant([1, 2], tf.int32), tf.int64)
        assert wide.op.type == "Cast" and wide.op.inputs[0].op.type == "ClipByValue"
        with tf.Session() as sess:
            assert sess.run(y).tolist() == [0, 7, 255]


def test_cast_static_value_and_indexed_slices():
    with tf.Graph().as_default():
        assert tf.get_static_value(tf.cast(tf.constant([1.7, -2.2]), tf.int32)).tolist() == \
            [1, -2]
        assert tf.get_static_value(tf.stop_gradient(tf.constant(3))) == 3
        s = tf.IndexedSlices(tf.constant([[1.5]]), tf.constant([0]), tf.constant([2, 1]))
        c = tf.cast(s, tf.float64)
        assert isinstance(c, tf.IndexedSlices) and c.dtype == tf.float64
        assert c.indices is s.indices


def test_pass_through_values():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2])
        outs = [tf.stop_gradient(p), apply_op("PreventGradient", input=p).outputs[0],
                tf.identity_n([p])[0], apply_op("Snapshot", input=p).outputs[0]]
        with tf.Session() as sess:
            got = sess.run(outs, {p: [1., 2.]})
    for v in got:
        assert v.tolist() == [1.0, 2.0]
