"""StridePhases: every window tap read from the phase blocks equals the strided slice
of the padded input, and merging phases back writes exactly the cells windows read."""
import numpy as np
import pytest

from trainflow._src.ops.nn import conv_geometry as G
from trainflow._src.ops.nn import conv_kernels as K
from trainflow._src.ops.nn.window_phases import StridePhases

GEOMETRIES = [  # in (h, w), ksize, strides, padding, explicit
    ((7, 9), (3, 3), (2, 2), "SAME", None),
    ((6, 7), (2, 3), (2, 1), "SAME", None),
    ((7, 6), (2, 2), (3, 3), "VALID", None),   # stride > window: unread rows and columns
    ((3, 4), (5, 5), (1, 1), "SAME", None),    # window larger than the input
    ((5, 6), (3, 2), (1, 2), "EXPLICIT", ((2, 1), (1, 0))),
    ((8, 8), (1, 1), (3, 2), "VALID", None),
]


@pytest.mark.parametrize("size,ksize,strides,padding,explicit", GEOMETRIES)
def test_phase_blocks_are_the_strided_taps(size, ksize, strides, padding, explicit):
    geo = G.Geometry(*size, *ksize, strides, (1, 1), padding, explicit)
    x = np.arange(2 * size[0] * size[1] * 3, dtype=np.float64).reshape(2, *size, 3)
    layout = StridePhases(geo, *size)
    phases = layout.split(x, -1.0)
    xp = K.pad_nhwc(x, geo.pads, -1.0)
    taps = layout.taps()
    assert [t for t, _, _ in taps] == list(range(ksize[0] * ksize[1]))
    for t, ab, block in taps:
        np.testing.assert_array_equal(phases[ab][block],
                                      xp[geo.tap_slices(t // ksize[1], t % ksize[1])])
    read = np.zeros(xp.shape, bool)
    for t, _, _ in taps:
        read[geo.tap_slices(t // ksize[1], t % ksize[1])] = True
    (pt, _), (pl, _) = geo.pads
    read = read[:, pt:pt + size[0], pl:pl + size[1]]
    merged = layout.merge_into(np.full(x.shape, -7.0), phases)
    np.testing.assert_array_equal(merged, np.where(read, x, -7.0))
    zeros = layout.zeros(2, 3, np.float32)
    assert zeros.keys() == phases.keys()
    assert all(z.shape == phases[k].shape and not z.any() for k, z in zeros.items())
