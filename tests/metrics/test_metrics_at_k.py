"""Cases of TF's metrics_test for the ranking metrics (precision/recall at k, average
precision at k), table-driven; TensorFlow's own values are compared in
test_metrics_at_k_tf_interop.py."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

_SCORES = [[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4]]
_AP_SCORES = [[0.2, 0.1, 0.0, 0.4, 0.0, 0.5, 0.3]]


def L(ids):  # noqa: N802 - class ids are int64, as TF's tests give them
    return np.array(ids, np.int64)


def T(ids):  # noqa: N802 - top-k ids as a tensor (TF reads their static shape)
    return tf.constant(ids, tf.int32)

# (metric factory, expected value after one update)
_CASES = [
    (lambda: tf.metrics.precision_at_k(L([[3], [3]]), _SCORES, 1), 1.0),
    (lambda: tf.metrics.precision_at_k(L([[3], [3]]), _SCORES, 2), 0.5),
    (lambda: tf.metrics.precision_at_k(L([3, 3]), _SCORES, 2, class_id=3), 1.0),
    (lambda: tf.metrics.precision_at_k(L([3, 3]), _SCORES, 2, class_id=2), 0.0),
    (lambda: tf.metrics.precision_at_k(L([3, 3]), _SCORES, 2, class_id=0), np.nan),
    (lambda: tf.metrics.recall_at_k(L([[3], [3]]), _SCORES, 1), 1.0),
    (lambda: tf.metrics.recall_at_k(L([[0], [1]]), _SCORES, 2), 0.0),
    (lambda: tf.metrics.recall_at_k(L([[0, 3], [1, 3]]), _SCORES, 2, weights=[0.0, 1.0]),
     0.5),
    # Dense labels are sets: -1 is one more (never predicted) label, as in TF.
    (lambda: tf.metrics.recall_at_top_k(L([[3, 2], [1, -1]]), T([[3, 1], [3, 2]])), 0.25),
    (lambda: tf.metrics.precision_at_top_k(L([[3, 2], [1, -1]]), T([[3, 1], [3, 2]]), k=2),
     0.25),
    (lambda: tf.metrics.sparse_precision_at_k(
        tf.SparseTensorValue([[0, 0], [1, 0]], np.array([3, 1], np.int64), [2, 1]),
        _SCORES, 1), 0.5),
    (lambda: tf.metrics.average_precision_at_k(L([[0, 4, 5]]), _AP_SCORES, 1), 1.0),
    (lambda: tf.metrics.average_precision_at_k(L([[0, 4, 5]]), _AP_SCORES, 2), 0.5),
    (lambda: tf.metrics.average_precision_at_k(L([[0, 4, 5]]), _AP_SCORES, 3), 1 / 3),
    (lambda: tf.metrics.average_precision_at_k(L([[0, 4, 5]]), _AP_SCORES, 4), 0.5),
    (lambda: tf.metrics.sparse_average_precision_at_k(L([[0, 4, 5, 99]]), _AP_SCORES, 4),
     0.5),
    (lambda: tf.metrics.average_precision_at_k(L([[0, 4, 5]]), _AP_SCORES, 4, weights=[0.0]),
     0.0),
]


@pytest.mark.parametrize("case", range(len(_CASES)))
def test_tf_cases(case):
    make, want = _CASES[case]
    with tf.Graph().as_default():
        value, update = make()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            first = sess.run(update)
            after = sess.run(value)
    np.testing.assert_allclose([first, after], [want, want], rtol=1e-12, equal_nan=True)


def test_local_variables_and_collections():
    with tf.Graph().as_default():
        tf.metrics.recall_at_k(L([[3]]), [_SCORES[0]], 2, metrics_collections=["m"],
                               updates_collections=["u"])
        tf.metrics.average_precision_at_k(L([[3]]), [_SCORES[0]], 2, name="ap")
        assert [v.op.name for v in tf.local_variables()] == [
            "recall_at_2/true_positive_at_2", "recall_at_2/false_negative_at_2",
            "ap/max_1", "ap/total"]  # TF's: "ap/Max" (the labels' max) took "max"
        assert tf.get_collection(tf.GraphKeys.METRIC_VARIABLES) == tf.local_variables()
        assert [t.op.name for t in tf.get_collection("m")] == ["recall_at_2"]
        assert [t.op.name for t in tf.get_collection("u")] == ["recall_at_2/update"]
        assert all(v.dtype.base_dtype == tf.float64 for v in tf.local_variables())


@pytest.mark.parametrize("build,match", [
    (lambda: tf.metrics.average_precision_at_k(L([[1]]), _SCORES[:1], 0), "Invalid k"),
    (lambda: tf.metrics.recall_at_top_k(L([[[1]]]), T([[1, 2]])), "Unexpected labels shape"),
    (lambda: tf.metrics.precision_at_k(L([[[[1]]]]), _SCORES, 1), "Unexpected labels shape"),
])
def test_bad_arguments(build, match):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=match):
            build()
