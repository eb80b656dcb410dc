"""Reductions, arg-max/min, scans and counts: TF1 argument spellings, static
shapes, constant naming, TF's numeric rules (integer means, empty reductions,
NaN handling) and run-time axis errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)


@pytest.fixture
def g():
    with tf.Graph().as_default() as graph:
        yield graph


def _run(t, feed=None):
    with tf.Session(graph=t.graph if not isinstance(t, (list, tuple)) else t[0].graph) as s:
        return s.run(t, feed)


def test_axis_none_uses_a_const_of_all_axes(g):
    x = tf.placeholder(tf.float32, [2, 3])
    t = tf.reduce_sum(x)
    axes = t.op.inputs[1]
    assert (axes.op.name, axes.op.type) == ("Const", "Const")
    assert axes.op.get_attr("dtype") == tf.int32
    assert t.shape.as_list() == [] and _run(t, {x: X}) == X.sum()


def test_python_axis_is_converted_inside_the_op_scope(g):
    t = tf.reduce_sum(tf.constant(X), 1)
    assert t.op.inputs[1].op.name == "Sum/reduction_indices"
    assert t.op.get_attr("Tidx") == tf.int32 and t.op.get_attr("keep_dims") is False


@pytest.mark.parametrize("kwargs", [dict(axis=1), dict(reduction_indices=1),
                                    dict(axis=[1]), dict(reduction_indices=[-1])])
def test_axis_spellings(g, kwargs):
    t = tf.reduce_sum(tf.constant(X), **kwargs)
    assert t.shape.as_list() == [2]
    np.testing.assert_allclose(_run(t), X.sum(1))


@pytest.mark.parametrize("kwargs", [dict(keepdims=True), dict(keep_dims=True)])
def test_keepdims_spellings(g, kwargs):
    t = tf.reduce_max(tf.constant(X), 0, **kwargs)
    assert t.shape.as_list() == [1, 3]
    np.testing.assert_allclose(_run(t), X.max(0, keepdims=True))


def test_both_spellings_rejected(g):
    x = tf.constant(X)
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'."):
        tf.reduce_mean(x, axis=1, reduction_indices=1)
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'."):
        tf.reduce_mean(x, keepdims=True, keep_dims=False)
    with pytest.raises(ValueError, match="Cannot specify both 'dimension' and 'axis'."):
        tf.argmax(x, axis=1, dimension=1)


def test_int64_axis_tensor_sets_tidx(g):
    t = tf.reduce_mean(tf.constant(X), axis=tf.constant([0], tf.int64))
    assert t.op.get_attr("Tidx") == tf.int64
    assert t.shape.as_list() == [3]


def test_static_shapes_with_unknown_axis_or_dims(g):
    x = tf.placeholder(tf.float32, [None, 3])
    assert tf.reduce_sum(x, 0).shape.as_list() == [3]
    assert tf.reduce_sum(x, 1).shape.as_list() == [None]
    axis = tf.placeholder(tf.int32, [None])
    assert tf.reduce_sum(x, axis).shape.rank is None
    assert tf.reduce_sum(x, axis, keepdims=True).shape.as_list() == [None, None]
    # No axis and no keepdims: TF pins the result to a scalar even if the input rank is unknown.
    assert tf.reduce_sum(x).shape.as_list() == []


def test_unknown_rank_reduces_over_range_of_rank(g):
    x = tf.placeholder(tf.float32)
    t = tf.reduce_sum(x)
    assert t.op.inputs[1].op.type == "Range" and t.shape.as_list() == []
    assert _run(t, {x: X}) == X.sum()
    kept = tf.reduce_sum(x, keepdims=True)
    assert kept.shape.rank is None
    assert _run(kept, {x: X}).shape == (1, 1)


def test_shape_errors(g):
    x = tf.constant(X)
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 "
                                         "dimensions. for '{{node Sum}}"):
        tf.reduce_sum(x, 2)
    with pytest.raises(ValueError, match="Invalid reduction dimension -3 for input with 2 "
                                         "dimensions."):
        tf.reduce_sum(x, -3)
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.reduce_sum(x, [[1]])
    with pytest.raises(TypeError, match="Value passed to parameter 'reduction_indices' has "
                                        "DataType float32 not in list of allowed values: "
                                        "int32, int64"):
        tf.reduce_sum(x, 1.0)
    with pytest.raises(ValueError, match=r"Dimension \(2\) must be in the range \[-2, 2\), "
                                         r"where 2 is the number of dimensions in the input."):
        tf.argmax(x, 2)


@pytest.mark.parametrize("axis,message", [
    ([1, 1], "Invalid reduction arguments: Axes contains duplicate dimension: 1"),
    ([1, -1], "Invalid reduction arguments: Axes contains duplicate dimension: 1"),
    ([5], r"Invalid reduction dimension \(5 for input with 2 dimension\(s\)"),
])
def test_run_time_axis_errors(g, axis, message):
    a = tf.placeholder(tf.int32, [None])
    t = tf.reduce_sum(tf.constant(X), a)
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _run(t, {a: axis})


def test_integer_mean_truncates_toward_zero(g):
    got = _run([tf.reduce_mean(tf.constant([-1, -2])),
                tf.reduce_mean(tf.constant([1, 2, 2])),
                tf.reduce_mean(tf.constant([-3, -4, -4], tf.int64)),
                tf.reduce_mean(tf.constant([200, 200, 100], tf.uint8)),
                tf.reduce_mean(tf.constant([100, 100, 100], tf.int8)),
                tf.reduce_sum(tf.constant([200, 200, 100], tf.uint8))])
    assert [int(v) for v in got] == [-1, 1, -3, 166, 100, 244]
    assert [np.asarray(v).dtype for v in got] == [np.int32, np.int32, np.int64, np.uint8,
                                                  np.int8, np.uint8]


def test_empty_reductions_give_identities(g):
    e = tf.constant(np.zeros([0], np.float32))
    ei = tf.constant(np.zeros([0], np.int32))
    with np.errstate(all="ignore"):
        got = _run([tf.reduce_max(e), tf.reduce_min(e), tf.reduce_max(ei), tf.reduce_min(ei),
                    tf.reduce_prod(e), tf.reduce_sum(e), tf.reduce_mean(e),
                    tf.reduce_mean(ei), tf.reduce_all(tf.constant(np.zeros([0], bool))),
                    tf.reduce_any(tf.constant(np.zeros([0], bool)))])
    assert got[:4] == [-np.inf, np.inf, np.iinfo(np.int32).min, np.iinfo(np.int32).max]
    assert got[4:6] == [1.0, 0.0] and np.isnan(got[6]) and got[7] == 0
    assert got[8] is np.True_ and got[9] is np.False_


def test_half_precision_sums_accumulate_in_float32(g):
    x = tf.constant([1.0] + [2.0 ** -9] * 256, tf.bfloat16)
    got = _run([tf.reduce_sum(x), tf.reduce_mean(x)])
    assert float(got[0]) == 1.5
    np.testing.assert_allclose(float(got[1]), 1.5 / 257, rtol=1e-2)


def test_nan_propagates_through_max_and_min(g):
    x = tf.constant([1.0, np.nan, 2.0])
    got = _run([tf.reduce_max(x), tf.reduce_min(x)])
    assert np.isnan(got).all()


@pytest.mark.parametrize("values,argmax,argmin", [
    ([np.nan, 1.0], 1, 1), ([1.0, np.nan, 0.0], 0, 2), ([np.nan, np.nan], 0, 0),
    ([np.nan, -np.inf], 0, 1), ([3.0, 1.0, 3.0, 1.0], 0, 1),
])
def test_arg_reductions_skip_nan_like_tf(g, values, argmax, argmin):
    x = tf.constant(values, tf.float32)
    assert _run([tf.argmax(x), tf.argmin(x)]) == [argmax, argmin]


def test_argmax_spellings_and_types(g):
    x = tf.constant(X)
    assert tf.argmax(x).shape.as_list() == [3]
    assert tf.argmax(x, dimension=1).shape.as_list() == [2]
    t = tf.argmax(x, 1, output_type=tf.int32)
    assert t.dtype == tf.int32 and _run(t).tolist() == [2, 1]
    assert tf.argmax(x, 1).op.inputs[1].op.name.endswith("/dimension")
    assert tf.arg_min(x, 0).op.type == "ArgMin"
    assert tf.argmax(x, tf.placeholder(tf.int32)).shape.as_list() == [None]
    assert tf.argmax(tf.constant([1, 3, 2]), output_type=tf.int16).dtype == tf.int16
    assert _run(tf.argmax(tf.constant([False, True]))) == 1
    with pytest.raises(TypeError, match="axis must be int or Tensor with integer datatype"):
        tf.argmax(x, 1.5)


def test_argmax_run_time_errors(g):
    d = tf.placeholder(tf.int32, [])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Expected dimension in the range \[-2, 2\), but got 5"):
        _run(tf.argmax(tf.constant(X), d), {d: 5})
    e = tf.placeholder(tf.float32, [None])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Reduction axis 0 is empty in shape \[0\]"):
        _run(tf.argmax(e), {e: np.zeros([0], np.float32)})


def test_cumsum_and_cumprod_options(g):
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    got = _run([tf.cumsum(x, 1, exclusive=True, reverse=True),
                tf.cumprod(tf.constant([1.0, 2.0, 3.0]), exclusive=True),
                tf.cumsum(x, axis=-1), tf.cumprod(x, 0, exclusive=True, reverse=True),
                tf.cumsum(x, tf.constant(1, tf.int64))])
    assert got[0].tolist() == [[5, 3, 0], [11, 6, 0]]
    assert got[1].tolist() == [1.0, 1.0, 2.0]
    assert got[2].tolist() == [[1, 3, 6], [4, 9, 15]]
    assert got[3].tolist() == [[4, 5, 6], [1, 1, 1]]
    assert got[4].tolist() == [[1, 3, 6], [4, 9, 15]]
    t = tf.cumsum(tf.constant([1.0]))
    assert t.op.inputs[1].op.name == t.op.name + "/axis"


def test_cumsum_run_time_axis_error(g):
    a = tf.placeholder(tf.int32, [])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"ScanOp: Expected scan axis in the range \[-2, 2\), but got 5"):
        _run(tf.cumsum(tf.constant(X), a), {a: 5})


def test_count_nonzero_forms(g):
    t = tf.count_nonzero(tf.constant(X))
    assert (t.op.name, t.dtype) == ("count_nonzero/Sum", tf.int64)
    got = _run([t, tf.count_nonzero(tf.constant([["a", ""], ["", ""]]), 1),
                tf.count_nonzero(tf.constant([True, False, True])),
                tf.count_nonzero(tf.constant([[0, 1], [2, 3]]), axis=0, keepdims=True,
                                 dtype=tf.int32),
                tf.count_nonzero(input=tf.constant([0.0, 1.0]), reduction_indices=[0],
                                 keep_dims=True)])
    assert got[0] == 6 and got[1].tolist() == [1, 0] and got[2] == 2
    assert got[3].tolist() == [[1, 2]] and got[3].dtype == np.int32
    assert got[4].tolist() == [1]
    # bool inputs are counted directly, without comparing to zero.
    b = tf.count_nonzero(tf.constant([True]))
    assert "NotEqual" not in [op.type for op in b.graph.get_operations()
                              if op.name.startswith(b.op.name.split("/")[0] + "/")]


def test_reduce_logsumexp_matches_tf(g):
    x = tf.constant([[-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0]], tf.float32)
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) for the all -inf row
        got = _run(tf.reduce_logsumexp(x, axis=1))
    np.testing.assert_array_equal(got, [-np.inf, np.inf, np.nan])
    big = tf.constant([[1000.0, 1000.0]])
    np.testing.assert_allclose(_run(tf.reduce_logsumexp(big)), 1000.0 + np.log(2.0))
    t = tf.reduce_logsumexp(tf.constant(X), 1)
    assert t.op.name.startswith("ReduceLogSumExp") and t.op.type == "AddV2"
    kept = tf.reduce_logsumexp(tf.constant(X), keep_dims=True)
    assert kept.shape.as_list() == [1, 1]


def test_reduce_std_and_variance(g):
    x = tf.constant(X)
    got = _run([tf.math.reduce_variance(x), tf.math.reduce_std(x, 1, keepdims=True)])
    np.testing.assert_allclose(got[0], X.var(), rtol=1e-6)
    np.testing.assert_allclose(got[1], X.std(1, keepdims=True), rtol=1e-6)
    c = tf.constant([1 + 1j, 3 - 1j], tf.complex64)
    v = tf.math.reduce_variance(c)
    assert v.dtype == tf.float32 and abs(_run(v) - 2.0) < 1e-6
    with pytest.raises(TypeError, match="Input must be either real or complex. Received "
                                        "integer type"):
        tf.math.reduce_variance(tf.constant([1, 2]))


def test_reduce_euclidean_norm_ints_and_floats(g):
    got = _run([tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [6, 8]]), 1),
                tf.math.reduce_euclidean_norm(tf.constant(X))])
    assert got[0].tolist() == [5, 10]
    np.testing.assert_allclose(got[1], np.sqrt((X * X).sum()), rtol=1e-6)
