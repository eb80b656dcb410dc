"""Optimizers against the trajectories real TensorFlow recorded (fixtures/optimizers)."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from fixture_paths import FIXTURES

OPT_DIR = os.path.join(FIXTURES, "optimizers")

# Configurations whose optimizer class exists; later optimizers join this table.
CONFIGS = [c["name"] for c in json.load(open(os.path.join(OPT_DIR, "index.json")))["configs"]]


def _load(name):
    with open(os.path.join(OPT_DIR, name + ".json")) as f:
        return json.load(f)


def _make_optimizer(spec, step, dtype, section):
    cls = getattr(tf.train, spec["class"].rsplit(".", 1)[-1])
    params = dict(spec["params"])
    if section == "float64_with_float64_hyperparameter_tensors":
        params.setdefault("l1_regularization_strength", 0.0)
        params.setdefault("l2_regularization_strength", 0.0)
        for key in ("learning_rate", "l1_regularization_strength",
                    "l2_regularization_strength"):
            params[key] = tf.constant(params[key], dtype=tf.float64)
    if cls is tf.train.AdagradDAOptimizer:
        params["global_step"] = step
    return cls(**params)


def _sections(name):
    """(dtype, fixture section) pairs recorded for configuration `name`."""
    opt = _load(name)["optimizer"]
    return [(np.float32 if key == "float32" else np.float64, key)
            for key in opt if key.startswith("float")]


CASES = [(name, dtype, section) for name in CONFIGS for dtype, section in _sections(name)]


def _np(x, dtype):
    return np.asarray(x, dtype=dtype)


def _assert_state(expected, actual, dtype):
    rtol, atol = (2e-6, 1e-7) if dtype == np.float32 else (1e-12, 1e-14)
    np.testing.assert_allclose(actual, _np(expected, dtype), rtol=rtol, atol=atol)


def _run_dense(spec, dtype, mode, section):
    inputs = spec["inputs"]
    g = tf.Graph()
    with g.as_default():
        var0 = tf.Variable(_np(inputs["var0_init"], dtype), name="var0")
        var1 = tf.Variable(_np(inputs["var1_init"], dtype), name="var1")
        step = tf.train.get_or_create_global_step()
        g0 = tf.placeholder(dtype, [2])
        g1 = tf.placeholder(dtype, [2])
        opt = _make_optimizer(spec["optimizer"], step, dtype, section)
        if mode == "dense":
            train = opt.apply_gradients([(g0, var0), (g1, var1)], global_step=step)
        else:
            loss = tf.reduce_sum(var0 * g0) + tf.reduce_sum(var1 * g1)
            train = opt.minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    states = []
    with tf.Session(graph=g) as sess:
        sess.run(init)
        states.append(_snapshot(sess, opt, {"var0": var0, "var1": var1}, step))
        for grads in inputs["dense_grads_per_step_[g0,g1]"]:
            sess.run(train, {g0: _np(grads[0], dtype), g1: _np(grads[1], dtype)})
            states.append(_snapshot(sess, opt, {"var0": var0, "var1": var1}, step))
    return g, opt, states


def _run_sparse(spec, dtype, section):
    inputs = spec["inputs"]
    g = tf.Graph()
    with g.as_default():
        emb = tf.Variable(_np(inputs["emb_init"], dtype), name="emb")
        step = tf.train.get_or_create_global_step()
        values = tf.placeholder(dtype, [3, 2])
        loss = tf.reduce_sum(tf.gather(emb, inputs["sparse_indices"]) * values)
        opt = _make_optimizer(spec["optimizer"], step, dtype, section)
        grads_and_vars = opt.compute_gradients(loss)
        train = opt.apply_gradients(grads_and_vars, global_step=step)
        init = tf.global_variables_initializer()
    states = []
    with tf.Session(graph=g) as sess:
        sess.run(init)
        states.append(_snapshot(sess, opt, {"emb": emb}, step))
        first = None
        for k, vals in enumerate(inputs["sparse_grad_values_per_step"]):
            feed = {values: _np(vals, dtype)}
            if k == 0:
                first = sess.run(grads_and_vars[0][0], feed)
            sess.run(train, feed)
            states.append(_snapshot(sess, opt, {"emb": emb}, step))
    return g, opt, states, first


def _snapshot(sess, opt, variables, step):
    state = {"global_step": sess.run(step)}
    for name, v in variables.items():
        state[name] = sess.run(v)
    state["slots"] = {name: {s: sess.run(opt.get_slot(v, s)) for s in opt.get_slot_names()}
                      for name, v in variables.items()}
    state["non_slot"] = {v.op.name: sess.run(v) for v in opt._non_slot_variables()}
    return state


def _compare(expected_traj, states, dtype, names):
    assert len(states) == len(expected_traj)
    for exp, got in zip(expected_traj, states):
        assert got["global_step"] == exp["global_step"]
        for name in names:
            _assert_state(exp[name], got[name], dtype)
            for slot, value in exp["slots"].get(name, {}).items():
                _assert_state(value, got["slots"][name][slot], dtype)
        for name, value in exp.get("non_slot", {}).items():
            _assert_state(value, got["non_slot"][name], dtype)


def _check_names(expected, g, opt, variables):
    assert opt.get_slot_names() == sorted(expected["slot_names"])
    for var_name, slots in expected["slot_variables"].items():
        for slot, slot_var_name in slots.items():
            assert opt.get_slot(variables[var_name], slot).op.name == slot_var_name
    with g.as_default():
        assert [v.op.name for v in opt.variables()] == \
            [v["name"] for v in expected["optimizer_variables"]]
    types = {op.type for op in g.get_operations()}
    for t in expected["update_op_types"]:
        assert t in types


@pytest.mark.parametrize("name,dtype,section", CASES)
@pytest.mark.parametrize("mode", ["dense", "minimize"])
def test_dense_trajectory(name, dtype, section, mode):
    spec = _load(name)
    expected = spec["optimizer"][section][mode]
    if "error" in expected:
        with pytest.raises(TypeError) as err:
            _run_dense(spec, dtype, mode, section)
        assert str(err.value) == expected["error"]["message"]
        return
    g, opt, states = _run_dense(spec, dtype, mode, section)
    _compare(expected["trajectory"], states, dtype, ["var0", "var1"])
    _check_names(expected, g, opt, _vars_by_name(g))


def _vars_by_name(g):
    with g.as_default():
        return {v.op.name: v for v in tf.global_variables()}


@pytest.mark.parametrize("name,dtype,section", CASES)
def test_sparse_trajectory(name, dtype, section):
    spec = _load(name)
    expected = spec["optimizer"][section]["sparse"]
    if "error" in expected:
        with pytest.raises(TypeError) as err:
            _run_sparse(spec, dtype, section)
        assert str(err.value) == expected["error"]["message"]
        return
    g, opt, states, first = _run_sparse(spec, dtype, section)
    grad = expected["first_step_gradient_IndexedSlices"]
    np.testing.assert_array_equal(first.indices, grad["indices"])
    _assert_state(grad["values"], first.values, dtype)
    np.testing.assert_array_equal(first.dense_shape, grad["dense_shape"])
    _compare(expected["trajectory"], states, dtype, ["emb"])
    _check_names(expected, g, opt, _vars_by_name(g))
