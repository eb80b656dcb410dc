"""separable_max: the per-axis tap ranges against a brute-force walk, and the two-pass
window maximum against TF's MaxPool loop over each window's cells (start at the
lowest value, keep strictly greater cells: NaN never wins), over the edge geometries."""
import itertools

import numpy as np
import pytest

from trainflow._src.ops.nn import conv_geometry as G
from trainflow._src.ops.nn import pool_loops as L
from trainflow._src.ops.nn import separable_max as S

RNG = np.random.RandomState(11)


def _brute_taps(out, k, stride, before, size):
    """[(outputs, input cells)] per window offset that reads some cell, in order."""
    taps = []
    for t in range(k):
        reads = [(o, o * stride - before + t) for o in range(out)
                 if 0 <= o * stride - before + t < size]
        if reads:
            taps.append(([o for o, _ in reads], [i for _, i in reads]))
    return taps


def test_axis_taps_are_the_in_bounds_reads():
    for out, k, stride, before, size in itertools.product((1, 3, 4), (1, 2, 3, 5), (1, 2, 3),
                                                          (0, 1, 2, 4), (0, 1, 4, 7)):
        taps = S.axis_taps(out, k, stride, before, size)
        expected = _brute_taps(out, k, stride, before, size)
        assert len(taps) == len(expected), (out, k, stride, before, size)
        for (lo, hi, first), (outs, cells) in zip(taps, expected):
            assert list(range(lo, hi)) == outs
            assert [first + stride * (o - lo) for o in outs] == cells


GEOMETRIES = [  # in (h, w), ksize, strides, padding, explicit
    ((5, 5), (3, 3), (2, 2), "SAME", None),
    ((7, 9), (3, 3), (2, 2), "SAME", None),
    ((6, 7), (2, 3), (2, 1), "SAME", None),
    ((7, 6), (2, 2), (3, 3), "VALID", None),       # stride > window: unread cells
    ((8, 8), (1, 1), (3, 2), "SAME", None),
    ((8, 5), (1, 3), (1, 1), "VALID", None),       # one-row windows: no row pass
    ((3, 4), (5, 5), (1, 1), "SAME", None),        # window larger than the image
    ((5, 6), (3, 2), (1, 2), "EXPLICIT", ((2, 1), (1, 0))),
    ((1, 1), (3, 3), (1, 1), "EXPLICIT", ((2, 2), (2, 2))),  # corner windows all padding
    ((0, 4), (3, 2), (1, 1), "EXPLICIT", ((1, 1), (0, 0))),  # no rows at all
]


def _reference(x, geo, low):
    """Per window: starting at `low`, each in-bounds cell (row-major) strictly greater."""
    n, h, w, c = x.shape
    (pt, _), (pl, _) = geo.pads
    out = np.full((n, geo.out_h, geo.out_w, c), low, x.dtype)
    for i, j, b, ch in itertools.product(range(geo.out_h), range(geo.out_w), range(n),
                                         range(c)):
        cells = [x[b, r, col, ch]
                 for r in range(i * geo.strides[0] - pt, i * geo.strides[0] - pt + geo.ksize[0])
                 for col in range(j * geo.strides[1] - pl,
                                  j * geo.strides[1] - pl + geo.ksize[1])
                 if 0 <= r < h and 0 <= col < w]
        for v in cells:
            if v > out[b, i, j, ch]:
                out[b, i, j, ch] = v
    return out


def _values(shape, dtype):
    x = RNG.choice([0.0, -0.0, 1.0, -1.0, np.nan, -np.inf], size=shape).astype(dtype)
    return x


@pytest.mark.parametrize("size,ksize,strides,padding,explicit", GEOMETRIES)
def test_window_max_matches_the_window_loop(size, ksize, strides, padding, explicit):
    geo = G.Geometry(*size, *ksize, strides, (1, 1), padding, explicit)
    x = _values((2, *size, 3), np.float32)
    out = np.empty((2, geo.out_h, geo.out_w, 3), np.float32)
    low = np.finfo(np.float32).min
    S.window_max(x, geo, out, low)
    np.testing.assert_array_equal(out, _reference(x, geo, low))  # +0 == -0


def test_integer_windows():
    geo = G.Geometry(7, 6, 3, 2, (2, 1), (1, 1), "SAME")
    x = RNG.randint(-50, 50, (2, 7, 6, 4)).astype(np.int32)
    out = np.empty((2, geo.out_h, geo.out_w, 4), np.int32)
    S.window_max(x, geo, out, np.iinfo(np.int32).min)
    np.testing.assert_array_equal(out, _reference(x, geo, np.iinfo(np.int32).min))


@pytest.mark.parametrize("size,ksize,strides,padding,explicit", GEOMETRIES)
def test_nchw_axes_match_nhwc(size, ksize, strides, padding, explicit):
    geo = G.Geometry(*size, *ksize, strides, (1, 1), padding, explicit)
    x = _values((2, *size, 3), np.float32)
    low = np.finfo(np.float32).min
    nhwc = S.window_max(x, geo, np.empty((2, geo.out_h, geo.out_w, 3), np.float32), low)
    nchw = S.window_max(np.ascontiguousarray(x.transpose(0, 3, 1, 2)), geo,
                        np.empty((2, 3, geo.out_h, geo.out_w), np.float32), low, axes=(2, 3))
    np.testing.assert_array_equal(nchw.transpose(0, 2, 3, 1), nhwc)


def test_max_forward_pools_an_nchw_view_in_place():
    """An NHWC view of an NCHW array comes back as the same kind of view."""
    geo = G.Geometry(7, 6, 3, 3, (2, 2), (1, 1), "SAME", None)
    x = _values((2, 4, 7, 6), np.float32)  # NCHW
    view = x.transpose(0, 2, 3, 1)
    out = L.max_forward(view, geo, np.finfo(np.float32).min)
    assert out.transpose(0, 3, 1, 2).flags.c_contiguous
    np.testing.assert_array_equal(out, L.max_forward(np.ascontiguousarray(view), geo,
                                                     np.finfo(np.float32).min))
