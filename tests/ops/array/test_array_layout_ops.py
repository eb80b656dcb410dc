"""Tile, Pad, PadV2, MirrorPad, Transpose, ReverseV2 and ReverseSequence: static shapes,
op structure and errors as TensorFlow 2.21 gives them (every expectation below was
produced by TF in a TF 2.21 environment)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from op_checks import assert_run_error, cases, raises, static_shapes


STATIC_SHAPES = [
    ("transpose_perm", lambda e: tf.transpose(e.x3, [2, 0, 1]), ["(3, ?, 2)"]),
    ("transpose_unknown_rank", lambda e: tf.transpose(e.u), ["<unknown>"]),
    ("transpose_dynamic_perm", lambda e: tf.transpose(e.x3, e.iv), ["(?, ?, ?)"]),
    ("tile", lambda e: tf.tile(e.x, [2, 3]), ["(?, 9)"]),
    ("tile_partial_multiples", lambda e: tf.tile(e.x, [e.i, 3]), ["(?, 9)"]),
    ("tile_dynamic", lambda e: tf.tile(e.x, e.iv), ["(?, ?)"]),
    ("pad", lambda e: tf.pad(e.x, [[1, 2], [3, 4]]), ["(?, 10)"]),
    ("pad_dynamic", lambda e: tf.pad(e.x, tf.placeholder(tf.int32, [2, 2])), ["(?, ?)"]),
    ("reverse", lambda e: tf.reverse(e.x, [1]), ["(?, 3)"]),
    ("reverse_sequence", lambda e: tf.reverse_sequence(e.c, [1, 2], seq_axis=1, batch_axis=0),
     ["(2, 3)"]),
]


@pytest.mark.parametrize("build,expected", cases(STATIC_SHAPES))
def test_static_shapes_match_tf(env, build, expected):
    assert static_shapes(build(env)) == expected


GRAPH_ERRORS = [
    ("pad_mode", lambda e: tf.pad(e.c, [[0, 0], [0, 0]], "WRAP"), ValueError,
     'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
     "Received `mode` = WRAP"),
    ("pad_negative", lambda e: tf.pad(e.c, [[-1, 0], [0, 0]]), ValueError,
     "Paddings must be non-negative"),
    ("transpose_perm", lambda e: tf.transpose(e.c, [0, 2]), ValueError,
     "perm dim 2 is out of range of input rank 2"),
    ("tile_rank", lambda e: tf.tile(e.c, [1, 2, 3]), ValueError,
     "Shape must be rank 2 but is rank 3"),
]


@pytest.mark.parametrize("build,cls,message", cases(GRAPH_ERRORS))
def test_graph_time_errors(env, build, cls, message):
    with raises(cls, message):
        build(env)


F23 = np.zeros([2, 3], np.float32)
RUN_ERRORS = [
    ("transpose_missing", lambda p, q: tf.transpose(p, q), [F23, np.array([0, 0], np.int32)],
     "1 is missing from {0,0}."),
    ("transpose_size", lambda p, q: tf.transpose(p, q), [F23, np.array([0, 1, 2], np.int32)],
     "transpose expects a vector of size 2. But input(1) is a vector of size 3"),
    ("tile_length", lambda p, m: tf.tile(p, m), [F23, np.array([1], np.int32)],
     "Expected multiples argument to be a vector of length 2 but got length 1"),
    ("tile_negative", lambda p, m: tf.tile(p, m), [F23, np.array([1, -1], np.int32)],
     "Expected multiples[1] >= 0, but got -1"),
    ("pad_negative", lambda p, q: tf.pad(p, q), [F23, np.array([[-1, 0], [0, 0]], np.int32)],
     "Paddings must be non-negative: -1 0"),
    ("pad_rank", lambda p, q: tf.pad(p, q), [F23, np.array([[1, 0]], np.int32)],
     "The first dimension of paddings must be the rank of inputs[1,2] [2,3]"),
    ("reflect_too_big", lambda p, q: tf.pad(p, q, "REFLECT"),
     [F23, np.array([[2, 0], [0, 0]], np.int32)],
     "paddings must be less than the dimension size: 2, 0 not less than 2"),
    ("symmetric_too_big", lambda p, q: tf.pad(p, q, "SYMMETRIC"),
     [F23, np.array([[3, 0], [0, 0]], np.int32)],
     "paddings must be no greater than the dimension size: 3, 0 greater than 2"),
    ("reverse_twice", lambda p, a: tf.reverse(p, a), [F23, np.array([0, 0], np.int32)],
     "axis 0 specified more than once."),
    ("reverse_range", lambda p, a: tf.reverse(p, a), [F23, np.array([2], np.int32)],
     "'axis'[0] = 2 is out of valid range [0, 1"),
    ("reverse_sequence_length", lambda p: tf.reverse_sequence(p, [1, 4], seq_axis=1,
                                                              batch_axis=0),
     [np.arange(6).reshape(2, 3)], "seq_lens(1) > input.dims(1)"),
]


@pytest.mark.parametrize("build,values,message", cases(RUN_ERRORS))
def test_run_time_errors(build, values, message):
    assert_run_error(build, values, message)


def test_op_names_like_tf(env):
    assert tf.transpose(env.c).op.inputs[1].op.name == "transpose/perm"
    assert tf.pad(env.c, [[1, 1], [0, 0]]).op.type == "Pad"
    assert tf.pad(env.c, [[1, 1], [0, 0]], constant_values=3.).op.type == "PadV2"
    assert tf.pad(env.c, [[1, 1], [0, 0]], "reflect").op.type == "MirrorPad"
    assert tf.reverse(env.c, [0]).op.type == "ReverseV2"


def test_transpose_of_unknown_rank_builds_range(env):
    t = tf.transpose(env.u)
    types_ = [o.type for o in env.g.get_operations() if o.name.startswith("transpose")]
    assert types_ == ["Rank", "Const", "Sub", "Const", "Const", "Range", "Transpose"]
    with tf.Session() as sess:
        got = sess.run(t, {env.u: np.arange(6, dtype=np.float32).reshape(1, 2, 3)})
    assert got.shape == (3, 2, 1)
