"""The pooling window loops against loop references of TensorFlow's CPU rules (ties,
NaN, -inf, padding), over the edge geometries (stride larger than the window, SAME
with odd sizes, explicit padding, windows larger than the image), batch chunking,
and NCHW."""
import itertools

import numpy as np
import pytest

from trainflow._src.framework import dtypes
from trainflow._src.ops.nn import conv_geometry as G
from trainflow._src.ops.nn import conv_kernels as K
from trainflow._src.ops.nn import pool_kernels as P
from trainflow._src.ops.nn import pool_loops as L

from pool_reference import tf_avg_grad_span

RNG = np.random.RandomState(7)

CASES = [  # x shape, ksize, strides, padding, explicit pads ((top, bottom), (left, right))
    ((2, 5, 5, 3), (3, 3), (2, 2), "SAME", None),
    ((1, 7, 9, 2), (3, 3), (2, 2), "SAME", None),     # odd sizes: one more pad after
    ((1, 6, 7, 2), (2, 3), (2, 1), "SAME", None),
    ((2, 7, 6, 2), (2, 2), (3, 3), "VALID", None),    # stride > window: cells no window reads
    ((1, 8, 8, 1), (1, 1), (3, 2), "SAME", None),
    ((1, 3, 4, 1), (5, 5), (1, 1), "SAME", None),     # window larger than the image
    ((1, 5, 6, 2), (3, 2), (1, 2), "EXPLICIT", ((2, 1), (1, 0))),
    ((3, 4, 4, 2), (4, 4), (4, 4), "VALID", None),
]


def _geometry(xs, ksize, strides, padding, explicit):
    return G.Geometry(xs[1], xs[2], ksize[0], ksize[1], strides, (1, 1), padding, explicit)


def _windows(geo, xs):
    """Per output (i, j): the in-bounds (row, col) cells of its window, row-major."""
    (pt, _), (pl, _) = geo.pads
    out = {}
    for i, j in itertools.product(range(geo.out_h), range(geo.out_w)):
        r0, c0 = i * geo.strides[0] - pt, j * geo.strides[1] - pl
        out[i, j] = [(r, c) for r in range(r0, r0 + geo.ksize[0])
                     for c in range(c0, c0 + geo.ksize[1]) if 0 <= r < xs[1] and 0 <= c < xs[2]]
    return out


def ref_max(x, geo):
    """TF's MaxPool: start at the lowest finite value, keep strictly larger values."""
    out = np.empty((x.shape[0], geo.out_h, geo.out_w, x.shape[3]), x.dtype)
    for (i, j), cells in _windows(geo, x.shape).items():
        for b, ch in itertools.product(range(x.shape[0]), range(x.shape[3])):
            best = np.finfo(x.dtype).min
            for r, c in cells:
                if x[b, r, c, ch] > best:
                    best = x[b, r, c, ch]
            out[b, i, j, ch] = best
    return out


def ref_pick(x, geo):
    """TF's MaxPoolGrad/WithArgmax pick: the first cell, then any strictly greater one."""
    pick = np.empty((x.shape[0], geo.out_h, geo.out_w, x.shape[3], 2), int)
    for (i, j), cells in _windows(geo, x.shape).items():
        for b, ch in itertools.product(range(x.shape[0]), range(x.shape[3])):
            best = cells[0]
            for cell in cells[1:]:
                if x[(b,) + cell + (ch,)] > x[(b,) + best + (ch,)]:
                    best = cell
            pick[b, i, j, ch] = best
    return pick


def ref_gradgrad(x, y, ddx, geo):
    """TF's MaxPoolGradGrad: ddx at the first cell equal to the forward output, else 0."""
    out = np.zeros(y.shape, ddx.dtype)
    for (i, j), cells in _windows(geo, x.shape).items():
        for b, ch in itertools.product(range(x.shape[0]), range(x.shape[3])):
            for r, c in cells:
                if x[b, r, c, ch] == y[b, i, j, ch]:
                    out[b, i, j, ch] = ddx[b, r, c, ch]
                    break
    return out


def _values(xs):
    """Few distinct values (many ties), a NaN and a -inf sprinkled in."""
    x = np.floor(RNG.rand(*xs) * 3).astype(np.float32)
    flat = x.reshape(-1)
    flat[RNG.choice(flat.size, max(1, flat.size // 7), replace=False)] = np.nan
    flat[RNG.choice(flat.size, max(1, flat.size // 9), replace=False)] = -np.inf
    return x


@pytest.fixture(params=[False, True], ids=["whole", "chunked"])
def chunked(request, monkeypatch):
    if request.param:  # every image its own chunk
        monkeypatch.setattr(K, "CHUNK_BYTES", 1)
    return request.param


@pytest.mark.parametrize("xs,ksize,strides,padding,explicit", CASES)
def test_max_loops_follow_tf_rules(xs, ksize, strides, padding, explicit, chunked):
    geo = _geometry(xs, ksize, strides, padding, explicit)
    x = _values(xs)
    low = np.finfo(np.float32).min
    np.testing.assert_array_equal(L.max_forward(x, geo, low), ref_max(x, geo))
    pick = ref_pick(x, geo)
    best, idx = L.max_argmax(x, geo)
    (pt, _), (pl, _) = geo.pads
    rows = idx // ksize[1] + (np.arange(geo.out_h) * strides[0] - pt)[:, None, None]
    cols = idx % ksize[1] + (np.arange(geo.out_w) * strides[1] - pl)[None, :, None]
    np.testing.assert_array_equal(np.stack([rows, cols], -1), pick)
    b, _, _, ch = np.indices(best.shape)
    np.testing.assert_array_equal(best, x[b, pick[..., 0], pick[..., 1], ch])
    dy = RNG.randn(*best.shape).astype(np.float32)
    expected = np.zeros(xs, np.float32)
    np.add.at(expected, (b, pick[..., 0], pick[..., 1], ch), dy)
    np.testing.assert_allclose(L.max_backward(x, dy, geo), expected, rtol=1e-6, atol=1e-6)
    y = ref_max(x, geo)
    ddx = RNG.randn(*xs).astype(np.float32)
    np.testing.assert_array_equal(L.max_gradgrad(x, y, ddx, geo), ref_gradgrad(x, y, ddx, geo))


@pytest.mark.parametrize("xs,ksize,strides,padding,explicit", CASES)
def test_avg_loops_match_loops(xs, ksize, strides, padding, explicit, chunked):
    geo = _geometry(xs, ksize, strides, padding, explicit)
    x = RNG.randn(*xs)
    windows = _windows(geo, xs)
    expected = np.zeros((xs[0], geo.out_h, geo.out_w, xs[3]))
    dy = RNG.randn(*expected.shape)
    dx = np.zeros(xs)
    (pt, _), (pl, _) = geo.pads
    for (i, j), cells in windows.items():
        rr, cc = [r for r, _ in cells], [c for _, c in cells]
        expected[:, i, j] = x[:, rr, cc].mean(1)
        rows = tf_avg_grad_span(i, ksize[0], strides[0], pt, xs[1])
        cols = tf_avg_grad_span(j, ksize[1], strides[1], pl, xs[2])
        for r, c in itertools.product(rows, cols):
            dx[:, r, c] += dy[:, i, j] / (len(rows) * len(cols))
    np.testing.assert_allclose(L.avg_forward(x, geo), expected, rtol=1e-12)
    np.testing.assert_allclose(L.avg_backward(xs, dy, geo), dx, rtol=1e-12, atol=1e-15)


def test_all_lowest_windows_and_nan_first_cells():
    attrs = dict(ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding=b"VALID")
    x = np.array([np.nan, 1, 2, 0, 5, 1, 0, 0, 0], np.float32).reshape(1, 3, 3, 1)
    out, arg = P.max_pool_with_argmax_kernel(x, Targmax=dtypes.int64,
                                             include_batch_in_index=False, **attrs)
    np.testing.assert_array_equal(out.ravel(), [np.nan, 5, 5, 5])  # the NaN first cell stays
    np.testing.assert_array_equal(arg.ravel(), [0, 4, 4, 4])
    mx = P.max_pool_kernel(x, data_format=b"NHWC", **attrs)
    np.testing.assert_array_equal(mx.ravel(), [5, 5, 5, 5])
    dx = P.max_pool_grad_kernel(x, mx, np.ones_like(mx), data_format=b"NHWC", **attrs)
    np.testing.assert_array_equal(dx.ravel(), [1, 0, 0, 0, 3, 0, 0, 0, 0])
    ninf = np.full((1, 3, 3, 1), -np.inf, np.float32)
    same = dict(ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding=b"SAME", data_format=b"NHWC")
    mx = P.max_pool_kernel(ninf, **same)
    assert (mx == np.finfo(np.float32).min).all()
    dx = P.max_pool_grad_kernel(ninf, mx, np.ones_like(mx), **same)
    np.testing.assert_array_equal(dx.ravel(), [4, 2, 0, 2, 1, 0, 0, 0, 0])  # first real cell
    gg = P.max_pool_grad_grad_kernel(ninf, mx, np.ones_like(ninf), **same)
    assert not gg.any()  # no cell equals the lowest finite value
    half = P.max_pool_kernel(ninf.astype(np.float16), **same)
    assert half.dtype == np.float16 and (half == np.finfo(np.float16).min).all()


@pytest.mark.parametrize("kernel", ["max", "avg", "max_grad", "avg_grad", "gradgrad"])
def test_nchw_equals_nhwc(kernel):
    x = _values((2, 7, 5, 3))
    nhwc = dict(ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1], padding=b"SAME", data_format=b"NHWC")
    nchw = dict(ksize=[1, 1, 3, 2], strides=[1, 1, 2, 2], padding=b"SAME", data_format=b"NCHW")
    t = lambda a: a.transpose(0, 3, 1, 2)  # noqa: E731
    y = P.max_pool_kernel(x, **nhwc)
    dy = RNG.randn(*y.shape).astype(np.float32)
    calls = {
        "max": lambda a, f: P.max_pool_kernel(f(x), **a),
        "avg": lambda a, f: P.avg_pool_kernel(np.nan_to_num(f(x), neginf=-5), **a),
        "max_grad": lambda a, f: P.max_pool_grad_kernel(f(x), f(y), f(dy), **a),
        "avg_grad": lambda a, f: P.avg_pool_grad_kernel(np.array(f(x).shape), f(dy), **a),
        "gradgrad": lambda a, f: P.max_pool_grad_grad_kernel(f(x), f(y), f(x * 2), **a),
    }
    np.testing.assert_array_equal(calls[kernel](nchw, t), t(calls[kernel](nhwc, lambda a: a)))
