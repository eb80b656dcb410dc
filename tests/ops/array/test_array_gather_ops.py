"""GatherV2, GatherNd, ScatterNd, Where, Select/SelectV2, boolean_mask, Unique and
InvertPermutation: static shapes, names and errors as TensorFlow 2.21 gives them
(expectations produced by TF in a TF 2.21 environment)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from op_checks import assert_run_error, cases, raises, static_shapes


STATIC_SHAPES = [
    ("gather", lambda e: tf.gather(e.x, e.iv), ["(?, 3)"]),
    ("gather_matrix_indices", lambda e: tf.gather(e.c, [[0, 1], [1, 0]], axis=1),
     ["(2, 2, 2)"]),
    ("gather_dynamic_axis", lambda e: tf.gather(e.c, e.iv, axis=e.i), ["(?, ?)"]),
    ("gather_unknown_params", lambda e: tf.gather(e.u, e.iv), ["<unknown>"]),
    ("gather_nd", lambda e: tf.gather_nd(e.x3, [[0, 1]]), ["(1, 3)"]),
    ("gather_nd_unknown_depth", lambda e: tf.gather_nd(
        e.x3, tf.placeholder(tf.int32, [None, None])), ["<unknown>"]),
    ("scatter_nd", lambda e: tf.scatter_nd(tf.placeholder(tf.int32, [None, 1]),
                                           tf.placeholder(tf.float32, [None, 3]), [5, 3]),
     ["(5, 3)"]),
    ("scatter_nd_dynamic_shape", lambda e: tf.scatter_nd(
        tf.placeholder(tf.int32, [None, 1]), tf.placeholder(tf.float32, [None, 3]), e.iv),
     ["<unknown>"]),
    ("where_coordinates", lambda e: tf.where(tf.placeholder(tf.bool, [None, 2, 3])),
     ["(?, 3)"]),
    ("select_vector_condition", lambda e: tf.where(tf.placeholder(tf.bool, [2]), e.c, e.c),
     ["(2, 3)"]),
    ("boolean_mask", lambda e: tf.boolean_mask(e.x3, tf.placeholder(tf.bool, [None, 2])),
     ["(?, 3)"]),
    ("boolean_mask_axis", lambda e: tf.boolean_mask(e.c, [True, False, True], axis=1),
     ["(2, ?)"]),
    ("unique", lambda e: tf.unique(e.iv), ["(?,)", "(?,)"]),
    ("invert_permutation", lambda e: tf.invert_permutation(e.iv), ["(?,)"]),
]


@pytest.mark.parametrize("build,expected", cases(STATIC_SHAPES))
def test_static_shapes_match_tf(env, build, expected):
    assert static_shapes(build(env)) == expected


GRAPH_ERRORS = [
    ("gather_axis", lambda e: tf.gather(e.c, [0], axis=2),
     "Shape must be at least rank 3 but is rank 2"),
    ("gather_negative_axis", lambda e: tf.gather(e.c, [0], axis=-3),
     "Shape must be at least rank 3 but is rank 2"),
    ("gather_nd_depth", lambda e: tf.gather_nd(e.c, [[0, 1, 2]]),
     "indices.shape[-1] must be <= params.rank, but saw indices shape: [1,3] and params shape: "
     "[2,3]"),
    ("scatter_outer", lambda e: tf.scatter_nd([[0], [1]], [1., 2., 3.], [4]),
     "Dimensions [0,1) of indices[shape=[2,1]] = [2] must match dimensions [0,1) of "
     "updates[shape=[3]] = [3]: Dimension 0 in both shapes must be equal, but are 2 and 3. "
     "Shapes are [2] and [3]."),
    ("scatter_inner", lambda e: tf.scatter_nd([[0], [1]], [[1., 2.], [3., 4.]], [4, 3]),
     "Dimensions [1,2) of input[shape=[4,3]] = [3] must match dimensions [1,2) of "
     "updates[shape=[2,2]] = [2]: Dimension 0 in both shapes must be equal, but are 3 and 2. "
     "Shapes are [3] and [2]."),
    ("select_vector_length", lambda e: tf.where(tf.placeholder(tf.bool, [3]), e.c, e.c),
     "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2]."),
    ("select_shape", lambda e: tf.where(tf.placeholder(tf.bool, [2, 1]), e.c, e.c),
     "Dimension 1 in both shapes must be equal, but are 3 and 1. Shapes are [2,3] and [2,1]."),
    ("select_rank", lambda e: tf.where(tf.ones([2, 3], tf.bool), e.c, tf.zeros([3])),
     "Shapes must be equal rank, but are 2 and 1"),
    ("select_v2_broadcast", lambda e: tf.where_v2(tf.ones([2, 3], tf.bool), e.c, tf.zeros([4])),
     "Dimensions must be equal, but are 3 and 4"),
    ("boolean_mask_scalar", lambda e: tf.boolean_mask(e.c, True), "mask cannot be scalar."),
    ("boolean_mask_shape", lambda e: tf.boolean_mask(e.c, [True, False, True]),
     "Shapes (2,) and (3,) are incompatible"),
    ("unique_rank", lambda e: tf.unique(e.c), "Shape must be rank 1 but is rank 2"),
    ("invert_permutation_rank", lambda e: tf.invert_permutation([[0]]),
     "Shape must be rank 1 but is rank 2"),
    ("where_one_of_two", lambda e: tf.where(e.c > 0, e.c), "x and y must both be non-None"),
]


@pytest.mark.parametrize("build,message", cases(GRAPH_ERRORS))
def test_graph_time_errors(env, build, message):
    with raises(ValueError, message):
        build(env)


F23 = np.zeros([2, 3], np.float32)
RUN_ERRORS = [
    ("gather_range", lambda p, i: tf.gather(p, i),
     [np.zeros([3, 2], np.float32), np.array([0, 5], np.int32)], "indices[1] = 5 is not in [0, 3)"),
    ("gather_negative", lambda p, i: tf.gather(p, i, axis=1),
     [np.zeros([3, 2], np.float32), np.array([[0, 1], [-1, 0]], np.int32)],
     "indices[1,0] = -1 is not in [0, 2)"),
    ("gather_nd_range", lambda p, i: tf.gather_nd(p, i), [F23, np.array([[0, 1], [5, 0]],
                                                                         np.int32)],
     "indices[1] = [5, 0] does not index into param shape [2,3], node name: GatherNd"),
    ("scatter_nd_range", lambda i: tf.scatter_nd(i, [1., 2.], [4]),
     [np.array([[0], [5]], np.int32)], "indices[1] = [5] does not index into shape [4]"),
    ("where_scalar", lambda p: tf.where(p), [np.bool_(True)],
     "WhereOp : Unhandled input dimensions: 0"),
    ("select_batches", lambda p, c: tf.where(c, p, p), [F23, np.array([True] * 3)],
     "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3"),
    ("select_then_else", lambda p, c, q: tf.where(c, p, q),
     [F23, np.array([True] * 2), np.zeros([2], np.float32)],
     "'then' and 'else' must have the same size.  but received: [2,3] vs. [2]"),
    ("select_shape", lambda p, c: tf.where(c, p, p), [F23, np.ones([3, 2], bool)],
     "Inputs to operation Select of type Select must have the same size and shape.  Input 0: "
     "[3,2] != input 1: [2,3]"),
    ("select_v2", lambda p, c: tf.where_v2(c, p, p), [F23, np.ones([4], bool)],
     "condition [4], then [2,3], and else [2,3] must be broadcastable"),
    ("unique_rank", lambda p: tf.unique(p), [np.zeros([2, 3], np.int32)],
     "unique expects a 1D vector."),
    ("invert_permutation_range", lambda p: tf.invert_permutation(p),
     [np.array([0, 3, 1], np.int32)], "3 is not between 0 and 3"),
    ("invert_permutation_duplicate", lambda p: tf.invert_permutation(p),
     [np.array([0, 0, 1], np.int32)], "0 is duplicated in the input."),
]


@pytest.mark.parametrize("build,values,message", cases(RUN_ERRORS))
def test_run_time_errors(build, values, message):
    assert_run_error(build, values, message)


def test_values_like_tf():
    with tf.Graph().as_default():
        nan = tf.unique(tf.constant([np.nan, 1, np.nan], tf.float32))
        counts = tf.unique_with_counts(tf.constant([3, 1, 3, 2, 1]))
        batch = tf.gather(tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2)),
                          [[0, 2], [1, 1]], axis=1, batch_dims=1)
        dup = tf.scatter_nd([[0], [1], [0]], [1., 2., 3.], [4])
        hot = tf.one_hot([0, -1, 5], 3, axis=0)
        with tf.Session() as sess:
            got = sess.run([nan, counts, batch, dup, hot])
    assert np.isnan(got[0].y[[0, 2]]).all() and got[0].y[1] == 1
    assert got[0].idx.tolist() == [0, 1, 2]
    assert got[1].y.tolist() == [3, 1, 2] and got[1].idx.tolist() == [0, 1, 0, 2, 1]
    assert got[1].count.tolist() == [2, 2, 1]
    assert got[2].tolist() == [[[0, 1], [4, 5]], [[8, 9], [8, 9]]]
    assert got[3].tolist() == [4, 2, 0, 0]
    assert got[4].tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]


def test_op_names_like_tf(env):
    g = tf.gather(env.c, [0, 1, 0])
    assert g.op.name == "GatherV2"
    assert [t.op.name for t in g.op.inputs[1:]] == ["GatherV2/indices", "GatherV2/axis"]
    assert tf.gather_nd(env.c, [[0, 1]]).op.inputs[1].op.name == "GatherNd/indices"
    assert tf.where(env.c > 2).op.name == "Where"
    assert (tf.where(env.c > 2, env.c, env.c).op.type, tf.where_v2(env.c > 2, env.c, 0.)
            .op.inputs[2].op.name) == ("Select", "SelectV2/e")
    m = tf.boolean_mask(env.c, [True, False])
    assert (m.op.name, m.op.type) == ("boolean_mask/GatherV2", "GatherV2")
    types_ = [o.type for o in env.g.get_operations() if o.name.startswith("boolean_mask/")]
    assert types_ == ["Const", "Const", "Const", "Const", "Const", "StridedSlice", "Const",
                      "Prod", "Const", "Const", "Const", "Const", "StridedSlice", "Const",
                      "Const", "Const", "Const", "StridedSlice", "Pack", "Const", "ConcatV2",
                      "Reshape", "Const", "Reshape", "Where", "Squeeze", "Const", "GatherV2"]
    u = tf.unique([1, 2, 1])
    assert u.y.op.name == "Unique" and u.y.op.inputs[0].op.name == "Unique/x"
