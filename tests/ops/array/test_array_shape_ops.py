"""Shape, Size, Rank, Reshape, Squeeze, ExpandDims and broadcasting: static shapes, static
values, graph-time folding and errors, as TensorFlow 2.21 (compat.v1 graph mode) gives them.
Every expected shape and message below was produced by TF in a TF 2.21 environment."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

from op_checks import assert_run_error, cases, raises


STATIC_SHAPES = [
    ("reshape_dyn_first_and_minus_one", lambda e: tf.reshape(e.x3, [tf.shape(e.x3)[0], -1]),
     "(?, ?)"),
    ("reshape_matching_unknown", lambda e: tf.reshape(e.x3, [-1, 6]), "(?, 6)"),
    ("reshape_other_unknown", lambda e: tf.reshape(e.x3, [-1, 4]), "(?, 4)"),
    ("reshape_flatten", lambda e: tf.reshape(e.x, [-1]), "(?,)"),
    ("reshape_infer", lambda e: tf.reshape(e.c, [-1, 2]), "(3, 2)"),
    ("reshape_static_shape_slice", lambda e: tf.reshape(e.c, [tf.shape(e.c)[0], -1]), "(2, 3)"),
    ("reshape_to_shape", lambda e: tf.reshape(e.x, tf.shape(e.x)), "(?, 3)"),
    ("reshape_concat_partial",
     lambda e: tf.reshape(e.x, tf.concat([tf.shape(e.x)[:1], [3]], 0)), "(?, 3)"),
    ("reshape_two_unknown", lambda e: tf.reshape(e.c, [-1, -1]), "(?, ?)"),
    ("reshape_unknown_input", lambda e: tf.reshape(e.u, [2, -1]), "(2, ?)"),
    ("reshape_unknown_shape_tensor", lambda e: tf.reshape(e.x, e.iv), "<unknown>"),
    ("reshape_placeholder_dim", lambda e: tf.reshape(e.x, [e.i, 3]), "(?, 3)"),
    ("reshape_placeholder_last", lambda e: tf.reshape(e.x, [2, e.i]), "(2, ?)"),
    ("reshape_three", lambda e: tf.reshape(e.x3, [tf.shape(e.x3)[0], 2, -1]), "(?, 2, ?)"),
    ("reshape_zero", lambda e: tf.reshape(e.x, [-1, 0]), "(?, 0)"),
    ("squeeze_unknown_dims", lambda e: tf.squeeze(tf.placeholder(tf.float32, [None, 1, 3])),
     "<unknown>"),
    ("squeeze_axis", lambda e: tf.squeeze(tf.placeholder(tf.float32, [None, 1, 3]), [1]),
     "(?, 3)"),
    ("expand_dims_last", lambda e: tf.expand_dims(e.x, -1), "(?, 3, 1)"),
    ("expand_dims_dynamic", lambda e: tf.expand_dims(e.x, e.i), "<unknown>"),
    ("broadcast_to", lambda e: tf.broadcast_to(e.x, [4, 2, 3]), "(4, 2, 3)"),
    ("broadcast_to_dynamic", lambda e: tf.broadcast_to(e.c, e.iv), "<unknown>"),
    ("shape_unknown", lambda e: tf.shape(e.u), "(?,)"),
    ("size_unknown", lambda e: tf.size(e.u), "()"),
    ("rank_unknown", lambda e: tf.rank(e.u), "()"),
    ("fill_from_shape_slice", lambda e: tf.zeros(tf.shape(e.x3)[1:]), "(2, 3)"),
    ("ones_from_stacked_dims", lambda e: tf.ones(tf.stack([tf.shape(e.x)[0],
                                                            tf.shape(e.x)[1]])), "(?, 3)"),
]


@pytest.mark.parametrize("build,expected", cases(STATIC_SHAPES))
def test_static_shapes_match_tf(env, build, expected):
    assert str(build(env).shape) == expected


def test_shape_n_shapes(env):
    a, b = tf.shape_n([env.x, env.u])
    assert (str(a.shape), str(b.shape)) == ("(2,)", "(?,)")
    assert a.op.type == "ShapeN" and a.dtype == tf.int32


def test_broadcast_static_shape():
    assert str(tf.broadcast_static_shape(tf.TensorShape([None, 1, 3]),
                                         tf.TensorShape([2, 1]))) == "(?, 2, 3)"
    assert tf.broadcast_static_shape(tf.TensorShape(None), [2]).rank is None
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))


GRAPH_ERRORS = [
    ("reshape_not_divisible", lambda e: tf.reshape(e.c, [4, -1]),
     "Dimension size must be evenly divisible by 4 but is 6 for '{{node Reshape}} = Reshape"),
    ("reshape_count", lambda e: tf.reshape(e.c, [4, 2]),
     "Cannot reshape a tensor with 6 elements to shape [4,2] (8 elements)"),
    ("squeeze_not_one", lambda e: tf.squeeze(e.c, [0]),
     "Can not squeeze dim[0], expected a dimension of 1, got 2"),
    ("expand_dims_range", lambda e: tf.expand_dims(e.x, 5),
     "dim 5 not in the interval [-3, 2]."),
    ("squeeze_range", lambda e: tf.squeeze(e.c, [2]), "squeeze_dims[0] not in [-2,2)."),
    ("broadcast_to_mismatch", lambda e: tf.broadcast_to(e.c, [4, 4]),
     "Dimensions must be equal, but are 3 and 4"),
]


@pytest.mark.parametrize("build,message", cases(GRAPH_ERRORS))
def test_graph_time_errors(env, build, message):
    with raises(ValueError, message):
        build(env)


RUN_ERRORS = [
    ("reshape_count", lambda p: tf.reshape(p, [4, 2]), [np.zeros([2, 3], np.float32)],
     "Input to reshape is a tensor with 6 values, but the requested shape has 8"),
    ("reshape_multiple", lambda p: tf.reshape(p, [4, -1]), [np.zeros([2, 3], np.float32)],
     "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple "
     "of 4"),
    ("reshape_two_minus_one", lambda p, s: tf.reshape(p, s),
     [np.zeros([2, 3], np.float32), np.array([-1, -1], np.int32)],
     "Only one input size may be -1, not both 0 and 1"),
    ("squeeze", lambda p: tf.squeeze(p, [0]), [np.zeros([2, 3], np.float32)],
     "Can not squeeze dim[0], expected a dimension of 1, got 2"),
    ("expand_dims", lambda p, d: tf.expand_dims(p, d), [np.zeros([2, 3], np.float32),
                                                        np.int32(4)],
     "Tried to expand dim index 4 for tensor with 2 dimensions."),
    ("broadcast_to", lambda p, s: tf.broadcast_to(p, s),
     [np.zeros([2, 3], np.float32), np.array([4, 2], np.int32)],
     "Incompatible shapes: [2,3] vs. [4,2]"),
    ("broadcast_args", lambda a, b: tf.broadcast_dynamic_shape(a, b),
     [np.array([2, 3], np.int32), np.array([4], np.int32)], "Incompatible shapes: [2,3] vs. [4]"),
    ("broadcast_gradient_args", lambda a, b: apply_op("BroadcastGradientArgs", s0=a, s1=b)
     .outputs, [np.array([2, 3], np.int32), np.array([4], np.int32)],
     "Incompatible shapes: [2,3] vs. [4]"),
]


@pytest.mark.parametrize("build,values,message", cases(RUN_ERRORS))
def test_run_time_errors(build, values, message):
    assert_run_error(build, values, message)


@pytest.mark.parametrize("s0,s1,r0,r1", [
    ([2, 1, 3], [1, 1], [1], [0, 1, 2]),
    ([1, 1], [1, 1], [], []),
    ([2, 3, 5], [1], [], [0, 1, 2]),
    ([], [2, 1], [0, 1], [1]),
])
def test_broadcast_gradient_args_matches_tf(s0, s1, r0, r1):
    with tf.Graph().as_default():
        a, b = apply_op("BroadcastGradientArgs", s0=np.array(s0, np.int32),
                        s1=np.array(s1, np.int32)).outputs
        with tf.Session() as sess:
            got = sess.run([a, b])
    assert got[0].tolist() == r0 and got[1].tolist() == r1


def test_static_values():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        c = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        sv = tf.get_static_value
        assert sv(apply_op("Shape", input=c).outputs[0]).tolist() == [2, 3]
        assert sv(apply_op("Shape", input=x).outputs[0]) is None
        assert sv(apply_op("Size", input=c, out_type=tf.int64).outputs[0]) == 6
        assert sv(apply_op("Rank", input=x).outputs[0]) == 2
        assert sv(tf.reshape(c, [3, 2])).tolist() == [[0, 1], [2, 3], [4, 5]]
        assert sv(tf.expand_dims(c, 0)).shape == (1, 2, 3)
        assert sv(tf.squeeze(tf.expand_dims(c, 0))).shape == (2, 3)
        assert sv(tf.shape(x)[1]) == 3
        assert sv(tf.shape(x)[0]) is None
        assert sv(tf.shape(x)[-1:]).tolist() == [3]


def test_graph_time_folding_names_like_tf():
    """tf.shape/size/rank of static shapes are constants; others are ops (TF 2.21 names)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        c = tf.constant(np.zeros([2, 3], np.float32), name="c")
        assert (tf.shape(c).op.name, tf.shape(c).op.type) == ("Shape", "Const")
        assert (tf.shape(x).op.name, tf.shape(x).op.type) == ("Shape_2", "Shape")
        assert tf.shape(x, out_type=tf.int64).dtype == tf.int64
        assert (tf.size(c).op.name, tf.size(c).op.type) == ("Size", "Const")
        assert tf.size(x).op.type == "Size"
        assert tf.size(tf.placeholder(tf.float32, [None, 0])).op.type == "Const"
        assert (tf.rank(x).op.name, tf.rank(x).op.type) == ("Rank", "Const")
        assert tf.rank(tf.placeholder(tf.float32)).op.type == "Rank"
        r = tf.reshape(x, [-1])
        assert r.op.name == "Reshape" and r.op.inputs[1].op.name == "Reshape/shape"
        e = tf.expand_dims(x, 1)
        assert e.op.inputs[1].op.name == "ExpandDims/dim"


def test_deprecated_argument_spellings():
    with tf.Graph().as_default():
        z = tf.zeros([1, 2, 1])
        assert tf.squeeze(z, squeeze_dims=[0]).shape.as_list() == [2, 1]
        assert tf.squeeze(z, 2).shape.as_list() == [1, 2]
        assert tf.expand_dims(z, dim=0).shape.as_list() == [1, 1, 2, 1]
        with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'squeeze_dims'"):
            tf.squeeze(z, axis=[0], squeeze_dims=[0])
        with pytest.raises(ValueError, match="Must specify an axis argument"):
            tf.expand_dims(z)


def test_reshape_returns_view_but_fetch_is_a_copy():
    with tf.Graph().as_default():
        v = np.arange(6, dtype=np.float32)
        p = tf.placeholder(tf.float32, [6])
        r = tf.reshape(p, [2, 3])
        with tf.Session() as sess:
            got = sess.run(r, {p: v})
    got[0, 0] = 100.0
    assert v[0] == 0.0
