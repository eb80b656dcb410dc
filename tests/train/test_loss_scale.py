"""tf.train.experimental loss scaling against trajectories TF 2.21 recorded
(tests/train/data/loss_scale.json, written by gen_loss_scale.py beside it): dynamic scales
skip non-finite steps, halve and grow; a fixed scale lets Inf through, as in TF."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

with open(os.path.join(os.path.dirname(__file__), "data", "loss_scale.json")) as _f:
    DATA = json.load(_f)

GRADS = [[np.nan if v is None else v for v in g] for g in DATA["grads_per_step"]]
# The recorded nulls stand for Inf at step 2 and NaN at step 4.
GRADS[2][0] = np.inf


def _run(case):
    g = tf.Graph()
    with g.as_default():
        var = tf.Variable([1.0, 2.0], name="var")
        step = tf.train.get_or_create_global_step()
        grad = tf.placeholder(tf.float32, [2])
        cls = (tf.train.experimental.DynamicLossScale if case["loss_scale"] == "dynamic"
               else tf.train.experimental.FixedLossScale)
        loss_scale = cls(**case["loss_scale_kwargs"])
        opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
            getattr(tf.train, case["optimizer"])(**case["optimizer_kwargs"]), loss_scale)
        train = opt.minimize(tf.reduce_sum(var * grad), global_step=step)
        current = loss_scale()
        names = sorted(v.op.name for v in tf.global_variables())
        init = tf.global_variables_initializer()
    states = []
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for k in range(len(GRADS) + 1):
            states.append((sess.run(var), sess.run(step), sess.run(current)))
            if k < len(GRADS):
                sess.run(train, {grad: np.asarray(GRADS[k], np.float32)})
    return names, states, opt


@pytest.mark.parametrize("name", sorted(DATA["cases"]))
def test_matches_tensorflow(name):
    case = DATA["cases"][name]
    names, states, _ = _run(case)
    assert names == case["global_variables"]
    for exp, (var, step, scale) in zip(case["trajectory"], states):
        want = np.array([np.nan if v is None else v for v in exp["var"]], np.float32)
        np.testing.assert_allclose(var, want, rtol=2e-6)
        assert step == exp["global_step"] and scale == exp["loss_scale"]


def test_wrapper_api_and_errors():
    with tf.Graph().as_default():
        inner = tf.train.MomentumOptimizer(0.1, 0.9)
        opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(inner)
        assert isinstance(opt, tf.train.experimental.MixedPrecisionLossScaleOptimizer)
        assert isinstance(opt._loss_scale, tf.train.experimental.DynamicLossScale)
        assert opt._loss_scale.initial_loss_scale == 2 ** 15
        assert opt.get_name() == "Momentum"
        with pytest.raises(ValueError, match="must not already be an instance"):
            tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)
        tf.train.experimental.disable_mixed_precision_graph_rewrite()
        v = tf.Variable([1.0], name="v")
        opt.minimize(tf.reduce_sum(v))
        assert [x.op.name for x in opt.variables()] == [
            "v/Momentum", "current_loss_scale", "good_steps"]
    with pytest.raises(ValueError, match="must be an instance of Optimizer"):
        tf.train.experimental.MixedPrecisionLossScaleOptimizer(object(), 1)
    with pytest.raises(ValueError, match="loss_scale cannot be None"):
        tf.train.experimental.MixedPrecisionLossScaleOptimizer(inner, None)
    with pytest.raises(ValueError, match="Could not interpret loss scale identifier"):
        tf.train.experimental.MixedPrecisionLossScaleOptimizer(inner, "big")
    with pytest.raises(ValueError, match="at least 1"):
        tf.train.experimental.FixedLossScale(0.5)
    with pytest.raises(ValueError, match="Python int or float"):
        tf.train.experimental.FixedLossScale("8")
    assert repr(tf.train.experimental.FixedLossScale(8)) == "FixedLossScale(8.0)"
