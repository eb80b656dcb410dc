"""The maximum over 2-D windows as two 1-D passes: rows first, then columns.

A window's maximum is the maximum over its rows of the maximum over its columns, so a
kh x kw window costs kh + kw elementwise passes instead of kh * kw. The row pass goes
first: its taps are strided slices along H whose contiguous runs are whole image rows
(W*C values), and it shrinks the array to the output's height before the column pass,
whose taps (runs of C values) are the slower kind. Cells outside the input (padding)
are simply left out of each tap's slice, and `np.fmax` skips NaN cells.
"""
import numpy as np


def axis_taps(out, k, stride, before, size):
    """The in-bounds reads of one window axis: per window offset t (in increasing order)
    that some output reads inside the input, (lo, hi, first): outputs lo..hi-1 read
    input cells first, first + stride, ... (output o reads cell o*stride - before + t)."""
    taps = []
    for t in range(k):
        lo = max(0, -(-(before - t) // stride))
        last = size - 1 + before - t
        hi = min(out, last // stride + 1) if last >= 0 else 0
        if hi > lo:
            taps.append((lo, hi, lo * stride - before + t))
    return taps


def max_along(src, axis, out, taps, stride, fill):
    """Writes into `out` the elementwise fmax over `taps` (from `axis_taps`) of `src`'s
    cells along `axis`. Where no tap reaches every output, `out` starts filled with
    `fill`, which then takes part in every output's maximum."""
    lead = (slice(None),) * axis
    n = out.shape[axis]

    def read(tap):
        lo, hi, first = tap
        return src[lead + (slice(first, first + stride * (hi - lo - 1) + 1, stride),)]

    # Taps that every output reads first (the order does not matter to fmax): two of them
    # make the first pass, one is copied; with none, `fill` starts every output.
    full = [tap for tap in taps if tap[0] == 0 and tap[1] == n]
    rest = [tap for tap in taps if tap[0] != 0 or tap[1] != n]
    if len(full) >= 2:
        np.fmax(read(full[0]), read(full[1]), out=out)
        rest = full[2:] + rest
    elif full:
        np.copyto(out, read(full[0]))
    else:
        out.fill(fill)
    for tap in rest:
        part = out[lead + (slice(tap[0], tap[1]),)]
        np.fmax(part, read(tap), out=part)


def window_max(x, geo, out, low, axes=(1, 2)):
    """Writes into `out` MaxPool's result over the windows of `geo` on `x`, whose rows and
    columns are `axes` (NHWC's (1, 2) or NCHW's (2, 3); `out` is laid out alike): per
    window, the largest of `low` and the in-bounds cells that are not NaN.
    (Of a +0 and a -0 cell either may be kept: np.fmax does not order them.)"""
    h_axis, w_axis = axes
    h, w = x.shape[h_axis], x.shape[w_axis]
    (kh, kw), (sh, sw) = geo.ksize, geo.strides
    (pt, _), (pl, _) = geo.pads
    rows = axis_taps(geo.out_h, kh, sh, pt, h)
    cols = axis_taps(geo.out_w, kw, sw, pl, w)
    if rows == [(0, h, 0)] and sh == 1:  # one-row windows reading every row: x itself
        by_rows = x
    else:
        shape = list(out.shape)
        shape[w_axis] = w
        by_rows = np.empty(shape, x.dtype)
        max_along(x, h_axis, by_rows, rows, sh, low)
    max_along(by_rows, w_axis, out, cols, sw, low)
    np.fmax(out, low, out=out)  # NaN-only and -inf windows: `low`
    return out
