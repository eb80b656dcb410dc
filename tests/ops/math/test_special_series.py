"""The float64 series behind tf.math.special and erfinv/ndtri/betainc when SciPy is
not installed (`special_series`): they agree with SciPy's Cephes ufuncs (what the
kernels use when it is installed) over the whole line, TensorFlow's values off each
domain hold on both paths, and identities that need neither hold."""
import math

import numpy as np
import pytest

from trainflow._src.ops.math import special_ops, special_series

special = pytest.importorskip("scipy.special")

GRID = np.concatenate([np.linspace(-60, 60, 4001), [
    -1e5, -1e-8, 1e-8, 1e-3, 0.4999, 0.5, 1.9999, 2.0, 2.0001, 2.9999, 3.0, 7.99, 8.0, 8.01,
    11.999, 12.0, 12.001, 29.99, 30.0, 30.01, 40.0, 40.01, 49.99, 50.01, 1e3, 1e5]])
EDGES = np.array([-np.inf, -2.0, -0.0, 0.0, 1e-30, np.inf, np.nan])
UNIT = np.concatenate([np.linspace(-1, 1, 2001), [-1 + 1e-9, 1e-6, -1e-6, 1 - 1e-9]])
PROBABILITY = np.concatenate([np.linspace(0, 1, 2001), [1e-300, 1e-30, 1e-10, 1 - 1e-10]])

OP_TYPES = ["BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselK0", "BesselK0e",
            "BesselK1", "BesselK1e", "Dawsn", "Expint", "FresnelCos", "FresnelSin", "Spence"]


def _assert_close(ours, reference, rtol):
    assert np.array_equal(np.isnan(ours), np.isnan(reference))
    finite = np.isfinite(reference)
    assert np.array_equal(ours[~finite & ~np.isnan(ours)],
                          reference[~finite & ~np.isnan(reference)])
    np.testing.assert_allclose(ours[finite], reference[finite], rtol=rtol,
                               atol=1e-300)


@pytest.mark.parametrize("op_type", OP_TYPES)
def test_series_match_scipy(op_type):
    ours = special_ops.evaluate(op_type, GRID, use_scipy=False)
    reference = special_ops.evaluate(op_type, GRID, use_scipy=True)
    # Near the zeros of J and Y the relative error is the absolute one over a tiny value.
    if op_type.startswith(("BesselJ", "BesselY")):
        np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-11)
    else:
        _assert_close(ours, reference, rtol=1e-11)


@pytest.mark.parametrize("op_type", OP_TYPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_off_domain_values_do_not_depend_on_scipy(op_type, dtype):
    x = EDGES.astype(dtype)
    np.testing.assert_allclose(special_ops.evaluate(op_type, x, use_scipy=False),
                               special_ops.evaluate(op_type, x, use_scipy=True), rtol=1e-13)


@pytest.mark.parametrize("op_type, points", [("Erfinv", UNIT), ("Ndtri", PROBABILITY)])
def test_inverse_functions_match_scipy(op_type, points):
    _assert_close(special_ops.evaluate(op_type, points, use_scipy=False),
                  special_ops.evaluate(op_type, points, use_scipy=True), rtol=1e-12)


def test_betainc_matches_scipy():
    rng = np.random.RandomState(0)
    a, b = rng.uniform(0.01, 30, 400), rng.uniform(0.01, 30, 400)
    x = rng.uniform(0, 1, 400)
    np.testing.assert_allclose(special_series.betainc(a, b, x), special.betainc(a, b, x),
                               rtol=1e-11, atol=1e-300)


def test_identities():
    x = np.linspace(0.1, 20, 50)
    np.testing.assert_allclose(special_series.bessel_k0e(x),
                               special_series.bessel_k0(x) * np.exp(x), rtol=1e-13)
    np.testing.assert_allclose(special_series.erfinv(np.vectorize(math.erf)(x / 10)), x / 10,
                               rtol=1e-12)
    # The Wronskian J1 Y0 - J0 Y1 = 2 / (pi x).
    w = (special_series.bessel_j1(x) * special_series.bessel_y0(x)
         - special_series.bessel_j0(x) * special_series.bessel_y1(x))
    np.testing.assert_allclose(w, 2 / (np.pi * x), rtol=1e-10)
    assert special_series.spence(np.array([1.0]))[0] == 0.0
    np.testing.assert_allclose(special_series.spence(np.array([0.0])), np.pi ** 2 / 6)
    np.testing.assert_allclose(special_series.ndtri(np.array([0.5, 0.975])), [0, 1.959963985],
                               atol=1e-9)
