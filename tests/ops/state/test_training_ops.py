"""Every Apply*/SparseApply* op against a scalar reimplementation of TF's kernel formula
(AdaMax/AddSign/PowerSign checked against TF 2.21's outputs when they were added):
dense in float16/32/64, sparse with repeated indices (TF's kernels apply a repeated row
once per occurrence, in order), and the kernels' argument errors."""
import math

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.dtypes import float32_ref
from trainflow._src.ops.state import training_ops


def _sign(x):
    return (x > 0) - (x < 0)


def _prox(p, lr, l1, l2):
    if l1 > 0:
        return _sign(p) * max(abs(p) - lr * l1, 0.0) / (1 + lr * l2)
    return p / (1 + lr * l2)


def _ftrl(s, h, g, shrink=0.0):
    var, acc, lin = s["var"], s["accum"], s["linear"]
    p = -h["lr_power"]
    new_acc = acc + g * g
    lin += g + 2 * shrink * var - (new_acc ** p - acc ** p) / h["lr"] * var
    y = new_acc ** p / h["lr"] + 2 * h["l2"]
    var = (h["l1"] * _sign(lin) - lin) / y if abs(lin) > h["l1"] else 0.0
    return {"var": var, "accum": new_acc, "linear": lin}


def _momentum(s, h, g, nesterov=False):
    acc = s["accum"] * h["momentum"] + g
    step = g * h["lr"] + acc * h["momentum"] * h["lr"] if nesterov else acc * h["lr"]
    return {"var": s["var"] - step, "accum": acc}


def _adagrad(s, h, g):
    acc = s["accum"] + g * g
    return {"var": s["var"] - h["lr"] * g / math.sqrt(acc), "accum": acc}


def _adagrad_da(s, h, g):
    ga, gga = s["gradient_accumulator"] + g, s["gradient_squared_accumulator"] + g * g
    t = h["global_step"]
    den = h["l2"] * t * h["lr"] + math.sqrt(gga)
    if h["l1"] > 0:
        var = -h["lr"] * _sign(ga) * max(abs(ga) - t * h["l1"], 0.0) / den
    else:
        var = -ga * h["lr"] / den
    return {"var": var, "gradient_accumulator": ga, "gradient_squared_accumulator": gga}


def _adadelta(s, h, g):
    rho, eps = h["rho"], h["epsilon"]
    acc = s["accum"] * rho + g * g * (1 - rho)
    upd = math.sqrt(s["accum_update"] + eps) / math.sqrt(acc + eps) * g
    return {"var": s["var"] - upd * h["lr"], "accum": acc,
            "accum_update": s["accum_update"] * rho + upd * upd * (1 - rho)}


def _proximal_adagrad(s, h, g):
    acc = s["accum"] + g * g
    rate = h["lr"] / math.sqrt(acc)
    return {"var": _prox(s["var"] - g * rate, rate, h["l1"], h["l2"]), "accum": acc}


def _rms(s, h, g, centered=False):
    ms = s["ms"] * h["rho"] + g * g * (1 - h["rho"])
    out = {"ms": ms}
    denom = ms + h["epsilon"]
    if centered:
        out["mg"] = s["mg"] * h["rho"] + g * (1 - h["rho"])
        denom -= out["mg"] ** 2
    out["mom"] = s["mom"] * h["momentum"] + h["lr"] * g / math.sqrt(denom)
    out["var"] = s["var"] - out["mom"]
    return out


def _adam(s, h, g):
    alpha = h["lr"] * math.sqrt(1 - h["beta2_power"]) / (1 - h["beta1_power"])
    m = s["m"] * h["beta1"] + g * (1 - h["beta1"])
    v = s["v"] * h["beta2"] + g * g * (1 - h["beta2"])
    return {"var": s["var"] - alpha * m / (math.sqrt(v) + h["epsilon"]), "m": m, "v": v}


def _ada_max(s, h, g):
    m = s["m"] + (g - s["m"]) * (1 - h["beta1"])
    v = max(h["beta2"] * s["v"], abs(g))
    return {"var": s["var"] - h["lr"] / (1 - h["beta1_power"]) * m / (v + h["epsilon"]),
            "m": m, "v": v}


def _sign_rule(s, h, g, factor):
    m = s["m"] * h["beta"] + g * (1 - h["beta"])
    return {"var": s["var"] - h["lr"] * factor(h["sign_decay"] * _sign(g) * _sign(m)) * g,
            "m": m}


_LR = {"lr": 0.1}
# (fn name, slot names, hyperparameters, reference, attrs); slots start at 0.5.
TABLE = [
    ("gradient_descent", [], {"alpha": 0.1},
     lambda s, h, g: {"var": s["var"] - h["alpha"] * g}, {}),
    ("momentum", ["accum"], {**_LR, "momentum": 0.9}, _momentum, {}),
    ("momentum", ["accum"], {**_LR, "momentum": 0.9},
     lambda s, h, g: _momentum(s, h, g, True), {"use_nesterov": True}),
    ("adagrad", ["accum"], _LR, _adagrad, {}),
    ("adagrad", ["accum"], _LR,
     lambda s, h, g: {"var": s["var"] - h["lr"] * g / math.sqrt(s["accum"]),
                      "accum": s["accum"]}, {"update_slots": False}),
    ("adagrad_v2", ["accum"], {**_LR, "epsilon": 0.01},
     lambda s, h, g: {"var": s["var"] - h["lr"] * g / (math.sqrt(s["accum"] + g * g) + 0.01),
                      "accum": s["accum"] + g * g}, {}),
    ("adagrad_da", ["gradient_accumulator", "gradient_squared_accumulator"],
     {**_LR, "l1": 0.0, "l2": 0.02, "global_step": 3}, _adagrad_da, {}),
    ("adagrad_da", ["gradient_accumulator", "gradient_squared_accumulator"],
     {**_LR, "l1": 0.01, "l2": 0.02, "global_step": 3}, _adagrad_da, {}),
    ("adadelta", ["accum", "accum_update"], {"lr": 1.0, "rho": 0.95, "epsilon": 1e-6},
     _adadelta, {}),
    ("ftrl", ["accum", "linear"], {**_LR, "l1": 0.05, "l2": 0.1, "lr_power": -0.5}, _ftrl, {}),
    ("ftrl", ["accum", "linear"], {**_LR, "l1": 0.0, "l2": 0.0, "lr_power": -0.25}, _ftrl, {}),
    ("ftrl_v2", ["accum", "linear"],
     {**_LR, "l1": 0.05, "l2": 0.1, "l2_shrinkage": 0.1, "lr_power": -0.5},
     lambda s, h, g: _ftrl(s, h, g, h["l2_shrinkage"]), {}),
    ("proximal_gradient_descent", [], {"alpha": 0.1, "l1": 0.05, "l2": 0.1},
     lambda s, h, g: {"var": _prox(s["var"] - g * h["alpha"], h["alpha"], h["l1"], h["l2"])},
     {}),
    ("proximal_adagrad", ["accum"], {**_LR, "l1": 0.05, "l2": 0.1}, _proximal_adagrad, {}),
    ("proximal_adagrad", ["accum"], {**_LR, "l1": 0.0, "l2": 0.1}, _proximal_adagrad, {}),
    ("rms_prop", ["ms", "mom"], {**_LR, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-10},
     _rms, {}),
    ("centered_rms_prop", ["mg", "ms", "mom"],
     {**_LR, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-10},
     lambda s, h, g: _rms(s, h, g, True), {}),
    ("adam", ["m", "v"], {"beta1_power": 0.9, "beta2_power": 0.999, **_LR, "beta1": 0.9,
                          "beta2": 0.999, "epsilon": 1e-8}, _adam, {}),
]
TABLE += [
    ("ada_max", ["m", "v"], {"beta1_power": 0.9, **_LR, "beta1": 0.9, "beta2": 0.999,
                             "epsilon": 1e-7}, _ada_max, {}),
    ("add_sign", ["m"], {**_LR, "alpha": 1.0, "sign_decay": 0.5, "beta": 0.9},
     lambda s, h, g: _sign_rule(s, h, g, lambda a: h["alpha"] + a), {}),
    ("power_sign", ["m"], {**_LR, "logbase": math.e, "sign_decay": 0.5, "beta": 0.9},
     lambda s, h, g: _sign_rule(s, h, g, lambda a: math.exp(h["logbase"] * a)), {}),
]
IDS = [f"{row[0]}-{i}" for i, row in enumerate(TABLE)]
TOL = {np.float16: 1e-2, np.float32: 2e-6, np.float64: 1e-13}

VAR0 = np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25]])
GRAD = np.array([[0.1, -0.2], [0.3, 0.0], [-1.0, 0.5]])


def _reference(ref, slots, hyper, rows, grads):
    """Runs the scalar reference once per (row, gradient row), in order."""
    state = {"var": VAR0.copy(), **{s: np.full(VAR0.shape, 0.5) for s in slots}}
    for r, grad_row in zip(rows, grads):
        for j, g in enumerate(grad_row):
            new = ref({k: float(v[r, j]) for k, v in state.items()}, hyper, float(g))
            for k, value in new.items():
                state[k][r, j] = value
    return state


def _build(fn_name, slots, hyper, attrs, dtype, sparse, indices=None, grads=None):
    var = tf.Variable(VAR0.astype(dtype), name="var")
    slot_vars = [tf.Variable(np.full(VAR0.shape, 0.5, dtype), name=s) for s in slots]
    values = {k: np.asarray(v, np.int64 if k == "global_step" else dtype)
              for k, v in hyper.items()}
    fn = getattr(training_ops, ("sparse_apply_" if sparse else "apply_") + fn_name)
    grad_name = "delta" if fn_name.endswith("gradient_descent") and not sparse else "grad"
    values[grad_name] = grads.astype(dtype)
    if sparse:
        values["indices"] = np.asarray(indices, np.int64)
    refs = dict(zip(["var"] + slots, [var._ref()] + [s._ref() for s in slot_vars]))
    return fn(**refs, **values, **attrs), var, slot_vars


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("fn_name,slots,hyper,ref,attrs", TABLE, ids=IDS)
def test_dense_matches_reference(fn_name, slots, hyper, ref, attrs, dtype):
    with tf.Graph().as_default():
        out, var, slot_vars = _build(fn_name, slots, hyper, attrs, dtype, False, grads=GRAD)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(out)
            got_slots = sess.run(slot_vars)
    expected = _reference(ref, slots, hyper, range(3), GRAD)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected["var"], rtol=TOL[dtype], atol=TOL[dtype])
    for name, value in zip(slots, got_slots):
        np.testing.assert_allclose(value, expected[name], rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("fn_name,slots,hyper,ref,attrs",
                         [row for row in TABLE if hasattr(training_ops, "sparse_apply_" + row[0])],
                         ids=[i for i, row in zip(IDS, TABLE)
                              if hasattr(training_ops, "sparse_apply_" + row[0])])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_applies_each_occurrence_in_order(fn_name, slots, hyper, ref, attrs, dtype):
    indices = [2, 0, 2, 2]
    grads = np.array([[0.1, -0.2], [0.3, 0.4], [-1.0, 0.5], [0.2, 0.2]])
    with tf.Graph().as_default():
        out, var, slot_vars = _build(fn_name, slots, hyper, attrs, dtype, True, indices, grads)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(out)
            got_slots = sess.run(slot_vars)
    expected = _reference(ref, slots, hyper, indices, grads)
    np.testing.assert_allclose(got, expected["var"], rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_allclose(got[1], VAR0[1].astype(dtype))  # untouched row
    for name, value in zip(slots, got_slots):
        np.testing.assert_allclose(value, expected[name], rtol=TOL[dtype], atol=TOL[dtype])


def test_large_dense_update_runs_in_blocks_like_one_pass():
    n = (1 << 20) + 12345  # several blocks, shared among threads, with a ragged end
    rng = np.random.RandomState(0)
    v0, g = rng.randn(n).astype(np.float32), rng.randn(n).astype(np.float32)
    with tf.Graph().as_default():
        var = tf.Variable(v0)
        m = tf.Variable(np.zeros(n, np.float32))
        v = tf.Variable(np.zeros(n, np.float32))
        out = training_ops.apply_adam(var._ref(), m._ref(), v._ref(), 0.9, 0.999, 0.01,
                                      0.9, 0.999, 1e-8, g)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(out)
    from trainflow._src.ops.state import optimizer_rules
    f = np.float32
    want = optimizer_rules.adam(v0, np.zeros(n, f), np.zeros(n, f), f(0.9), f(0.999), f(0.01),
                                f(0.9), f(0.999), f(1e-8), g)[0]
    np.testing.assert_array_equal(got, want)


def _run_error(build, feed_shape, indices):
    with tf.Graph().as_default():
        var = tf.Variable(np.ones((2, 2), np.float32))
        acc = tf.Variable(np.ones((2, 2), np.float32))
        ph = tf.placeholder(tf.float32)
        idx = tf.placeholder(tf.int64)
        out = build(var._ref(), acc._ref(), ph, idx)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(out, {ph: np.ones(feed_shape, np.float32), idx: indices})


@pytest.mark.parametrize("build,shape,indices,message", [
    (lambda v, a, g, i: training_ops.apply_momentum(v, a, 0.1, g, 0.9), (2, 3), [0],
     r"var and grad do not have the same shape\[2,2\] \[2,3\]"),
    (lambda v, a, g, i: training_ops.sparse_apply_adagrad(v, a, 0.1, g, i), (2, 2), [0, 5],
     "Index 5 at offset 1 in indices is out of range"),
    (lambda v, a, g, i: training_ops.sparse_apply_adagrad(v, a, 0.1, g, i), (2, 3), [0, 1],
     "var and grad must match in dimension 1 and up"),
    (lambda v, a, g, i: training_ops.sparse_apply_adagrad(v, a, 0.1, g, i), (1, 2), [0, 1],
     "grad must be the same size as indices in the first dimension"),
])
def test_kernel_argument_errors(build, shape, indices, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _run_error(build, shape, indices)


def test_graph_construction_errors():
    with tf.Graph().as_default():
        var = tf.Variable(np.ones((2, 2), np.float32))
        acc = tf.Variable(np.ones((2, 3), np.float32))
        with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal"):
            training_ops.apply_adagrad(var._ref(), acc._ref(), 0.1, np.ones((2, 2), np.float32))
        with pytest.raises(ValueError, match="rank 0"):
            training_ops.apply_gradient_descent(var._ref(), [0.1, 0.2],
                                                np.ones((2, 2), np.float32))
        with pytest.raises(TypeError, match="float64"):
            training_ops.apply_gradient_descent(var._ref(), tf.constant(0.1, tf.float64),
                                                np.ones((2, 2), np.float32))


def test_op_types_and_attrs():
    with tf.Graph().as_default():
        var = tf.Variable(np.ones((3, 2), np.float32))
        acc = tf.Variable(np.ones((3, 2), np.float32))
        dense = training_ops.apply_momentum(var._ref(), acc._ref(), 0.1,
                                            np.ones((3, 2), np.float32), 0.9, use_nesterov=True)
        sparse = training_ops.sparse_apply_momentum(var._ref(), acc._ref(), 0.1,
                                                    np.ones((1, 2), np.float32), [1], 0.9)
        assert dense.op.type == "ApplyMomentum" and dense.op.get_attr("use_nesterov")
        assert sparse.op.type == "SparseApplyMomentum"
        assert sparse.op.get_attr("Tindices") == tf.int32
        assert dense.shape.as_list() == [3, 2] and dense.dtype == float32_ref
