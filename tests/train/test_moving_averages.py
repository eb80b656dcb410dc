"""ExponentialMovingAverage and assign_moving_average against the trajectories TF 2.21
recorded (fixtures/clip_ema/ema.json): shadow names, variables_to_restore, num_updates,
zero-debiased tensors."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.train.moving_averages import assign_moving_average

from fixture_paths import FIXTURES

with open(os.path.join(FIXTURES, "clip_ema", "ema.json")) as _f:
    EMA = json.load(_f)


def _value(entry):
    return np.asarray(entry["value"], dtype=entry["dtype"])


def _compare(expected, sess, tensors):
    for name, entry in expected.items():
        if name == "step":
            continue
        got = sess.run(tensors[name])
        want = _value(entry)
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=name)


def test_plain():
    case = EMA["plain"]
    with tf.Graph().as_default():
        v1 = tf.Variable([1.0, 2.0], name="v1")
        v2 = tf.Variable(10.0, name="v2")
        # The recorded variables_to_restore() maps it to itself: made not trainable.
        not_averaged = tf.Variable(0, name="not_averaged", trainable=False)
        ema = tf.train.ExponentialMovingAverage(decay=0.9)
        apply = ema.apply([v1, v2])
        assert apply.type == "NoOp" and apply.name == "ExponentialMovingAverage"
        names = case["names"]
        assert ema.average_name(v1) == names["average_name(v1)"]
        assert ema.average(v1).op.name == names["average(v1).op.name"]
        assert ema.average_name(v2) == names["average_name(v2)"]
        assert ema.name == "ExponentialMovingAverage"
        assert {k: v.op.name for k, v in ema.variables_to_restore().items()} == \
            case["variables_to_restore"]
        assert {k: v.op.name for k, v in ema.variables_to_restore([v1]).items()} == \
            case["variables_to_restore(moving_avg_variables=[v1])"]
        assert tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES) == [v1, v2]
        tensors = {"v1": v1, "v2": v2, "not_averaged": not_averaged,
                   "v1/ExponentialMovingAverage": ema.average(v1),
                   "v2/ExponentialMovingAverage": ema.average(v2)}
        p1, p2 = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.float32, [])
        assign = tf.group(v1.assign(p1), v2.assign(p2))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _compare(case["trajectory"][0], sess, tensors)
            for k, (a, b) in enumerate(zip(case["v1_values_per_step"],
                                           case["v2_values_per_step"])):
                sess.run(assign, {p1: a, p2: b})
                sess.run(apply)
                _compare(case["trajectory"][k + 1], sess, tensors)


def test_num_updates():
    case = EMA["num_updates"]
    with tf.Graph().as_default():
        v1 = tf.Variable([1.0, 2.0], name="v1")
        step = tf.train.get_or_create_global_step()
        ema = tf.train.ExponentialMovingAverage(decay=0.99, num_updates=step)
        apply = ema.apply([v1])
        inc = tf.assign_add(step, 1)
        p1 = tf.placeholder(tf.float32, [2])
        assign = v1.assign(p1)
        tensors = {"v1": v1, "global_step": step,
                   "v1/ExponentialMovingAverage": ema.average(v1)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _compare(case["trajectory"][0], sess, tensors)
            for k, a in enumerate(case["v1_values_per_step"]):
                sess.run(assign, {p1: a})
                sess.run(apply)
                sess.run(inc)
                _compare(case["trajectory"][k + 1], sess, tensors)


@pytest.mark.parametrize("name,debias", [("zero_debias_tensor", True),
                                         ("tensor_no_debias", False)])
def test_tensor_inputs(name, debias):
    case = EMA[name]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        doubled = tf.identity(x * 2, name="doubled")
        ema = tf.train.ExponentialMovingAverage(0.9, zero_debias=debias)
        apply = ema.apply([doubled])
        assert ema.average_name(doubled) == "doubled/ExponentialMovingAverage"
        created = sorted(v.op.name for v in tf.global_variables())
        if debias:
            assert created == sorted(case["created_variables"])
        tensors = {v.op.name: v for v in tf.global_variables()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _compare(case["trajectory"][0], sess, tensors)
            for k, value in enumerate(case["x_values_per_step"]):
                sess.run(apply, {x: value})
                _compare(case["trajectory"][k + 1], sess, tensors)


def test_assign_moving_average_and_errors():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 3.0], name="v")
        upd = assign_moving_average(v, [3.0, 1.0], 0.75, zero_debias=False)
        assert upd.op.type == "AssignSub" and upd.op.name == "AssignMovingAvg"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(upd), [1.5, 2.5])
        with pytest.raises(TypeError, match="must be half, float, or double"):
            tf.train.ExponentialMovingAverage(0.9).apply([tf.Variable(1, name="i")])
