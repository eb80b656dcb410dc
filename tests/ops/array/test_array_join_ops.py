"""ConcatV2, Pack, Unpack, Split and SplitV: static shapes, op structure and errors as
TensorFlow 2.21 gives them (every expectation below was produced by TF in a TF 2.21 environment)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.array.array_ops import pack, unpack

from op_checks import assert_run_error, cases, raises, static_shapes


STATIC_SHAPES = [
    ("concat_rows", lambda e: tf.concat([e.x, e.c], 0), ["(?, 3)"]),
    ("concat_cols", lambda e: tf.concat([e.x, e.c], 1), ["(2, 6)"]),
    ("concat_unknown_rank", lambda e: tf.concat([e.x, e.u], 0), ["(?, 3)"]),
    ("concat_dynamic_axis", lambda e: tf.concat([e.x, e.c], e.i), ["(?, ?)"]),
    ("concat_negative_axis", lambda e: tf.concat([e.c, e.c], -1), ["(2, 6)"]),
    ("stack", lambda e: tf.stack([e.x, e.c]), ["(2, 2, 3)"]),
    ("stack_axis1_unknown", lambda e: tf.stack([e.x, e.u], axis=1), ["(?, 2, 3)"]),
    ("stack_last", lambda e: tf.stack([e.c, e.c], axis=-1), ["(2, 3, 2)"]),
    ("unstack_axis1", lambda e: tf.unstack(e.x, axis=1), ["(?,)"] * 3),
    ("split", lambda e: tf.split(e.x, 3, axis=1), ["(?, 1)"] * 3),
    ("split_sizes", lambda e: tf.split(e.x, [1, 2], 1), ["(?, 1)", "(?, 2)"]),
    ("split_unknown_dim", lambda e: tf.split(e.x, 2, axis=0), ["(?, 3)"] * 2),
]


@pytest.mark.parametrize("build,expected", cases(STATIC_SHAPES))
def test_static_shapes_match_tf(env, build, expected):
    assert static_shapes(build(env)) == expected


GRAPH_ERRORS = [
    ("concat_rank", lambda e: tf.concat([e.x, e.x3], 0), ValueError,
     "Shape must be rank 2 but is rank 3"),
    ("concat_axis_range", lambda e: tf.concat([e.c, e.c], 2), ValueError,
     "Shape must be at least rank 3 but is rank 2"),
    ("concat_mismatch", lambda e: tf.concat([e.c, tf.zeros([2, 4])], 0), ValueError,
     "Dimension 0 in both shapes must be equal, but are 3 and 4. Shapes are [3] and [4]."),
    ("stack_mismatch", lambda e: tf.stack([e.c, tf.zeros([3, 3])]), ValueError,
     "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2,3] and [3,3].\n"
     "\tFrom merging shape 0 with other shapes."),
    ("stack_axis", lambda e: tf.stack([e.c, e.c], axis=3), ValueError,
     "Argument `axis` = 3 not in range [-3, 3)"),
    ("split_uneven", lambda e: tf.split(e.c, 4, axis=1), ValueError,
     "Dimension size must be evenly divisible by 4 but is 3\n\tNumber of ways to split should "
     "evenly divide the split dimension"),
    ("split_sizes", lambda e: tf.split(e.c, [1, 3], 1), ValueError,
     "can't split axis of size 3 into pieces of size [1,3]"),
    ("unstack_num", lambda e: tf.unstack(e.x), ValueError,
     "Cannot infer argument `num` from shape (?, 3)"),
    ("split_scalar_sizes", lambda e: tf.split(e.c, tf.constant(2), 1), ValueError,
     "Rank-0 tensors are not supported as the num_or_size_splits argument to split."),
    ("split_two_minus_one", lambda e: tf.split(e.c, [-1, -1], 1), ValueError,
     "size_splits can only have one -1"),
    ("concat_single_bad_axis", lambda e: tf.concat([e.c], [0]), ValueError,
     "Shape (1,) must have rank 0"),
]


@pytest.mark.parametrize("build,cls,message", cases(GRAPH_ERRORS))
def test_graph_time_errors(env, build, cls, message):
    with raises(cls, message):
        build(env)


F23 = np.zeros([2, 3], np.float32)
RUN_ERRORS = [
    ("concat_mismatch", lambda p, q: tf.concat([p, q], 0), [F23, np.zeros([2, 4], np.float32)],
     "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. shape[1] = "
     "[2,4]"),
    ("concat_rank", lambda p, q: tf.concat([p, q], 0), [F23, np.zeros([2], np.float32)],
     "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. shape[1] = [2]"),
    ("concat_axis", lambda p, a: tf.concat([p, p], a), [F23, np.int32(2)],
     "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2"),
    ("pack_mismatch", lambda p, q: tf.stack([p, q]), [np.zeros([2], np.float32),
                                                      np.zeros([3], np.float32)],
     "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]"),
    ("split_uneven", lambda p: tf.split(p, 2, axis=1), [F23],
     "Number of ways to split should evenly divide the split dimension, but got split_dim 1 "
     "(size = 3) and num_split 2"),
    ("split_v", lambda p, s: tf.split(p, s, axis=1, num=2), [F23, np.array([1, 3], np.int32)],
     "Determined shape must either match input shape along split_dim exactly if fully "
     "specified, or be less than the size of the input along split_dim if not fully specified."
     "  Got: 4"),
    ("unpack_num", lambda p: tf.unstack(p, num=3), [F23],
     "Input shape axis 0 must equal 3, got shape [2,3]"),
]


@pytest.mark.parametrize("build,values,message", cases(RUN_ERRORS))
def test_run_time_errors(build, values, message):
    assert_run_error(build, values, message)


def test_op_names_like_tf(env):
    cat = tf.concat([env.x, env.x], 0)
    assert cat.op.type == "ConcatV2" and cat.op.inputs[-1].op.name == "concat/axis"
    single = tf.concat([env.x], 0)
    assert (single.op.name, single.op.type) == ("concat_1/concat", "Identity")
    assert [o.name for o in env.g.get_operations()][-2:] == ["concat_1/concat_dim",
                                                              "concat_1/concat"]
    st = tf.stack([env.x, env.x])
    assert (st.op.name, st.op.type) == ("stack", "Pack")
    sv = tf.split(env.c, [1, -1], axis=1)
    assert sv[0].op.type == "SplitV" and sv[0].op.inputs[1].op.name == "Const"
    assert tf.split(env.c, 3, axis=1)[0].op.inputs[0].op.name == "split_1/split_dim"
    assert pack is tf.stack and unpack is tf.unstack
