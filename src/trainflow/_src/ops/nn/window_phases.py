"""A padded NHWC batch split by stride phase, so that every window tap is a block.

With strides (sh, sw), window tap (i, j) of all outputs reads the padded input cells
(oh*sh + i, ow*sw + j): a strided slice whose contiguous runs are only C values long,
which makes every NumPy pass over it slow. Phase (a, b) holds the padded cells whose
row is a mod sh and column b mod sw, packed; tap (i, j) is then the block
``phase(i % sh, j % sw)[:, i//sh : i//sh + OH, j//sw : j//sw + OW]``, whose runs are
OW*C values long. Splitting costs one strided pass over the input (what padding
costs anyway); merging gradients back costs one more.
"""
import numpy as np


class StridePhases:
    """The phase layout of one window geometry over inputs of spatial size (in_h, in_w)."""

    __slots__ = ("geo", "in_h", "in_w", "rows", "cols")

    def __init__(self, geo, in_h, in_w):
        self.geo, self.in_h, self.in_w = geo, in_h, in_w
        self.rows = _axis_phases(geo.out_h, geo.ksize[0], geo.strides[0], geo.pads[0][0], in_h)
        self.cols = _axis_phases(geo.out_w, geo.ksize[1], geo.strides[1], geo.pads[1][0], in_w)

    def split(self, x, fill):
        """{(a, b): phase array} of NHWC `x`, padded cells set to `fill`."""
        n, _, _, c = x.shape
        phases = {}
        for a, (size_a, dst_a, src_a) in self.rows.items():
            for b, (size_b, dst_b, src_b) in self.cols.items():
                p = np.empty((n, size_a, size_b, c), x.dtype)
                if dst_a.start or dst_a.stop < size_a or dst_b.start or dst_b.stop < size_b:
                    p.fill(fill)
                p[:, dst_a, dst_b] = x[:, src_a, src_b]
                phases[a, b] = p
        return phases

    def zeros(self, n, c, dtype):
        """Zero-filled phase arrays for accumulating a gradient."""
        return {(a, b): np.zeros((n, ra[0], cb[0], c), dtype)
                for a, ra in self.rows.items() for b, cb in self.cols.items()}

    def merge_into(self, out, phases):
        """Writes the in-bounds cells of `phases` into NHWC `out` (cells no window reads
        are left as they are)."""
        for (a, b), p in phases.items():
            _, dst_a, src_a = self.rows[a]
            _, dst_b, src_b = self.cols[b]
            out[:, src_a, src_b] = p[:, dst_a, dst_b]
        return out

    def taps(self):
        """[(tap index, (a, b), block index)] in row-major window order."""
        geo = self.geo
        (kh, kw), (sh, sw) = geo.ksize, geo.strides
        result = []
        for i in range(kh):
            for j in range(kw):
                block = (slice(None), slice(i // sh, i // sh + geo.out_h),
                         slice(j // sw, j // sw + geo.out_w))
                result.append((i * kw + j, (i % sh, j % sw), block))
        return result


def _axis_phases(out, k, stride, before, size):
    """{phase: (length, slice into the phase, slice into the input)} along one axis,
    for the phases some window tap reads."""
    phases = {}
    for a in range(min(stride, k)):
        length = out + (k - 1 - a) // stride
        r0 = (a - before) % stride  # first input index in this phase
        p0 = (r0 + before) // stride  # its index within the phase
        count = max(0, min(-(-(size - r0) // stride), length - p0))
        phases[a] = (length, slice(p0, p0 + count),
                     slice(r0, r0 + stride * (count - 1) + 1 if count else r0, stride))
    return phases
