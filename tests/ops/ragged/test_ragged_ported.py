"""Cases ported from TensorFlow's ragged tests (ragged_range_op_test.py,
string_ngrams_op_test.py, ragged_constant_value_op_test.py, ragged_tensor_test.py), and
RaggedTensor's Session.run support: fetching gives a RaggedTensorValue, a ragged
placeholder is fed one; gradients through the ragged conversion ops."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors


def _run(x, feed=None):
    with tf.Session() as sess:
        return sess.run(x, feed)


def _as_list(v):
    return v.to_list() if hasattr(v, "to_list") else np.asarray(v).tolist()


# -- ragged_range_op_test -------------------------------------------------------------------
RANGE_CASES = [
    (([3, 5, 2],), {}, [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]),
    (([0, 5, 8], [3, 3, 12]), {}, [[0, 1, 2], [], [8, 9, 10, 11]]),
    (([0, 5, 8], [3, 3, 12], 2), {}, [[0, 2], [], [8, 10]]),
    (([0, 3, 5],), {}, [list(range(0)), list(range(3)), list(range(5))]),
    (([0, 3, 5], [2, 3, 10]), {}, [list(range(0, 2)), [], list(range(5, 10))]),
    (([0, 3, 5], [4, 4, 15], [2, 3, 4]), {}, [[0, 2], [3], [5, 9, 13]]),
    (([0, 3, 5],), {"limits": 0, "deltas": -1}, [[], [3, 2, 1], [5, 4, 3, 2, 1]]),
    (([0, -3, 5],), {"limits": 0, "deltas": [-1, 1, -2]}, [[], [-3, -2, -1], [5, 3, 1]]),
    (([0, 3, 5], [4, 4, 15], 3), {}, [[0, 3], [3], [5, 8, 11, 14]]),
    ((0, 5, 1), {}, [[0, 1, 2, 3, 4]]),
    (([0, 5, 3], [0, 3, 5]), {}, [[], [], [3, 4]]),
    (([0, 5, 5], [0, 3, 5], -1), {}, [[], [5, 4], []]),
]


@pytest.mark.parametrize("args,kwargs,expected", RANGE_CASES)
def test_range(args, kwargs, expected):
    with tf.Graph().as_default():
        assert _run(tf.ragged.range(*args, **kwargs)).to_list() == expected


def test_range_floats_and_shapes():
    with tf.Graph().as_default():
        rt = tf.ragged.range([0.0, 3.0, 5.0], [3.9, 4.0, 15.0], [0.4, 1.5, 2.2])
        got = [[round(v, 5) for v in row] for row in _run(rt).to_list()]
        assert got == [[0.0, 0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 3.2, 3.6], [3.0],
                       [5.0, 7.2, 9.4, 11.6, 13.8]]
        assert tf.ragged.range(0, 0, 1).shape.as_list() == [1, None]
        assert tf.ragged.range([1, 2, 3]).shape.as_list() == [3, None]
        assert tf.ragged.range([1, 2, 3], [4, 5, 6]).shape.as_list() == [3, None]


@pytest.mark.parametrize("args", [([[0]], 5), (0, [[5]]), (0, 5, [[0]]), ([0], [1, 2])])
def test_range_shape_errors(args):
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.ragged.range(*args)


def test_range_zero_delta():
    with tf.Graph().as_default(), pytest.raises(errors.InvalidArgumentError,
                                                match="Requires delta != 0"):
        _run(tf.ragged.range(0, 0, 0))


# -- string_ngrams_op_test ------------------------------------------------------------------
_D = [[b"aa", b"bb", b"cc", b"dd"], [b"ee", b"ff"]]
_P = [[b"a"], [b"b", b"c", b"d"], [b"e", b"f"]]
_LP = (b"LP", b"RP")
_DENSE = [[b"LP|LP|a", b"LP|a|z", b"a|z|RP", b"z|RP|RP"],
          [b"LP|LP|b", b"LP|b|", b"b||RP", b"|RP|RP"],
          [b"LP|LP|e", b"LP|e|f", b"e|f|RP", b"f|RP|RP"]]
NGRAM_CASES = [
    ("unpadded", _D, dict(ngram_width=3), [[b"aa|bb|cc", b"bb|cc|dd"], []]),
    ("tuple_multi", _D, dict(ngram_width=(2, 3)),
     [[b"aa|bb", b"bb|cc", b"cc|dd", b"aa|bb|cc", b"bb|cc|dd"], [b"ee|ff"]]),
    ("inverted_order", _D, dict(ngram_width=(3, 2)),
     [[b"aa|bb|cc", b"bb|cc|dd", b"aa|bb", b"bb|cc", b"cc|dd"], [b"ee|ff"]]),
    ("list_multi", _D, dict(ngram_width=[2, 3]),
     [[b"aa|bb", b"bb|cc", b"cc|dd", b"aa|bb|cc", b"bb|cc|dd"], [b"ee|ff"]]),
    ("fully_padded", _P, dict(ngram_width=3, pad_values=_LP),
     [[b"LP|LP|a", b"LP|a|RP", b"a|RP|RP"],
      [b"LP|LP|b", b"LP|b|c", b"b|c|d", b"c|d|RP", b"d|RP|RP"],
      [b"LP|LP|e", b"LP|e|f", b"e|f|RP", b"f|RP|RP"]]),
    ("padding_size_cap", _P, dict(ngram_width=3, pad_values=_LP, padding_width=10),
     [[b"LP|LP|a", b"LP|a|RP", b"a|RP|RP"],
      [b"LP|LP|b", b"LP|b|c", b"b|c|d", b"c|d|RP", b"d|RP|RP"],
      [b"LP|LP|e", b"LP|e|f", b"e|f|RP", b"f|RP|RP"]]),
    ("singly_padded", _P, dict(ngram_width=5, pad_values=_LP, padding_width=1),
     [[], [b"LP|b|c|d|RP"], []]),
    ("preserve_short", _P, dict(ngram_width=5, pad_values=_LP, padding_width=1,
                                preserve_short_sequences=True),
     [[b"LP|a|RP"], [b"LP|b|c|d|RP"], [b"LP|e|f|RP"]]),
    ("singly_padded_multiple", _P, dict(ngram_width=(1, 5), pad_values=_LP, padding_width=1),
     [[b"a"], [b"b", b"c", b"d", b"LP|b|c|d|RP"], [b"e", b"f"]]),
    ("single_padding_string", _P, dict(ngram_width=5, pad_values=b"[PAD]", padding_width=1),
     [[], [b"[PAD]|b|c|d|[PAD]"], []]),
    ("explicit_multiply_padded", [[b"a"]], dict(ngram_width=5, pad_values=_LP,
                                                padding_width=2), [[b"LP|LP|a|RP|RP"]]),
    ("multiple_ragged_dims", [[[_D[0]], [_D[1]]]], dict(ngram_width=3),
     [[[[b"aa|bb|cc", b"bb|cc|dd"]], [[]]]]),
    ("multiple_ragged_dims_preserve", [[[_D[0]], [_D[1]]]],
     dict(ngram_width=3, preserve_short_sequences=True),
     [[[[b"aa|bb|cc", b"bb|cc|dd"]], [[b"ee|ff"]]]]),
    ("multiple_ragged_dims_bigrams", [[[_D[0]], [_D[1]]]], dict(ngram_width=2),
     [[[[b"aa|bb", b"bb|cc", b"cc|dd"]], [[b"ee|ff"]]]]),
    ("multiple_ragged_dims_multiple_ngrams", [[[_D[0]], [_D[1]]]], dict(ngram_width=(3, 4)),
     [[[[b"aa|bb|cc", b"bb|cc|dd", b"aa|bb|cc|dd"]], [[]]]]),
    ("dense_multiple_ngrams", [[b"a", b"b", b"c", b"d"], [b"e", b"f", b"g", b"h"]],
     dict(ngram_width=(1, 2, 3)),
     [[b"a", b"b", b"c", b"d", b"a|b", b"b|c", b"c|d", b"a|b|c", b"b|c|d"],
      [b"e", b"f", b"g", b"h", b"e|f", b"f|g", b"g|h", b"e|f|g", b"f|g|h"]]),
]


@pytest.mark.parametrize("name,data,kwargs,expected", NGRAM_CASES,
                         ids=[c[0] for c in NGRAM_CASES])
def test_ngrams_ragged(name, data, kwargs, expected):
    with tf.Graph().as_default():
        out = tf.strings.ngrams(tf.ragged.constant(data), separator=b"|", **kwargs)
        assert _as_list(_run(out)) == expected


def test_ngrams_dense_inputs_stay_dense():
    with tf.Graph().as_default():
        for data in ([[b"a", b"z"], [b"b", b""], [b"e", b"f"]],
                     tf.constant([[b"a", b"z"], [b"b", b""], [b"e", b"f"]])):
            out = tf.strings.ngrams(data, 3, separator=b"|", pad_values=_LP)
            assert isinstance(out, tf.Tensor) and _as_list(_run(out)) == _DENSE
        rank3 = tf.constant([[[b"a", b"z"], [b"b", b""]], [[b"b", b""], [b"e", b"f"]]])
        out = tf.strings.ngrams(rank3, 3, separator=b"|", pad_values=_LP)
        assert _as_list(_run(out)) == [[_DENSE[0], _DENSE[1]], [_DENSE[1], _DENSE[2]]]
        vec = tf.strings.ngrams(tf.ragged.constant([b"a", b"z"]), 3, separator=b"|",
                                pad_values=_LP)
        assert _as_list(_run(vec)) == _DENSE[0]
        empty = _run(tf.strings.ngrams(tf.ragged.constant([[], [], []], dtype=tf.string),
                                       (1, 2)))
        assert empty.row_splits.tolist() == [0, 0, 0, 0] and empty.values.size == 0


@pytest.mark.parametrize("data,kwargs,exc,match", [
    ([b"a", b"z"], dict(ngram_width=2, pad_values=5), TypeError, "pad_values must be"),
    ([b"a", b"z"], dict(ngram_width=2, pad_values=[5, 3]), TypeError, "pad_values must be"),
    ([b"a", b"z"], dict(ngram_width=2, padding_width=0, pad_values="X"), ValueError,
     "padding_width must be greater than 0."),
    ([b"a", b"z"], dict(ngram_width=2, padding_width=1), ValueError,
     "pad_values must be provided if padding_width is set."),
    (b"hello", dict(ngram_width=2, padding_width=1, pad_values="X"), ValueError,
     "Data must have rank>0"),
    ([b"hello", b"world"], dict(ngram_width=[1, 2, -1], padding_width=1, pad_values="X"),
     ValueError, "All ngram_widths must be greater than 0. Got .*"),
])
def test_ngrams_errors(data, kwargs, exc, match):
    with tf.Graph().as_default(), pytest.raises(exc, match=match):
        tf.strings.ngrams(data, **kwargs)


# -- ragged_constant_value_op_test (a selection) --------------------------------------------
CONSTANT_VALUE_CASES = [
    (dict(pylist=[[b"a", b"b"], [b"c"]]), [[b"a", b"b"], [b"c"]], (2, None), 1),
    (dict(pylist=[[[1, 2], [3]], [[4, 5, 6]]]), [[[1, 2], [3]], [[4, 5, 6]]],
     (2, None, None), 2),
    (dict(pylist=[[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
     [[[1, 2], [3, 4]], [[5, 6]]], (2, None, 2), 1),
    (dict(pylist=[[[1, 2], [3, 4]], [[5, 6]]], inner_shape=(2,)),
     [[[1, 2], [3, 4]], [[5, 6]]], (2, None, 2), 1),
    (dict(pylist=[[], []], ragged_rank=1), [[], []], (2, None), 1),
    (dict(pylist=[[[], []]]), [[[], []]], (1, None, None), 2),
    (dict(pylist=[[1.5, 2.0]], dtype=np.float32), [[1.5, 2.0]], (1, None), 1),
]


@pytest.mark.parametrize("kwargs,expected,shape,ragged_rank", CONSTANT_VALUE_CASES)
def test_constant_value(kwargs, expected, shape, ragged_rank):
    v = tf.ragged.constant_value(**kwargs)
    assert isinstance(v, tf.ragged.RaggedTensorValue)
    assert (v.to_list(), v.shape, v.ragged_rank) == (expected, shape, ragged_rank)
    if "dtype" in kwargs:
        assert v.dtype == np.float32


@pytest.mark.parametrize("kwargs,match", [
    (dict(pylist=[[1, [2]]]), "all scalar values must have the same nesting depth"),
    (dict(pylist=[1, [2]]), "all scalar values must have the same nesting depth"),
    (dict(pylist=10, ragged_rank=1), "Invalid pylist=10: incompatible with ragged_rank=1"),
    (dict(pylist=[[1, 2]], ragged_rank=-1), "Invalid ragged_rank=-1: must be nonnegative"),
    (dict(pylist=[[[], []]], ragged_rank=1, inner_shape=(1,)), "cannot reshape array"),
])
def test_constant_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tf.ragged.constant_value(**kwargs)


def test_constant_value_of_a_scalar_is_an_array():
    assert tf.ragged.constant_value(5).tolist() == 5
    assert tf.ragged.constant_value([1, 2]).tolist() == [1, 2]


# -- RaggedTensor in Session.run ------------------------------------------------------------
def test_fetch_gives_ragged_tensor_values_in_structures():
    with tf.Graph().as_default():
        rt = tf.ragged.constant([[[1, 2]], [], [[3], [4, 5]]])
        out = _run({"rt": rt, "pair": (rt.values, rt.nrows())})
        v = out["rt"]
        assert isinstance(v, tf.ragged.RaggedTensorValue)
        assert v.to_list() == [[[1, 2]], [], [[3], [4, 5]]]
        assert [s.tolist() for s in v.nested_row_splits] == [[0, 1, 1, 3], [0, 2, 3, 5]]
        assert v.flat_values.tolist() == [1, 2, 3, 4, 5] and v.ragged_rank == 2
        assert v.values.to_list() == [[1, 2], [3], [4, 5]] and out["pair"][1] == 3
        assert str(v) == "<tf.RaggedTensorValue [[[1, 2]], [], [[3], [4, 5]]]>"


def test_feed_a_ragged_placeholder():
    with tf.Graph().as_default():
        p = tf.ragged.placeholder(tf.float32, 1, [2])
        assert [t.op.name for t in (p.flat_values, p.row_splits)] == \
            ["RaggedPlaceholder/flat_values", "RaggedPlaceholder/row_splits_0"]
        value = tf.ragged.constant_value([[[1, 2], [3, 4]], []], ragged_rank=1,
                                         dtype=np.float32)
        out = _run((p * 2).to_tensor(), {p: value})
        assert out.tolist() == [[[2, 4], [6, 8]], [[0, 0], [0, 0]]]
        with pytest.raises(TypeError, match="RaggedTensorValue"):
            _run(p.flat_values, {p: [[1.0, 2.0]]})
        assert tf.ragged.placeholder(tf.int32, 0, [3]).shape.as_list() == [3]


def test_constructor_is_private_and_to_list_is_eager_only():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="constructor is private"):
            tf.RaggedTensor(tf.constant([1]), tf.constant([0, 1], tf.int64))
        with pytest.raises(ValueError, match="eager mode"):
            tf.ragged.constant([[1]]).to_list()
        with pytest.raises(TypeError):
            tf.ragged.RaggedTensorValue([1, 2], np.array([0, 2]))


def test_ragged_tensor_value_checks_its_splits():
    with pytest.raises(TypeError, match="row_splits"):
        tf.ragged.RaggedTensorValue(np.array([1]), np.array([0.0, 1.0]))
    inner = tf.ragged.RaggedTensorValue(np.array([1]), np.array([0, 1], np.int32))
    with pytest.raises(ValueError, match="same dtype"):
        tf.ragged.RaggedTensorValue(inner, np.array([0, 1], np.int64))


# -- gradients ------------------------------------------------------------------------------
GRAD_CASES = [
    ("to_tensor", lambda v: tf.RaggedTensor.from_row_splits(v, [0, 2, 2, 5]).to_tensor(
        default_value=0.5), [5]),
    ("to_tensor_shape", lambda v: tf.RaggedTensor.from_row_splits(v, [0, 2, 5]).to_tensor(
        shape=[3, 2]), [5]),
    ("to_tensor_inner", lambda v: tf.RaggedTensor.from_row_splits(v, [0, 1, 3]).to_tensor(),
     [3, 2]),
    ("to_sparse", lambda v: tf.RaggedTensor.from_row_splits(v, [0, 1, 3]).to_sparse().values,
     [3, 2]),
    ("stack_axis1", lambda v: tf.ragged.stack([tf.RaggedTensor.from_row_splits(
        v, [0, 1, 3]), tf.RaggedTensor.from_row_splits(v * 2, [0, 2, 3])], axis=1).flat_values,
     [3]),
    ("fill_empty_rows", lambda v: tf.ragged_fill_empty_rows([0, 0, 3], v, 5, 1.5)
     .output_values, [3]),
]


@pytest.mark.parametrize("name,build,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, build, shape):
    with tf.Graph().as_default():
        v = tf.constant(np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape))
        y = build(v)
        with tf.Session():
            err = tf.test.compute_gradient_error(v, shape, y, _run(tf.shape(y)).tolist())
        assert err < 1e-6


def test_to_tensor_default_value_gradient():
    with tf.Graph().as_default():
        d = tf.constant(0.5, tf.float64)
        y = tf.RaggedTensor.from_row_splits(tf.constant([1.0, 2.0, 3.0], tf.float64),
                                            [0, 2, 2, 3]).to_tensor(default_value=d)
        g = tf.gradients(tf.reduce_sum(y * [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), d)[0]
        assert _run(g) == 3.0 + 4.0 + 6.0
