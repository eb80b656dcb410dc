"""SdcaOptimizer / SdcaOptimizerV2 against TensorFlow 2.21's example state data and weight
deltas (recorded by data/gen_sdca_reference.py; live with TRAINFLOW_TF_PYTHON), TF's
argument errors, and SDCA converging over repeated passes."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.ops.state.sdca_optimizer import sdca_optimizer_v2
from tf_interop import needs_tf, run_python

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(_DATA, "sdca_reference.json")) as _f:
    REFERENCE = json.load(_f)


def _run_case(case):
    sp, dn = case["sparse"], case["dense"]
    args = dict(
        sparse_example_indices=[np.int64(s["example_indices"]) for s in sp],
        sparse_feature_indices=[np.int64(s["feature_indices"]) for s in sp],
        sparse_feature_values=[np.float32(s["values"]) for s in sp if s["values"] is not None],
        dense_features=[np.float32(d["features"]) for d in dn],
        example_weights=np.float32(case["example_weights"]),
        example_labels=np.float32(case["example_labels"]),
        sparse_indices=[np.int64(s["indices"]) for s in sp],
        sparse_weights=[np.float32(s["weights"]) for s in sp],
        dense_weights=[np.float32(d["weights"]) for d in dn],
        example_state_data=np.float32(case["state"]), loss_type=case["loss_type"],
        l1=case["l1"], l2=case["l2"], num_loss_partitions=case["num_loss_partitions"],
        num_inner_iterations=1)
    with tf.Graph().as_default():
        if case["op"] == "SdcaOptimizer":
            out = tf.train.sdca_optimizer(adaptative=case["adaptive"], **args)
        else:
            out = sdca_optimizer_v2(adaptive=case["adaptive"], **args)
        assert out.out_example_state_data.op.type == case["op"]
        with tf.Session() as sess:
            return sess.run(out)


def _check(case, expected):
    state, dsp, ddn = _run_case(case)
    np.testing.assert_allclose(state, np.float32(expected["state"]), rtol=2e-6, atol=1e-7)
    for got, want in zip(dsp + ddn, expected["delta_sparse"] + expected["delta_dense"]):
        np.testing.assert_allclose(got, np.float32(want), rtol=2e-6, atol=1e-7)
    assert len(dsp) == len(expected["delta_sparse"]) and len(ddn) == len(expected["delta_dense"])


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: c["name"])
def test_matches_tensorflow(case):
    _check(case, case["expected"])


@needs_tf
def test_matches_live_tensorflow():
    run_script = ("import runpy, sys; sys.argv = sys.argv[1:]; "
                  "runpy.run_path(sys.argv[0], run_name='__main__')")
    script = os.path.join(_DATA, "gen_sdca_reference.py")
    live = json.loads(run_python(run_script, script, "--stdout").strip().splitlines()[-1])
    for case in live["cases"]:
        _check(case, case["expected"])
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.train.sdca_fprint(live["fprint"]["inputs"]))
    np.testing.assert_array_equal(got, np.int64(live["fprint"]["expected"]))


def _graph_op(adaptive=True, **overrides):
    args = dict(sparse_example_indices=[], sparse_feature_indices=[],
                sparse_feature_values=[], dense_features=[np.float32([[1, 2], [3, 4]])],
                example_weights=np.float32([1, 1]), example_labels=np.float32([0, 1]),
                sparse_indices=[], sparse_weights=[], dense_weights=[np.float32([[0], [0]])],
                example_state_data=np.zeros((2, 4), np.float32), loss_type="logistic_loss",
                l1=0.0, l2=1.0, num_loss_partitions=1, num_inner_iterations=1)
    args.update(overrides)
    return tf.train.sdca_optimizer(adaptative=adaptive, **args)


def test_op_signature_shapes_and_no_gradient():
    with tf.Graph().as_default():
        w = tf.placeholder(tf.float32, [5])
        out = _graph_op(dense_weights=[np.float32([[0], [0]])],
                        sparse_example_indices=[np.int64([0])],
                        sparse_feature_indices=[np.int64([3])],
                        sparse_indices=[tf.constant([3, 4, 5, 6, 7], tf.int64)],
                        sparse_weights=[w])
        op = out.out_example_state_data.op
        assert op.type == "SdcaOptimizer" and op.get_attr("adaptative") is True
        assert op.get_attr("num_sparse_features") == 1
        assert op.get_attr("num_sparse_features_with_values") == 0
        assert op.get_attr("num_dense_features") == 1
        assert out.out_example_state_data.shape.as_list() == [None, 4]
        assert out.out_delta_sparse_weights[0].shape.as_list() == [5]
        assert out.out_delta_dense_weights[0].shape.as_list() == [2, 1]
        assert registry.get("SdcaOptimizer").gradient is None
        assert registry.get("SdcaOptimizerV2").gradient is None
        with pytest.raises(ValueError):
            _graph_op(loss_type="absolute_loss")


@pytest.mark.parametrize("overrides, message", [
    (dict(example_labels=np.float32([0, 2])), "Only labels of 0.0 or 1.0 are supported"),
    (dict(loss_type="poisson_loss", example_labels=np.float32([-1, 1])),
     "Only non-negative labels can be used with the Poisson log loss"),
    (dict(example_state_data=np.zeros((3, 4), np.float32)),
     "Expected shape [2,4] for example_state_data, got [3,4]"),
    (dict(example_labels=np.float32([0, 1, 1])), "Expected 2 example labels but got 3"),
    (dict(dense_features=[np.float32([[1, 2, 3], [3, 4, 5]])]),
     "More dense features than we have parameters for: 3"),
    (dict(dense_features=[], dense_weights=[], sparse_example_indices=[np.int64([0, 1])],
          sparse_feature_indices=[np.int64([0, 9])], sparse_indices=[np.int64([0, 1])],
          sparse_weights=[np.float32([0, 0])]),
     "Found sparse feature indices out of valid range: 9"),
    (dict(dense_features=[], dense_weights=[], sparse_example_indices=[np.int64([0, 0])],
          sparse_feature_indices=[np.int64([1, 1])], sparse_indices=[np.int64([0, 1])],
          sparse_weights=[np.float32([0, 0])]), "Duplicate index in sparse vector."),
    (dict(dense_features=[], dense_weights=[]), "Requires at least one feature to train."),
])
def test_errors_as_tensorflow(overrides, message):
    with tf.Graph().as_default():
        out = _graph_op(**overrides)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(out)
    assert message in str(info.value)


def _train(loss_type, labels, adaptive, passes, l1=0.0, l2=0.5):
    """Repeated SDCA passes over a separable problem, applying the deltas each time as
    TF's SdcaModel does: returns the final dense weights and the state data."""
    rng = np.random.RandomState(3)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.Variable(tf.zeros([3, 1]))
        state = tf.Variable(tf.zeros([16, 4]))
        out = tf.train.sdca_optimizer(
            [], [], [], [x], np.ones(16, np.float32), labels, [], [], [w.value()],
            state.value(), loss_type=loss_type, l1=l1, l2=l2, num_loss_partitions=1,
            num_inner_iterations=1, adaptative=adaptive)
        step = tf.group(w.assign_add(out.out_delta_dense_weights[0]),
                        state.assign(out.out_example_state_data))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(passes):
                sess.run(step)
            return x, sess.run(w), sess.run(state)


@pytest.mark.parametrize("loss_type", ["logistic_loss", "hinge_loss", "smooth_hinge_loss"])
@pytest.mark.parametrize("adaptive", [False, True])
def test_converges_on_separable_problem(loss_type, adaptive):
    rng = np.random.RandomState(3)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    labels = (x @ np.float32([1.0, -2.0, 0.5]) > 0).astype(np.float32)
    x, w, state = _train(loss_type, labels, adaptive, passes=30)
    assert np.all(((x @ w)[:, 0] > 0) == (labels > 0))
    # Duality gap: the primal loss sum and the negated dual loss sum meet at the optimum.
    primal = state[:, 1].sum() + 0.5 * 0.5 * float(np.sum(w * w))
    dual = -state[:, 2].sum() - 0.5 * 0.5 * float(np.sum(w * w))
    assert primal - dual < 0.2 * max(1.0, abs(primal))


def test_squared_loss_reaches_ridge_solution():
    rng = np.random.RandomState(3)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = (x @ np.float32([1.0, -2.0, 0.5]) + 0.1).astype(np.float32)
    x, w, _ = _train("squared_loss", y, False, passes=60, l2=0.5)
    # min sum (xw - y)^2 / 2 + l2/2 |w|^2  ->  (X'X + l2 I) w = X'y
    want = np.linalg.solve(x.T @ x + 0.5 * np.eye(3), x.T @ y)
    np.testing.assert_allclose(w[:, 0], want, rtol=1e-3, atol=1e-3)
