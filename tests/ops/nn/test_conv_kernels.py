"""The conv/pool/LRN NumPy kernels against direct loop-based references (test-only,
slow, written from the definitions), plus dtype handling and runtime errors."""
import itertools

import numpy as np
import pytest

from trainflow._src.framework import errors
from trainflow._src.ops.nn import conv_geometry as G
from trainflow._src.ops.nn import conv_kernels as K
from trainflow._src.ops.nn import pool_kernels as P

from pool_reference import tf_avg_grad_span

RNG = np.random.RandomState(42)


def same_pads(size, k, s, d=1):
    eff = (k - 1) * d + 1
    out = -(-size // s)
    need = max((out - 1) * s + eff - size, 0)
    return need // 2, need - need // 2


# -- loop references -------------------------------------------------------------------------------
def ref_conv(x, w, strides, dilations, pads):
    """out[b,i,j,o] = sum_{a,c,k} xpad[b, i*sh + a*dh, j*sw + c*dw, g*Cg + k] w[a,c,k,o]."""
    n, h, wd, ch = x.shape
    kh, kw, cg, o = w.shape
    og = o // (ch // cg)
    (pt, pb), (pl, pr) = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    sh, sw = strides
    dh, dw = dilations
    oh = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, oh, ow, o))
    for b, i, j, oc in itertools.product(range(n), range(oh), range(ow), range(o)):
        g = oc // og
        acc = 0.0
        for a, c, k in itertools.product(range(kh), range(kw), range(cg)):
            acc += xp[b, i * sh + a * dh, j * sw + c * dw, g * cg + k] * w[a, c, k, oc]
        out[b, i, j, oc] = acc
    return out


def ref_conv_backprop(x, w, dy, strides, dilations, pads):
    """(dx, dw) by scattering each output gradient over its window."""
    n, h, wd, ch = x.shape
    kh, kw, cg, o = w.shape
    og = o // (ch // cg)
    (pt, pb), (pl, pr) = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    dxp = np.zeros_like(xp)
    dw = np.zeros(w.shape)
    sh, sw = strides
    dh, dwl = dilations
    for b, i, j, oc in itertools.product(*(range(d) for d in dy.shape)):
        g = oc // og
        for a, c, k in itertools.product(range(kh), range(kw), range(cg)):
            r, col, ci = i * sh + a * dh, j * sw + c * dwl, g * cg + k
            dxp[b, r, col, ci] += dy[b, i, j, oc] * w[a, c, k, oc]
            dw[a, c, k, oc] += dy[b, i, j, oc] * xp[b, r, col, ci]
    return dxp[:, pt:pt + h, pl:pl + wd, :], dw


def ref_pool(x, ksize, strides, pads, kind):
    """Max or mean over each window's in-bounds cells; for max also the first argmax."""
    n, h, w, c = x.shape
    (pt, pb), (pl, pr) = pads
    kh, kw = ksize
    sh, sw = strides
    oh = (h + pt + pb - kh) // sh + 1
    ow = (w + pl + pr - kw) // sw + 1
    out = np.zeros((n, oh, ow, c))
    arg = np.zeros((n, oh, ow, c, 2), int)
    for b, i, j, ch in itertools.product(range(n), range(oh), range(ow), range(c)):
        cells = [(r, col) for r in range(i * sh - pt, i * sh - pt + kh)
                 for col in range(j * sw - pl, j * sw - pl + kw) if 0 <= r < h and 0 <= col < w]
        vals = [x[b, r, col, ch] for r, col in cells]
        if kind == "max":
            best = int(np.argmax(vals))
            out[b, i, j, ch] = vals[best]
            arg[b, i, j, ch] = cells[best]
        else:
            out[b, i, j, ch] = np.mean(vals)
    return out, arg


def ref_lrn(x, r, bias, alpha, beta):
    out = np.zeros(x.shape)
    c = x.shape[-1]
    for idx in np.ndindex(*x.shape[:-1]):
        for d in range(c):
            sq = sum(float(x[idx + (k,)]) ** 2 for k in range(max(0, d - r), min(c, d + r + 1)))
            out[idx + (d,)] = x[idx + (d,)] / (bias + alpha * sq) ** beta
    return out


# -- geometry --------------------------------------------------------------------------------------
@pytest.mark.parametrize("size,k,s,d,padding,expected", [
    (6, 3, 2, 1, "SAME", (3, 0, 1)),      # odd total padding: the extra cell goes after
    (5, 3, 2, 1, "SAME", (3, 1, 1)),
    (4, 5, 1, 1, "SAME", (4, 2, 2)),      # window larger than the input
    (7, 3, 1, 2, "SAME", (7, 2, 2)),      # dilated: effective window 5
    (7, 3, 2, 1, "VALID", (3, 0, 0)),
    (2, 3, 2, 1, "VALID", (0, 0, 0)),     # TF's kernels truncate (2 - 3 + 2) / 2 to 0
])
def test_windowed_output_size_matches_tf_arithmetic(size, k, s, d, padding, expected):
    assert G.windowed_output_size(size, k, s, d, padding) == expected


def test_windowed_output_size_explicit_and_negative():
    assert G.windowed_output_size(4, 3, 1, 1, b"EXPLICIT", 1, 2) == (5, 1, 2)
    with pytest.raises(errors.InvalidArgumentError, match=r"Computed output size would be "
                       r"negative: -1 \[input_size: 1, effective_filter_size: 3, stride: 1\]"):
        G.windowed_output_size(1, 3, 1, 1, "VALID")


# -- convolution -----------------------------------------------------------------------------------
CONV_CASES = [  # x shape, w shape, strides, dilations, padding
    ((2, 7, 6, 3), (3, 2, 3, 4), (1, 1), (1, 1), "SAME"),
    ((1, 6, 6, 2), (3, 3, 2, 3), (2, 2), (1, 1), "SAME"),
    ((1, 7, 5, 2), (2, 3, 2, 2), (2, 3), (1, 1), "VALID"),
    ((1, 8, 7, 2), (3, 2, 2, 2), (1, 1), (2, 3), "SAME"),
    ((1, 8, 8, 2), (2, 2, 2, 3), (2, 1), (3, 2), "VALID"),
    ((2, 5, 5, 4), (3, 3, 2, 6), (1, 2), (1, 1), "SAME"),           # 2 groups
    ((1, 5, 6, 20), (2, 2, 20, 3), (1, 1), (1, 1), "SAME"),         # dx as a forward conv
    ((1, 7, 6, 20), (3, 2, 20, 3), (2, 1), (1, 1), "SAME"),         # NHWC col2im path
    ((2, 7, 8, 16), (3, 2, 16, 5), (1, 1), (2, 3), "SAME"),         # forward conv, dilated
    ((1, 6, 7, 16), (3, 4, 16, 2), (1, 1), (1, 2), "VALID"),
    ((1, 4, 4, 32), (3, 3, 8, 8), (2, 2), (1, 1), "VALID"),         # 4 groups, NHWC col2im
    ((3, 4, 3, 64), (3, 3, 64, 2), (1, 1), (1, 1), "SAME"),         # wide filter gradient
    ((3, 3, 3, 128), (3, 3, 64, 4), (2, 1), (1, 1), "SAME"),        # wide, 2 groups
]


@pytest.mark.parametrize("chunk_images", [None, 1, 2], ids=["whole", "chunks1", "chunks2"])
@pytest.mark.parametrize("xs,ws,strides,dilations,padding", CONV_CASES)
def test_conv_forward_and_backprops_match_loops(xs, ws, strides, dilations, padding,
                                                chunk_images, monkeypatch):
    if chunk_images:  # im2col matrices of `chunk_images` images at a time
        geo = G.Geometry(xs[1], xs[2], ws[0], ws[1], strides, dilations, padding)
        monkeypatch.setattr(K, "COLS_BYTES", chunk_images * geo.out_h * geo.out_w *
                            ws[0] * ws[1] * xs[3] * 8)
    x, w = RNG.randn(*xs), RNG.randn(*ws)
    pads = tuple(same_pads(size, k, s, d) if padding == "SAME" else (0, 0)
                 for size, k, s, d in zip(xs[1:3], ws[:2], strides, dilations))
    y = K.conv2d_nhwc(x, w, strides, dilations, padding)
    expected = ref_conv(x, w, strides, dilations, pads)
    np.testing.assert_allclose(y, expected, rtol=1e-10, atol=1e-10)
    dy = RNG.randn(*y.shape)
    dx_ref, dw_ref = ref_conv_backprop(x, w, dy, strides, dilations, pads)
    dx = K.conv2d_backprop_input_nhwc(xs, w, dy, strides, dilations, padding)
    dw = K.conv2d_backprop_filter_nhwc(x, ws, dy, strides, dilations, padding)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-10, atol=1e-10)


def test_conv_explicit_padding_matches_loops():
    x, w = RNG.randn(1, 4, 5, 2), RNG.randn(2, 3, 2, 2)
    pads = ((1, 2), (0, 3))
    y = K.conv2d_nhwc(x, w, (1, 2), (1, 1), "EXPLICIT", pads)
    np.testing.assert_allclose(y, ref_conv(x, w, (1, 2), (1, 1), pads), atol=1e-10)


@pytest.mark.parametrize("pads", [((1, 2), (0, 1)), ((3, 0), (1, 1)), ((0, 0), (2, 2))])
@pytest.mark.parametrize("out_format", ["NHWC", "NCHW"])
def test_input_gradient_as_forward_conv_equals_col2im(pads, out_format, monkeypatch):
    """Stride 1, one group, 16+ channels: dy convolved with the turned filter, against the
    col2im path (pads wider than the window, ((3, 0), ...), fall back to it)."""
    x = RNG.randn(2, 6, 5, 16).astype(np.float32)
    w = RNG.randn(3, 3, 16, 8).astype(np.float32)
    geo = G.Geometry(6, 5, 3, 3, (1, 1), (1, 1), "EXPLICIT", pads)
    dy = RNG.randn(2, geo.out_h, geo.out_w, 8).astype(np.float32)
    args = (x.shape, w, dy, (1, 1), (1, 1), "EXPLICIT", pads)
    fast = K.conv2d_backprop_input_nhwc(*args, out_format=out_format)
    monkeypatch.setattr(K, "_transposed_pads", lambda *a: None)
    slow = K.conv2d_backprop_input_nhwc(*args, out_format=out_format)
    assert fast.dtype == np.float32 and fast.shape == slow.shape
    np.testing.assert_allclose(fast, slow, rtol=1e-5, atol=1e-5)
    dx_ref, _ = ref_conv_backprop(x, w, dy, (1, 1), (1, 1), pads)
    to_nhwc = fast.transpose(0, 2, 3, 1) if out_format == "NCHW" else fast
    np.testing.assert_allclose(to_nhwc, dx_ref, rtol=1e-4, atol=1e-4)


ATTRS = dict(strides=[1, 1, 1, 1], padding=b"SAME", explicit_paddings=[], data_format=b"NHWC",
             dilations=[1, 1, 1, 1])


def test_conv_kernel_nchw_equals_nhwc():
    x, w = RNG.randn(2, 6, 5, 3).astype(np.float32), RNG.randn(3, 3, 3, 4).astype(np.float32)
    nhwc = K.conv2d_kernel(x, w, **dict(ATTRS, strides=[1, 2, 1, 1], dilations=[1, 1, 2, 1]))
    nchw = K.conv2d_kernel(x.transpose(0, 3, 1, 2), w, **dict(
        ATTRS, data_format=b"NCHW", strides=[1, 1, 2, 1], dilations=[1, 1, 1, 2]))
    np.testing.assert_allclose(nchw, nhwc.transpose(0, 3, 1, 2), rtol=1e-6)
    assert nchw.flags.c_contiguous

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", ["conv", "input", "depthwise", "depthwise_input"])
def test_nchw_results_written_in_place_equal_nhwc(op, dtype):
    x = RNG.randn(2, 5, 6, 4).astype(dtype)
    w = RNG.randn(3, 2, 4, 3).astype(dtype)
    dw_filter = RNG.randn(3, 2, 4, 2).astype(dtype)
    dy = RNG.randn(2, 3, 6, 3).astype(dtype)
    dw_dy = RNG.randn(2, 3, 6, 8).astype(dtype)
    t = lambda a: a.transpose(0, 3, 1, 2)  # noqa: E731
    calls = {
        "conv": lambda a, f: K.conv2d_kernel(f(x), w, **a),
        "input": lambda a, f: K.conv2d_backprop_input_kernel(np.array(f(x).shape), w, f(dy),
                                                             **a),
        "depthwise": lambda a, f: K.depthwise_kernel(f(x), dw_filter, **a),
        "depthwise_input": lambda a, f: K.depthwise_backprop_input_kernel(
            np.array(f(x).shape), dw_filter, f(dw_dy), **a),
    }
    nhwc = calls[op](dict(ATTRS, strides=[1, 2, 1, 1]), lambda a: a)
    nchw = calls[op](dict(ATTRS, data_format=b"NCHW", strides=[1, 1, 2, 1]), t)
    assert nchw.dtype == dtype and nchw.flags.c_contiguous
    np.testing.assert_array_equal(nchw, t(nhwc))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, "bfloat16"])
def test_conv_kernels_keep_dtype(dtype):
    from trainflow._src.framework import dtypes
    np_dtype = dtypes.as_dtype(dtype).as_numpy_dtype if isinstance(dtype, str) else dtype
    x = (RNG.rand(1, 4, 4, 2) * 4).astype(np_dtype)
    w = (RNG.rand(2, 2, 2, 3) * 4).astype(np_dtype)
    y = K.conv2d_kernel(x, w, **ATTRS)
    assert y.dtype == np.dtype(np_dtype)
    tol = {np.float16: 1e-2, "bfloat16": 5e-2}.get(dtype, 1e-6)
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), (1, 1), (1, 1), ((0, 1), (0, 1)))
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=tol)
    if dtype != np.int32:
        dx = K.conv2d_backprop_input_kernel(np.array([1, 4, 4, 2]), w, y, **ATTRS)
        dw = K.conv2d_backprop_filter_kernel(x, np.array([2, 2, 2, 3]), y, **ATTRS)
        assert dx.dtype == dw.dtype == np.dtype(np_dtype)


def test_depthwise_kernels_match_per_channel_conv():
    x, w = RNG.randn(2, 5, 6, 3), RNG.randn(3, 2, 3, 2)
    y = K.depthwise_kernel(x, w, **dict(ATTRS, strides=[1, 2, 1, 1]))
    for c in range(3):
        ref = ref_conv(x[..., c:c + 1], w[:, :, c:c + 1, :], (2, 1), (1, 1),
                       (same_pads(5, 3, 2), same_pads(6, 2, 1)))
        np.testing.assert_allclose(y[..., 2 * c:2 * c + 2], ref, atol=1e-10)
    dy = RNG.randn(*y.shape)
    attrs = dict(ATTRS, strides=[1, 2, 1, 1])
    dx = K.depthwise_backprop_input_kernel(np.array(x.shape), w, dy, **attrs)
    dw = K.depthwise_backprop_filter_kernel(x, np.array(w.shape), dy, **attrs)
    # Adjoint identities: <conv(x, w), dy> = <x, dx> = <w, dw>.
    np.testing.assert_allclose((y * dy).sum(), (x * dx).sum(), rtol=1e-10)
    np.testing.assert_allclose((y * dy).sum(), (w * dw).sum(), rtol=1e-10)


def test_backprop_input_accepts_two_spatial_sizes():
    w, dy = RNG.randn(3, 3, 2, 4), RNG.randn(2, 3, 3, 4)
    full = K.conv2d_backprop_input_kernel(np.array([2, 6, 6, 2]), w, dy,
                                          **dict(ATTRS, strides=[1, 2, 2, 1]))
    short = K.conv2d_backprop_input_kernel(np.array([6, 6]), w, dy,
                                           **dict(ATTRS, strides=[1, 2, 2, 1]))
    np.testing.assert_array_equal(full, short)


@pytest.mark.parametrize("kernel,args,attrs,error,message", [
    (K.conv2d_kernel, ((1, 4, 4, 3), (3, 3, 3, 2)), dict(strides=[2, 1, 1, 1]),
     errors.UnimplementedError, "does not yet support strides in the batch and depth"),
    (K.conv2d_kernel, ((1, 4, 4, 3), (3, 3, 3, 2)), dict(dilations=[1, 1, 1, 2]),
     errors.UnimplementedError, "does not yet support dilations in the batch and depth"),
    (K.conv2d_kernel, ((1, 4, 4, 3), (3, 3, 2, 2)), {},
     errors.InvalidArgumentError, "input depth must be evenly divisible by filter depth: 3 vs 2"),
    (K.conv2d_kernel, ((4, 4, 3), (3, 3, 3, 2)), {},
     errors.InvalidArgumentError, r"convolution input must be 4-dimensional: \[4,4,3\]"),
    (K.conv2d_kernel, ((1, 4, 4, 3), (3, 3, 2)), {},
     errors.InvalidArgumentError, r"convolution filter must be 4-dimensional: \[3,3,2\]"),
    (K.conv2d_kernel, ((1, 1, 4, 3), (3, 3, 3, 2)), dict(padding=b"VALID"),
     errors.InvalidArgumentError, "Computed output size would be negative"),
    (K.depthwise_kernel, ((1, 4, 4, 3), (3, 3, 4, 2)), {},
     errors.InvalidArgumentError, "input and filter must have the same depth: 3 vs 4"),
])
def test_conv_kernel_errors(kernel, args, attrs, error, message):
    arrays = [np.zeros(s, np.float32) for s in args]
    all_attrs = dict(ATTRS, **attrs)
    if kernel is K.depthwise_kernel:
        all_attrs.pop("use_cudnn_on_gpu", None)
    with pytest.raises(error, match=message):
        kernel(*arrays, **all_attrs)


def test_backprop_input_size_mismatch_message():
    with pytest.raises(errors.InvalidArgumentError,
                       match="Size of out_backprop doesn't match computed: actual = 5, "
                             "computed = 4 spatial_dim: 1 input: 8 filter: 3"):
        K.conv2d_backprop_input_kernel(np.array([1, 8, 8, 3]), np.zeros((3, 3, 3, 6), "f"),
                                       np.zeros((1, 5, 4, 6), "f"),
                                       **dict(ATTRS, strides=[1, 2, 2, 1]))


# -- pooling ---------------------------------------------------------------------------------------
POOL_CASES = [  # x shape, ksize, strides, padding
    ((2, 5, 5, 3), (3, 3), (2, 2), "SAME"),
    ((1, 6, 7, 2), (2, 3), (2, 1), "SAME"),
    ((1, 7, 6, 2), (3, 2), (2, 2), "VALID"),
    ((1, 3, 4, 1), (5, 5), (1, 1), "SAME"),      # windows larger than the image
]


def _pool_attrs(ksize, strides, padding):
    return dict(ksize=[1, ksize[0], ksize[1], 1], strides=[1, strides[0], strides[1], 1],
                padding=padding.encode(), data_format=b"NHWC")


@pytest.mark.parametrize("xs,ksize,strides,padding", POOL_CASES)
def test_pool_kernels_match_loops(xs, ksize, strides, padding):
    x = np.floor(RNG.rand(*xs) * 4)  # many ties: gradients must go to the first max
    pads = tuple(same_pads(size, k, s) if padding == "SAME" else (0, 0)
                 for size, k, s in zip(xs[1:3], ksize, strides))
    attrs = _pool_attrs(ksize, strides, padding)
    mx_ref, arg = ref_pool(x, ksize, strides, pads, "max")
    avg_ref, _ = ref_pool(x, ksize, strides, pads, "avg")
    mx = P.max_pool_kernel(x, **attrs)
    np.testing.assert_array_equal(mx, mx_ref)
    np.testing.assert_allclose(P.avg_pool_kernel(x, **attrs), avg_ref, rtol=1e-12)
    dy = RNG.randn(*mx.shape)
    dx_ref = np.zeros(x.shape)
    avg_dx_ref = np.zeros(x.shape)
    for b, i, j, c in np.ndindex(*dy.shape):
        r, col = arg[b, i, j, c]
        dx_ref[b, r, col, c] += dy[b, i, j, c]
    for b, i, j, c in np.ndindex(*dy.shape):
        # TF's AvgPoolGrad spans: a window larger than the image on both sides reaches
        # ksize cells from its clipped start (see pool_reference).
        rows = tf_avg_grad_span(i, ksize[0], strides[0], pads[0][0], xs[1])
        cols = tf_avg_grad_span(j, ksize[1], strides[1], pads[1][0], xs[2])
        for r in rows:
            for q in cols:
                avg_dx_ref[b, r, q, c] += dy[b, i, j, c] / (len(rows) * len(cols))
    np.testing.assert_allclose(P.max_pool_grad_kernel(x, mx, dy, **attrs), dx_ref, atol=1e-12)
    np.testing.assert_allclose(P.avg_pool_grad_kernel(np.array(xs), dy, **attrs), avg_dx_ref,
                               atol=1e-12)
    ddx = RNG.randn(*xs)
    gg_ref = np.zeros(mx.shape)
    for b, i, j, c in np.ndindex(*mx.shape):
        r, col = arg[b, i, j, c]
        gg_ref[b, i, j, c] = ddx[b, r, col, c]
    np.testing.assert_array_equal(P.max_pool_grad_grad_kernel(x, mx, ddx, **attrs), gg_ref)


def test_max_pool_with_argmax_indices():
    x = np.floor(RNG.rand(2, 5, 4, 3) * 3).astype(np.float32)
    attrs = dict(ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1], padding=b"SAME")
    from trainflow._src.framework import dtypes
    for include_batch in (False, True):
        out, arg = P.max_pool_with_argmax_kernel(x, Targmax=dtypes.int64,
                                                 include_batch_in_index=include_batch, **attrs)
        ref, cells = ref_pool(x, (3, 2), (2, 2), (same_pads(5, 3, 2), same_pads(4, 2, 2)), "max")
        np.testing.assert_array_equal(out, ref)
        assert arg.dtype == np.int64
        for b, i, j, c in np.ndindex(*arg.shape):
            r, col = cells[b, i, j, c]
            flat = (r * 4 + col) * 3 + c + (b * 5 * 4 * 3 if include_batch else 0)
            assert arg[b, i, j, c] == flat
        dy = RNG.randn(*out.shape).astype(np.float32)
        dx = P.max_pool_grad_with_argmax_kernel(x, dy, arg, include_batch_in_index=include_batch,
                                                **attrs)
        np.testing.assert_allclose(dx, P.max_pool_grad_kernel(
            x, out, dy, data_format=b"NHWC", **attrs), rtol=1e-6)
        ddx = RNG.randn(*x.shape).astype(np.float32)
        np.testing.assert_array_equal(
            P.max_pool_grad_grad_with_argmax_kernel(x, ddx, arg,
                                                    include_batch_in_index=include_batch,
                                                    **attrs),
            P.max_pool_grad_grad_kernel(x, out, ddx, data_format=b"NHWC", **attrs))


def test_max_pool_ignores_nan_and_padding_never_wins():
    x = np.array([[np.nan, 1.0], [-3.0, -2.0]], np.float32).reshape(1, 2, 2, 1)
    out = P.max_pool_kernel(x, **_pool_attrs((2, 2), (1, 1), "SAME"))
    np.testing.assert_array_equal(out.reshape(2, 2), [[1.0, 1.0], [-2.0, -2.0]])
    ints = -np.ones((1, 3, 3, 1), np.int32)
    out = P.max_pool_kernel(ints, **_pool_attrs((2, 2), (2, 2), "SAME"))
    assert out.dtype == np.int32 and (out == -1).all()


def test_pools_with_empty_output():
    x = RNG.randn(1, 2, 2, 3).astype(np.float32)
    attrs = _pool_attrs((3, 3), (2, 2), "VALID")  # TF's kernels give 0 rows, not an error
    for kernel in (P.max_pool_kernel, P.avg_pool_kernel):
        assert kernel(x, **attrs).shape == (1, 0, 0, 3)
    dx = P.max_pool_grad_kernel(x, np.zeros((1, 0, 0, 3), "f"), np.zeros((1, 0, 0, 3), "f"),
                                **attrs)
    np.testing.assert_array_equal(dx, np.zeros_like(x))


def test_depth_max_pooling():
    x = RNG.randn(2, 3, 3, 6).astype(np.float32)
    attrs = dict(ksize=[1, 1, 1, 3], strides=[1, 1, 1, 3], padding=b"VALID", data_format=b"NHWC")
    out = P.max_pool_kernel(x, **attrs)
    np.testing.assert_array_equal(out, x.reshape(2, 3, 3, 2, 3).max(-1))
    dy = RNG.randn(*out.shape).astype(np.float32)
    dx = P.max_pool_grad_kernel(x, out, dy, **attrs)
    first = x.reshape(2, 3, 3, 2, 3).argmax(-1)
    expected = np.zeros((2, 3, 3, 2, 3), np.float32)
    np.put_along_axis(expected, first[..., None], dy[..., None], -1)
    np.testing.assert_array_equal(dx, expected.reshape(x.shape))


@pytest.mark.parametrize("kernel,attrs,error,message", [
    (P.max_pool_kernel, dict(ksize=[2, 2, 2, 1]), errors.UnimplementedError,
     "Pooling is not yet supported on the batch dimension."),
    (P.avg_pool_kernel, dict(ksize=[1, 1, 1, 2], strides=[1, 1, 1, 2]),
     errors.UnimplementedError, "Non-spatial pooling is not yet supported"),
    (P.max_pool_kernel, dict(ksize=[1, 2, 2, 3], strides=[1, 2, 2, 3]),
     errors.UnimplementedError, "exactly one of pooling across depth or pooling across"),
    (P.max_pool_kernel, dict(ksize=[1, 1, 1, 3], strides=[1, 1, 1, 3]),
     errors.UnimplementedError, "depth window to evenly divide the input depth"),
    (P.max_pool_kernel, dict(ksize=[1, 1, 1, 2], strides=[1, 1, 1, 1]),
     errors.UnimplementedError, "depth window to equal the depth stride"),
    (P.max_pool_kernel, dict(padding=b"EXPLICIT", explicit_paddings=[0, 0, 2, 0, 0, 0, 0, 0]),
     errors.InvalidArgumentError, "Top padding 2 needs to be smaller than the window size 2"),
    (P.max_pool_kernel, dict(ksize=[1, 0, 2, 1]), errors.InvalidArgumentError,
     "ksize must be positive"),
])
def test_pool_kernel_errors(kernel, attrs, error, message):
    base = dict(ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding=b"SAME", data_format=b"NHWC")
    base.update(attrs)
    with pytest.raises(error, match=message):
        kernel(np.zeros((2, 4, 4, 4), np.float32), **base)


def test_pool_kernels_nchw_and_half():
    x = RNG.randn(2, 3, 5, 4).astype(np.float16)  # NCHW
    nchw = dict(ksize=[1, 1, 3, 3], strides=[1, 1, 2, 2], padding=b"SAME", data_format=b"NCHW")
    nhwc = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding=b"SAME", data_format=b"NHWC")
    xt = x.transpose(0, 2, 3, 1)
    for kernel in (P.max_pool_kernel, P.avg_pool_kernel):
        out = kernel(x, **nchw)
        assert out.dtype == np.float16
        np.testing.assert_array_equal(out, kernel(xt, **nhwc).transpose(0, 3, 1, 2))


# -- LRN -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("r,bias,alpha,beta", [(5, 1.0, 1.0, 0.5), (2, 1.5, 0.3, 0.75),
                                               (1, 2.0, 0.1, 1.0), (0, 1.0, 0.5, 2.0)])
def test_lrn_matches_loops(r, bias, alpha, beta):
    x = RNG.randn(2, 2, 3, 7)
    np.testing.assert_allclose(P.lrn_kernel(x, depth_radius=r, bias=bias, alpha=alpha, beta=beta),
                               ref_lrn(x, r, bias, alpha, beta), rtol=1e-12)


def test_lrn_grad_matches_finite_differences():
    x = RNG.randn(1, 2, 2, 6)
    kw = dict(depth_radius=2, bias=1.5, alpha=0.3, beta=0.75)
    y = P.lrn_kernel(x, **kw)
    dy = RNG.randn(*x.shape)
    dx = P.lrn_grad_kernel(dy, x, y, **kw)
    eps = 1e-6
    numeric = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        step = np.zeros(x.shape)
        step[idx] = eps
        numeric[idx] = ((P.lrn_kernel(x + step, **kw) - P.lrn_kernel(x - step, **kw)) * dy).sum() \
            / (2 * eps)
    np.testing.assert_allclose(dx, numeric, rtol=1e-6, atol=1e-8)


def test_lrn_errors_and_dtype():
    with pytest.raises(errors.InvalidArgumentError, match="in must be 4-dimensional"):
        P.lrn_kernel(np.zeros((2, 2, 3), np.float32), depth_radius=5, bias=1.0, alpha=1.0,
                     beta=0.5)
    out = P.lrn_kernel(np.ones((1, 1, 1, 3), np.float16), depth_radius=5, bias=1.0, alpha=1.0,
                       beta=0.5)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float32), np.full((1, 1, 1, 3), 0.5), rtol=1e-3)


def test_run_chunks_on_threads_keeps_chunk_order(monkeypatch):
    from trainflow._src.kernels import intra_op
    monkeypatch.setattr(intra_op, "threads", lambda: 2)
    chunks = K._image_chunks(32, 1024, 75, 4)  # conv1's im2col: 2 chunks a thread at least
    assert len(chunks) >= 4 and chunks[0].start == 0 and chunks[-1].stop == 32
    assert K.run_chunks(lambda sl: sl.start, chunks) == [sl.start for sl in chunks]
