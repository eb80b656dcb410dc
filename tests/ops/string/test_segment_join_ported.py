"""tf.strings.unsorted_segment_join: the cases of TensorFlow's
unsorted_segment_join_op_test.py."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

_IN = [["Y", "q", "c"], ["Y", "6", "6"], ["p", "G", "a"]]


def _join(inputs, segment_ids, num_segments, separator):
    with tf.Graph().as_default():
        out = tf.strings.unsorted_segment_join(inputs=inputs, segment_ids=segment_ids,
                                               num_segments=num_segments,
                                               separator=separator)
        with tf.Session() as sess:
            return sess.run(out)


def _text(x):
    return np.vectorize(lambda v: v.decode())(np.asarray(x, dtype=object)) \
        if np.size(x) else np.asarray(x)


CASES = [
    ("basic", _IN, [1, 0, 1], 2, ":", [["Y", "6", "6"], ["Y:p", "q:G", "c:a"]]),
    ("empty", np.array([], dtype=np.bytes_), np.array([], np.int32), 3, ":", ["", "", ""]),
    ("int64_ids", _IN, np.array([1, 0, 1], np.int64), np.array(2, np.int64), ":",
     [["Y", "6", "6"], ["Y:p", "q:G", "c:a"]]),
    ("second_join", [["Y", "6", "6"], ["Y:p", "q:G", "c:a"]], [1, 1], 2, "",
     [["", "", ""], ["YY:p", "6q:G", "6c:a"]]),
    ("rank4", [[[["q"], ["s"]], [["f"], ["F"]], [["h"], ["0"]]],
               [[["E"], ["j"]], [["2"], ["k"]], [["N"], ["d"]]],
               [[["G"], ["M"]], [["1"], ["S"]], [["N"], ["7"]]],
               [[["8"], ["W"]], [["W"], ["G"]], [["j"], ["d"]]]], [1, 1, 0, 2], 3, ":",
     [[[["G"], ["M"]], [["1"], ["S"]], [["N"], ["7"]]],
      [[["q:E"], ["s:j"]], [["f:2"], ["F:k"]], [["h:N"], ["0:d"]]],
      [[["8"], ["W"]], [["W"], ["G"]], [["j"], ["d"]]]]),
    ("matrix_ids", [[["Q", "b"], ["c", "p"]], [["i", "9"], ["n", "b"]],
                    [["T", "h"], ["g", "z"]]], [[0, 1], [1, 0], [1, 0]], 2, ":",
     [["Q:n:g", "b:b:z"], ["c:i:T", "p:9:h"]]),
    ("rank3_ids", [[["Q", "b"], ["b", "p"]], [["i", "9"], ["n", "b"]],
                   [["T", "h"], ["g", "z"]]],
     [[[2, 1], [0, 0]], [[2, 0], [2, 2]], [[0, 2], [1, 0]]], 3, ":",
     ["b:p:9:T:z", "b:g", "Q:i:n:b:h"]),
    ("empty_segment", [[["z"], ["h"]], [["c"], ["z"]], [["V"], ["T"]]], [0, 1, 1], 3, ":",
     [[["z"], ["h"]], [["c:V"], ["z:T"]], [[""], [""]]]),
    ("sep_none", ["this", "is", "a", "test"], [0, 0, 0, 0], 1, "", ["thisisatest"]),
    ("sep_colon", ["this", "is", "a", "test"], [0, 0, 0, 0], 1, ":", ["this:is:a:test"]),
    ("sep_word", ["this", "is", "a", "test"], [0, 0, 0, 0], 1, "UNK",
     ["thisUNKisUNKaUNKtest"]),
]


@pytest.mark.parametrize("name,inputs,ids,n,sep,expected", CASES, ids=[c[0] for c in CASES])
def test_join(name, inputs, ids, n, sep, expected):
    out = _join(inputs, ids, n, sep)
    assert out.shape == np.array(expected).shape
    assert _text(out).tolist() == expected


@pytest.mark.parametrize("ids,n", [([1, 0, 1], 1), ([-1, 0, -1], 1)])
def test_ids_out_of_range(ids, n):
    with pytest.raises(errors.InvalidArgumentError):
        _join(_IN, ids, n, ":")


@pytest.mark.parametrize("inputs,ids", [(_IN, [1, 0, 1, 1]), (_IN, np.array([], np.int32)),
                                        (np.array([], dtype=np.bytes_), [1, 0, 1])])
def test_shapes_that_do_not_match(inputs, ids):
    with pytest.raises(ValueError):
        _join(inputs, ids, 2, ":")
