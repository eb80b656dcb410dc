"""Every in-place form against its pure rule, bit for bit: float16/32/64, one block and
several (with a ragged end, on threads), every attr branch; and the Apply kernels taking
the form's path or the rule's give the same buffers."""
import numpy as np
import pytest

from trainflow._src.kernels import blocked
from trainflow._src.ops.state import optimizer_inplace as inplace
from trainflow._src.ops.state import optimizer_rules as rules

# (name, number of slots, hyperparameters in the rule's order with "grad" where the
# gradient goes, attrs); slots start positive (accumulators), as optimizers keep them.
CASES = [
    ("gradient_descent", 0, [0.1, "grad"], {}),
    ("momentum", 1, [0.1, "grad", 0.9], {}),
    ("momentum", 1, [0.1, "grad", 0.9], {"use_nesterov": True}),
    ("adagrad", 1, [0.1, "grad"], {}),
    ("adagrad", 1, [0.1, "grad"], {"update_slots": False}),
    ("adagrad_v2", 1, [0.1, 0.01, "grad"], {}),
    ("adagrad_v2", 1, [0.1, 0.01, "grad"], {"update_slots": False}),
    ("adagrad_da", 2, ["grad", 0.1, 0.0, 0.02, 3], {}),
    ("adagrad_da", 2, ["grad", 0.1, 0.3, 0.02, 3], {}),
    ("adadelta", 2, [1.0, 0.95, 1e-6, "grad"], {}),
    ("ftrl", 2, ["grad", 0.1, 0.05, 0.1, -0.5], {}),
    ("ftrl", 2, ["grad", 0.1, 0.0, 0.0, -0.25], {}),
    ("ftrl", 2, ["grad", 0.1, 0.05, 0.1, -0.5], {"multiply_linear_by_lr": True}),
    ("ftrl_v2", 2, ["grad", 0.1, 0.05, 0.1, 0.1, -0.5], {}),
    ("ftrl_v2", 2, ["grad", 0.1, 0.05, 0.1, 0.1, -0.25], {"multiply_linear_by_lr": True}),
    ("proximal_gradient_descent", 0, [0.1, 0.05, 0.1, "grad"], {}),
    ("proximal_gradient_descent", 0, [0.1, 0.0, 0.1, "grad"], {}),
    ("proximal_adagrad", 1, [0.1, 0.05, 0.1, "grad"], {}),
    ("proximal_adagrad", 1, [0.1, 0.0, 0.1, "grad"], {}),
    ("rms_prop", 2, [0.1, 0.9, 0.5, 1e-10, "grad"], {}),
    ("centered_rms_prop", 3, [0.1, 0.9, 0.5, 1.5, "grad"], {}),  # ms - mg^2 + eps > 0
    ("adam", 2, [0.9, 0.999, 0.1, 0.9, 0.999, 1e-8, "grad"], {}),
    ("adam", 2, [0.9, 0.999, 0.1, 0.9, 0.999, 1e-8, "grad"], {"use_nesterov": True}),
    ("ada_max", 2, [0.9, 0.1, 0.9, 0.999, 1e-7, "grad"], {}),
    ("add_sign", 1, [0.1, 1.0, 0.5, 0.9, "grad"], {}),
    ("power_sign", 1, [0.1, np.e, 0.5, 0.9, "grad"], {}),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _state(n_slots, size, dtype, seed):
    rng = np.random.RandomState(seed)
    var = rng.randn(size).astype(dtype)
    slots = [(rng.rand(size) + 0.1).astype(dtype) for _ in range(n_slots)]
    grad = (rng.randn(size) * 0.5).astype(dtype)
    grad[::7] = 0  # exact zeros reach the sign and clip branches
    return var, slots, grad


def _args(hyper, dtype, grad):
    return [grad if h == "grad" else
            np.asarray(h, np.int64 if isinstance(h, int) else dtype) for h in hyper]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("size", [37, blocked.SMALL + 1, 5077])
@pytest.mark.parametrize("name,n_slots,hyper,attrs", CASES, ids=IDS)
def test_form_matches_rule_bit_for_bit(name, n_slots, hyper, attrs, dtype, size, monkeypatch):
    # 256-byte blocks, shared among threads, with a ragged end
    monkeypatch.setattr(blocked, "INPLACE_BLOCK_BYTES", 256)
    monkeypatch.setattr(blocked, "PARALLEL_MIN", 2048)
    monkeypatch.setattr(blocked, "WORKERS", 2)
    var, slots, grad = _state(n_slots, size, dtype, size % 97)
    args = _args(hyper, dtype, grad)
    with np.errstate(all="ignore"):
        want = getattr(rules, name)(var, *slots, *args, **attrs)
        buffers = [var.copy()] + [s.copy() for s in slots]
        grad_before = grad.copy()
        blocked.run_blocks(*getattr(inplace, name)(*buffers, *args, **attrs))
    assert len(want) == len(buffers)
    for got, expected in zip(buffers, want):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(grad, grad_before)


def test_scratch_is_reused_across_calls():
    var, slots, grad = _state(2, 3 * blocked.INPLACE_BLOCK_BYTES, np.float32, 1)
    args = _args(CASES[21][2], np.float32, grad)
    blocked.run_blocks(*inplace.adam(var, *slots, *args))
    key = (np.dtype(np.float32), 2, blocked.INPLACE_BLOCK_BYTES // 4)
    pooled = [id(a) for arrays in blocked._free_scratch[key] for a in arrays]
    blocked.run_blocks(*inplace.adam(var, *slots, *args))
    assert sorted(pooled) == sorted(id(a) for arrays in blocked._free_scratch[key]
                                    for a in arrays)
