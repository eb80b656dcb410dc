"""MaxPoolGrad's fast path over the stride-phase layout (`window_phases`).

`max_backward_chunk` serves batch chunks whose input has no NaN and
no -inf and whose gradient is finite. Then every window's maximum is one of its cells
and TensorFlow's pick (the first in-bounds cell in row-major order, then a later one
only if strictly greater) is the first cell equal to the maximum: one pass per tap
finds the maximum, and per tap one comparison and two cheap boolean passes (a
`free` mask, cleared where a window has made its pick, so that ties go to the first
cell) find the picks; the gradient is then routed by one multiply and one add per tap.
"""
import numpy as np


def max_backward_chunk(xc, g, dxc, layout):
    """MaxPoolGrad of one batch chunk, written into `dxc` over the phase layout `layout`
    (a StridePhases); returns False (with `dxc` untouched) when the chunk needs the
    general rules (a NaN or -inf input, a non-finite gradient, integer dtypes)."""
    if xc.dtype.kind != "f" or g.dtype.kind != "f":
        return False
    # A float32 sum that overflows only sends a finite chunk down the general path.
    if not xc.min() > -np.inf or not np.isfinite(g.sum()):
        return False
    taps = layout.taps()
    phases = layout.split(xc, -np.inf)
    m = np.full(g.shape, -np.inf, xc.dtype)
    for _, ab, block in taps:
        np.maximum(m, phases[ab][block], out=m)
    free = np.ones(g.shape, bool)
    hit = np.empty(g.shape, bool)
    routed = np.empty(g.shape, g.dtype)
    dphases = layout.zeros(g.shape[0], g.shape[3], g.dtype)
    written = set()
    for _, ab, block in taps:
        np.equal(phases[ab][block], m, out=hit)
        np.logical_and(hit, free, out=hit)
        np.logical_xor(free, hit, out=free)
        if ab in written:
            np.multiply(g, hit, out=routed)
            dphases[ab][block] += routed
        else:  # the first tap of a phase writes its block of the zeros directly
            np.multiply(g, hit, out=dphases[ab][block])
            written.add(ab)
    # Merged by adding +0: a negative gradient times a miss is -0.0, and TF's cells that
    # no pick reaches hold +0.0.
    zero = g.dtype.type(0)
    for (a, b), p in dphases.items():
        _, dst_a, src_a = layout.rows[a]
        _, dst_b, src_b = layout.cols[b]
        np.add(p[:, dst_a, dst_b], zero, out=dxc[:, src_a, src_b])
    return True
