"""Special-function kernels (ops/math/special): values, poles, dtypes, both code paths."""
import math

import ml_dtypes
import numpy as np
import pytest

import trainflow._src.ops.math.special

EULER = 0.5772156649015329


@pytest.fixture(params=["default", "no_scipy"])
def special(request, monkeypatch):
    if request.param == "no_scipy":
        monkeypatch.setattr(trainflow._src.ops.math.special, "_scipy_special", lambda: None)
    return trainflow._src.ops.math.special


def test_erf_and_erfc(special):
    x = np.array([-3.0, -0.5, 0.0, 1e-8, 0.5, 3.0])
    np.testing.assert_allclose(special.erf(x), [math.erf(v) for v in x], rtol=1e-15)
    np.testing.assert_allclose(special.erfc(x), [math.erfc(v) for v in x], rtol=1e-15)
    assert special.erf(x.astype(np.float32)).dtype == np.float32


def test_lgamma_with_poles(special):
    x = np.array([0.5, -0.5, 3.0, 10.0, 0.0, -2.0])
    got = special.lgamma(x)
    np.testing.assert_allclose(got[:4], [math.lgamma(v) for v in x[:4]], rtol=1e-14)
    assert np.isinf(got[4:]).all() and (got[4:] > 0).all()


def test_digamma_known_values(special):
    x = np.array([1.0, 0.5, 3.0, 1.5, -0.5, 10.0, 1e-3])
    want = [-EULER, -EULER - 2 * math.log(2), 1.5 - EULER, 2 - EULER - 2 * math.log(2),
            2 - EULER - 2 * math.log(2), 2.251752589066721, -1000.5755719318103]
    np.testing.assert_allclose(special.digamma(x), want, rtol=1e-10)
    poles = special.digamma(np.array([0.0, -1.0, -3.0]))
    assert np.isnan(poles).all()


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16, np.float32])
def test_low_precision_inputs_keep_their_dtype(special, dt):
    x = np.array([0.25, 1.0, 2.5], dt)
    for fn in (special.erf, special.erfc, special.lgamma, special.digamma):
        out = fn(x)
        assert out.dtype == np.dtype(dt)
        assert np.isfinite(out.astype(np.float64)).all()
