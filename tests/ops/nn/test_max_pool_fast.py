"""MaxPoolGrad's fast path (finite inputs) against a loop reference of TensorFlow's pick
rule (the first in-bounds cell, then a strictly greater one), with many ties, signed
zeros and +inf; and its hand-over to the general path (NaN, -inf, a non-finite
gradient), also chunk by chunk."""
import itertools

import numpy as np
import pytest

from trainflow._src.ops.nn import conv_geometry as G
from trainflow._src.ops.nn import conv_kernels as K
from trainflow._src.ops.nn import max_pool_fast as F
from trainflow._src.ops.nn import pool_loops as L
from trainflow._src.ops.nn.window_phases import StridePhases

RNG = np.random.RandomState(11)

CASES = [  # x shape, ksize, strides, padding, explicit pads
    ((2, 8, 8, 3), (3, 3), (2, 2), "SAME", None),    # the CIFAR pool
    ((2, 5, 5, 3), (3, 3), (2, 2), "SAME", None),
    ((1, 7, 9, 2), (3, 3), (2, 2), "SAME", None),
    ((1, 6, 7, 2), (2, 3), (2, 1), "SAME", None),
    ((2, 7, 6, 2), (2, 2), (3, 3), "VALID", None),   # cells no window reads
    ((1, 3, 4, 1), (5, 5), (1, 1), "SAME", None),    # window larger than the image
    ((1, 5, 6, 2), (3, 2), (1, 2), "EXPLICIT", ((2, 1), (1, 0))),
]


def _geo(xs, ksize, strides, padding, explicit):
    return G.Geometry(xs[1], xs[2], ksize[0], ksize[1], strides, (1, 1), padding, explicit)


def reference_grad(x, dy, geo):
    """np.add.at of dy at each window's pick, found cell by cell."""
    (pt, _), (pl, _) = geo.pads
    dx = np.zeros(x.shape, np.float64)
    for b, i, j, c in itertools.product(*(range(d) for d in dy.shape)):
        r0, c0 = i * geo.strides[0] - pt, j * geo.strides[1] - pl
        cells = [(r, q) for r in range(r0, r0 + geo.ksize[0])
                 for q in range(c0, c0 + geo.ksize[1])
                 if 0 <= r < x.shape[1] and 0 <= q < x.shape[2]]
        best = cells[0]
        for cell in cells[1:]:
            if x[b, cell[0], cell[1], c] > x[b, best[0], best[1], c]:
                best = cell
        dx[b, best[0], best[1], c] += dy[b, i, j, c]
    return dx


def _tied(xs):
    """Few distinct values (ties everywhere), signed zeros and +inf."""
    x = np.floor(RNG.rand(*xs) * 3).astype(np.float32) - 1
    flat = x.reshape(-1)
    flat[RNG.rand(flat.size) < 0.2] = -0.0
    flat[RNG.rand(flat.size) < 0.05] = np.inf
    return x


@pytest.mark.parametrize("xs,ksize,strides,padding,explicit", CASES)
def test_fast_path_follows_tf_pick(xs, ksize, strides, padding, explicit):
    geo = _geo(xs, ksize, strides, padding, explicit)
    x = _tied(xs)
    dy = RNG.randn(xs[0], geo.out_h, geo.out_w, xs[3]).astype(np.float32)
    dx = np.zeros(xs, np.float32)
    assert F.max_backward_chunk(x, dy, dx, StridePhases(geo, xs[1], xs[2]))
    np.testing.assert_allclose(dx, reference_grad(x, dy, geo), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(L.max_backward(x, dy, geo), dx, rtol=1e-6, atol=1e-6)
    assert not np.signbit(dx[dx == 0]).any()  # cells no pick reaches are +0, as in TF


@pytest.mark.parametrize("poison", ["nan_x", "ninf_x", "inf_dy", "nan_dy"])
def test_non_finite_chunks_take_the_general_path(poison, monkeypatch):
    xs, ksize, strides, padding, explicit = CASES[0]
    geo = _geo(xs, ksize, strides, padding, explicit)
    x = _tied(xs)
    dy = RNG.randn(xs[0], geo.out_h, geo.out_w, xs[3]).astype(np.float32)
    target, value = {"nan_x": (x, np.nan), "ninf_x": (x, -np.inf),
                     "inf_dy": (dy, np.inf), "nan_dy": (dy, np.nan)}[poison]
    target[1, 1, 2, 0] = value  # in the second image only
    dx = np.zeros(xs, np.float32)
    assert not F.max_backward_chunk(x, dy, dx, StridePhases(geo, xs[1], xs[2]))
    assert not dx.any()
    monkeypatch.setattr(K, "CHUNK_BYTES", 1)  # image 0 fast, image 1 general
    expected = reference_grad(x, dy, geo)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(L.max_backward(x, dy, geo), expected, rtol=1e-6, atol=1e-6)


def test_integer_pools_take_the_general_path():
    xs, ksize, strides, padding, explicit = CASES[1]
    geo = _geo(xs, ksize, strides, padding, explicit)
    x = RNG.randint(-3, 3, xs).astype(np.int32)
    dy = RNG.randint(-5, 5, (xs[0], geo.out_h, geo.out_w, xs[3])).astype(np.int32)
    dx = np.zeros(xs, np.int32)
    assert not F.max_backward_chunk(x, dy, dx, StridePhases(geo, xs[1], xs[2]))
    np.testing.assert_array_equal(L.max_backward(x, dy, geo), reference_grad(x, dy, geo))
