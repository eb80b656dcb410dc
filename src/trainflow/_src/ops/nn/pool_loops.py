"""The window loops of the pooling kernels, over NHWC arrays in their compute dtype.

Each loop walks the window tap by tap (one strided slice per window cell, a whole-array
NumPy operation each; MaxPool walks the window's rows, then its columns), over a few
images at a time so that the padded input, the output and the masks of one batch chunk
stay in the CPU cache between the passes.

Tie and NaN rules, as TensorFlow's CPU kernels have them:
- MaxPool starts each window at the dtype's lowest value and keeps the larger value:
  NaN never wins, a window of -inf (or NaN) gives the lowest finite value.
- MaxPoolGrad and MaxPoolWithArgmax pick, per window, the first in-bounds cell in
  row-major order and move to a later cell only if it is strictly greater: the first
  maximum wins ties, a NaN in the first cell keeps the pick, later NaNs never win.
- MaxPoolGradGrad reads the gradient at the first in-bounds cell equal to the given
  forward output.
Padded cells never take part.
"""
import numpy as np

from trainflow._src.framework.dtypes import float_info
from trainflow._src.ops.nn import max_pool_fast, separable_max
from trainflow._src.ops.nn.conv_kernels import batch_chunks, pad_nhwc, run_chunks
from trainflow._src.ops.nn.window_phases import StridePhases


def lowest(dtype):
    """The lowest finite value of `dtype` (as TF's max pooling starts its windows)."""
    dtype = np.dtype(dtype)
    if dtype.name == "bfloat16" or np.issubdtype(dtype, np.floating):
        return float_info(dtype).min
    return np.iinfo(dtype).min


def _below_all(dtype):
    """A padding value that is never strictly greater than any value of `dtype`."""
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _idx_dtype(taps):
    return np.int8 if taps < 128 else np.int32


def _taps(geo):
    kw = geo.ksize[1]
    return [(t, geo.tap_slices(t // kw, t % kw)) for t in range(geo.ksize[0] * kw)]


def _out(x, geo, dtype=None):
    n, _, _, c = x.shape
    return np.empty((n, geo.out_h, geo.out_w, c), dtype or x.dtype)


def _first_valid(geo):
    """Per output row and column: the padded-input row/col of the first in-bounds window
    cell, and its tap offset within the window."""
    firsts = []
    for out, stride, (before, _) in ((geo.out_h, geo.strides[0], geo.pads[0]),
                                     (geo.out_w, geo.strides[1], geo.pads[1])):
        start = np.arange(out) * stride
        offset = np.maximum(before - start, 0)
        firsts.append((start + offset, offset))
    return firsts


def _valid_taps(geo, in_h, in_w):
    """[KH, OH] and [KW, OW] masks: whether window row/col i of each output is in bounds."""
    masks = []
    for out, k, stride, (before, _), size in (
            (geo.out_h, geo.ksize[0], geo.strides[0], geo.pads[0], in_h),
            (geo.out_w, geo.ksize[1], geo.strides[1], geo.pads[1], in_w)):
        pos = np.arange(out)[None, :] * stride + np.arange(k)[:, None] - before
        masks.append((pos >= 0) & (pos < size))
    return masks


# -- max ----------------------------------------------------------------------------------------
def max_forward(x, geo, low):
    """MaxPool: per window, the larger of `low` and every non-NaN cell (two separable
    passes, see `separable_max`). An NHWC view of an NCHW array is pooled in NCHW, and
    the result is then such a view too."""
    out = _out(x, geo)
    if out.size == 0:
        return out
    nchw = x.transpose(0, 3, 1, 2)
    if nchw.flags.c_contiguous and not x.flags.c_contiguous:
        x, axes = nchw, (2, 3)
        out = np.empty(out.transpose(0, 3, 1, 2).shape, out.dtype)
    else:
        axes = (1, 2)

    def chunk(sl):
        separable_max.window_max(x[sl], geo, out[sl], low, axes)

    run_chunks(chunk, batch_chunks(x))
    return out if axes == (1, 2) else out.transpose(0, 2, 3, 1)


def _argmax_chunk(xc, layout, firsts):
    """(value, tap index) of each window's pick under the first-strictly-greater rule."""
    geo = layout.geo
    (rows, roff), (cols, coff) = firsts
    (pt, _), (pl, _) = geo.pads
    best = xc[:, (rows - pt)[:, None], (cols - pl)[None, :], :]
    taps = layout.taps()
    idx_dtype = _idx_dtype(len(taps))
    first = (roff[:, None] * geo.ksize[1] + coff[None, :]).astype(idx_dtype)
    idx = np.empty(best.shape, idx_dtype)
    idx[...] = first[None, :, :, None]
    nan_first = np.isnan(best) if np.issubdtype(best.dtype, np.floating) else None
    if nan_first is not None and not nan_first.any():
        nan_first = None
    phases = layout.split(xc, _below_all(xc.dtype))
    gt = np.empty(best.shape, bool)
    step = np.empty(best.shape, idx_dtype)
    for t, ab, block in taps:
        window = phases[ab][block]
        np.greater(window, best, out=gt)
        np.fmax(best, window, out=best)
        # Taps come in increasing order and a pick is never before the first in-bounds
        # cell, so "idx = t where gt" is a maximum (a masked copy would be much slower).
        np.multiply(gt.view(np.int8), idx_dtype(t), out=step, casting="unsafe")
        np.maximum(idx, step, out=idx)
    if nan_first is not None:  # a NaN first cell keeps the pick (nothing is greater)
        idx[nan_first] = np.broadcast_to(first[None, :, :, None], idx.shape)[nan_first]
        best[nan_first] = np.nan
    return best, idx


def max_argmax(x, geo):
    """MaxPoolWithArgmax's (values, tap index within the window) per output."""
    best = _out(x, geo)
    idx = _out(x, geo, _idx_dtype(geo.ksize[0] * geo.ksize[1]))
    if best.size == 0:
        return best, idx
    layout = StridePhases(geo, x.shape[1], x.shape[2])
    firsts = _first_valid(geo)

    def chunk(sl):
        best[sl], idx[sl] = _argmax_chunk(x[sl], layout, firsts)

    run_chunks(chunk, batch_chunks(x))
    return best, idx


def max_backward(x, dy, geo):
    """MaxPoolGrad: each output gradient added to its window's picked cell."""
    dx = np.zeros(x.shape, dy.dtype)
    if dy.size == 0:
        return dx
    layout = StridePhases(geo, x.shape[1], x.shape[2])
    firsts = _first_valid(geo)
    taps = layout.taps()

    def chunk(sl):
        if max_pool_fast.max_backward_chunk(x[sl], dy[sl], dx[sl], layout):
            return
        _, idx = _argmax_chunk(x[sl], layout, firsts)
        g = dy[sl]
        dphases = layout.zeros(g.shape[0], g.shape[3], dy.dtype)
        hit = np.empty(idx.shape, bool)
        routed = np.empty(g.shape, dy.dtype)
        finite = np.isfinite(g.sum())  # else g * 0 would spread inf/NaN as NaN
        for t, ab, block in taps:
            np.equal(idx, t, out=hit)
            if finite:
                np.multiply(g, hit, out=routed)
            else:
                routed.fill(0)
                np.copyto(routed, g, where=hit)
            dphases[ab][block] += routed
        layout.merge_into(dx[sl], dphases)

    run_chunks(chunk, batch_chunks(x))
    return dx


def max_gradgrad(x, y, ddx, geo):
    """MaxPoolGradGrad: `ddx` at each window's first in-bounds cell equal to `y`."""
    out = np.zeros(y.shape, ddx.dtype)
    if out.size == 0:
        return out
    _, in_h, in_w, _ = x.shape
    rmask, cmask = _valid_taps(geo, in_h, in_w)
    kw = geo.ksize[1]
    taps = _taps(geo)

    def chunk(sl):
        xp = pad_nhwc(x[sl], geo.pads, 0)
        gp = pad_nhwc(ddx[sl], geo.pads, 0)
        yc, oc = y[sl], out[sl]
        unclaimed = np.ones(yc.shape, bool)
        hit = np.empty(yc.shape, bool)
        for t, tap in taps:
            np.equal(xp[tap], yc, out=hit)
            valid = rmask[t // kw][:, None] & cmask[t % kw][None, :]
            if not valid.all():
                hit &= valid[None, :, :, None]
            hit &= unclaimed
            unclaimed ^= hit
            np.copyto(oc, gp[tap], where=hit)

    run_chunks(chunk, batch_chunks(x))
    return out


# -- average ------------------------------------------------------------------------------------
def avg_counts(geo, in_h, in_w, dtype):
    """Number of in-bounds cells of each window: an [OH, OW, 1] array."""
    rmask, cmask = _valid_taps(geo, in_h, in_w)
    return (rmask.sum(0)[:, None] * cmask.sum(0)[None, :]).astype(dtype)[:, :, None]


def avg_forward(x, geo):
    """AvgPool: the mean of each window's in-bounds cells."""
    out = _out(x, geo)
    if out.size == 0:
        return out
    layout = StridePhases(geo, x.shape[1], x.shape[2])
    taps = layout.taps()

    def chunk(sl):
        phases = layout.split(x[sl], 0)
        o = out[sl]
        _, ab, block = taps[0]
        np.copyto(o, phases[ab][block])
        for _, ab, block in taps[1:]:
            o += phases[ab][block]
        o /= counts

    counts = avg_counts(geo, x.shape[1], x.shape[2], x.dtype)
    run_chunks(chunk, batch_chunks(x))
    return out


def _tf_grad_spans(out, k, stride, before, size):
    """(start, length) of the input cells TF's AvgPoolGrad spreads each output over along
    one axis. TF clips the window at the start, then limits its length to `k` cells from
    the clipped start, so a window larger than the input on both sides spreads over
    cells the forward window did not cover."""
    start = np.arange(out) * stride
    clipped = start < before
    length = np.where(clipped, k + start - before, k)
    start = np.where(clipped, 0, start - before)
    length = np.where(start + k > size, np.minimum(size - start, k), length)
    return start, length


def _spans_are_windows(spans, out, k, stride, before, size):
    start, length = spans
    lo = np.arange(out) * stride - before
    hi = np.minimum(lo + k, size)
    lo = np.maximum(lo, 0)
    return np.array_equal(start, lo) and np.array_equal(length, hi - lo)


def avg_backward(shape, dy, geo):
    """AvgPoolGrad: each output gradient spread evenly over its window's in-bounds cells
    (over TF's spans where those are not the windows)."""
    _, in_h, in_w, c = shape
    dx = np.zeros(shape, dy.dtype)
    if dy.size == 0:
        return dx
    axes = ((geo.out_h, geo.ksize[0], geo.strides[0], geo.pads[0][0], in_h),
            (geo.out_w, geo.ksize[1], geo.strides[1], geo.pads[1][0], in_w))
    spans = [_tf_grad_spans(*axis) for axis in axes]
    if not all(_spans_are_windows(span, *axis) for span, axis in zip(spans, axes)):
        return _avg_backward_spans(dy, spans, in_h, in_w)
    scaled = dy / avg_counts(geo, in_h, in_w, dy.dtype)
    layout = StridePhases(geo, in_h, in_w)
    taps = layout.taps()

    def chunk(sl):
        g = scaled[sl]
        dphases = layout.zeros(g.shape[0], c, dy.dtype)
        for _, ab, block in taps:
            dphases[ab][block] += g
        layout.merge_into(dx[sl], dphases)

    run_chunks(chunk, batch_chunks(dx))
    return dx


def _avg_backward_spans(dy, spans, in_h, in_w):
    """AvgPoolGrad over arbitrary per-output spans, as two 0/1 matrix contractions."""
    (hs, hl), (ws, wl) = spans
    rows = np.arange(in_h)[:, None]
    cols = np.arange(in_w)[:, None]
    a_h = ((rows >= hs) & (rows < hs + hl)).astype(dy.dtype)  # [H, OH]
    a_w = ((cols >= ws) & (cols < ws + wl)).astype(dy.dtype)  # [W, OW]
    scaled = dy / (hl[:, None] * wl[None, :]).astype(dy.dtype)[:, :, None]
    return np.einsum("hi,wj,nijc->nhwc", a_h, a_w, scaled, optimize=True)
