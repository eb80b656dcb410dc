"""Every tf.train learning-rate schedule against the values TF 2.21 recorded for steps
0..120 (fixtures/decay/decay.json), plus step types, float64 rates, names and errors."""
import json
import os
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from fixture_paths import FIXTURES

with open(os.path.join(FIXTURES, "decay", "decay.json")) as _f:
    DECAY = json.load(_f)
SCHEDULES = DECAY["schedules"]
STEPS = DECAY["steps"]


def _call(entry, global_step):
    """Evaluates the fixture's recorded call with `global_step` in place."""
    call = re.sub(r"^tf\.compat\.v1\.train\.", "", entry["call"])
    fn_name, args = call.split("(", 1)
    fn = getattr(tf.train, fn_name)
    return eval(f"fn({args}", {"fn": fn, "global_step": global_step})  # noqa: S307


@pytest.mark.parametrize("name", [n for n in SCHEDULES if n != "noisy_linear_cosine_decay"])
def test_schedule_matches_tensorflow(name):
    entry = SCHEDULES[name]
    with tf.Graph().as_default():
        step = tf.placeholder(tf.int64, [])
        lr = _call(entry, step)
        assert lr.dtype == tf.float32
        with tf.Session() as sess:
            got = [sess.run(lr, {step: s}) for s in STEPS]
    np.testing.assert_allclose(got, np.asarray(entry["values"], np.float32), rtol=2e-6,
                               atol=1e-9)


def test_noisy_linear_cosine_decay_stays_near_its_noise_free_shape():
    entry = SCHEDULES["noisy_linear_cosine_decay"]
    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        step = tf.placeholder(tf.int64, [])
        lr = _call(entry, step)
        with tf.Session() as sess:
            got = np.array([sess.run(lr, {step: s}) for s in STEPS])
    recorded = np.asarray(entry["values"])
    # Same spread as TF's draw: |lr| stays within the recorded range's magnitude.
    assert np.all(np.abs(got) < 4 * np.abs(recorded).max())
    assert np.std(got) > 0


@pytest.mark.parametrize("make", [
    lambda s: tf.train.exponential_decay(0.1, s, 10, 0.96, staircase=True),
    lambda s: tf.train.polynomial_decay(0.1, s, 50, cycle=True, power=2.0),
    lambda s: tf.train.cosine_decay_restarts(0.1, s, 20, m_mul=0.8),
])
def test_step_as_variable_or_float_tensor(make):
    with tf.Graph().as_default():
        var_step = tf.train.get_or_create_global_step()
        inc = tf.assign_add(var_step, 37)
        from_var = make(var_step)
        from_float = make(tf.constant(37.0))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(inc)
            a, b = sess.run([from_var, from_float])
    assert a == b


def test_float64_learning_rate_gives_float64():
    with tf.Graph().as_default():
        lr = tf.train.exponential_decay(tf.constant(0.1, tf.float64), tf.constant(5), 10, 0.5)
        assert lr.dtype == tf.float64
        with tf.Session() as sess:
            assert sess.run(lr) == pytest.approx(0.1 * 0.5 ** 0.5, rel=1e-15)


def test_op_names():
    with tf.Graph().as_default():
        step = tf.constant(3, tf.int64)
        assert tf.train.exponential_decay(0.1, step, 10, 0.5).op.name == "ExponentialDecay"
        assert tf.train.exponential_decay(0.1, step, 10, 0.5).op.name == "ExponentialDecay_1"
        assert tf.train.inverse_time_decay(0.1, step, 10, 0.5, name="itd").op.name == "itd"
        assert tf.train.polynomial_decay(0.1, step, 10).op.name == "PolynomialDecay"
        assert tf.train.cosine_decay_restarts(0.1, step, 10).op.name == "SGDRDecay"
        assert tf.train.linear_cosine_decay(0.1, step, 10).op.name == "LinearCosineDecay"
        assert tf.train.piecewise_constant(step, [5], [1.0, 0.5]).op.name.startswith(
            "PiecewiseConstant/")


@pytest.mark.parametrize("fn,args", [
    (tf.train.exponential_decay, (0.1, None, 10, 0.5)),
    (tf.train.natural_exp_decay, (0.1, None, 10, 0.5)),
    (tf.train.inverse_time_decay, (0.1, None, 10, 0.5)),
    (tf.train.polynomial_decay, (0.1, None, 10)),
    (tf.train.cosine_decay, (0.1, None, 10)),
    (tf.train.cosine_decay_restarts, (0.1, None, 10)),
    (tf.train.linear_cosine_decay, (0.1, None, 10)),
    (tf.train.noisy_linear_cosine_decay, (0.1, None, 10)),
])
def test_global_step_none_is_value_error(fn, args):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="global_step is required"):
            fn(*args)


def test_piecewise_constant_dtype_errors():
    with tf.Graph().as_default():
        step = tf.constant(3, tf.int64)
        lr = tf.train.piecewise_constant(step, [2, 5], [1.0, 0.5, 0.1])  # int32 -> int64
        with pytest.raises(ValueError, match="Boundaries"):
            tf.train.piecewise_constant(step, [2.0], [1.0, 0.5])
        with pytest.raises(ValueError, match="same dtype"):
            tf.train.piecewise_constant(step, [2], [1.0, 1])
        with tf.Session() as sess:
            assert sess.run(lr) == pytest.approx(0.5)
