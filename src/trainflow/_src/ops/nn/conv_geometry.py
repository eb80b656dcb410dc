"""The window geometry shared by the convolution and pooling kernels: TensorFlow's
output-size and padding arithmetic (`GetWindowedOutputSizeVerbose`), the NCHW/NHWC
attr and layout helpers, and the kernels' error constructors.
"""
import numpy as np

from trainflow._src.framework import errors


def invalid(message):
    """An InvalidArgumentError for a kernel to raise (the executor names the node)."""
    return errors.InvalidArgumentError(None, None, message)


def unimplemented(message):
    """An UnimplementedError for a kernel to raise."""
    return errors.UnimplementedError(None, None, message)


def fmt_shape(shape):
    """"[a,b,c]" as TF's kernel messages print shapes."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def compute_dtype(dtype):
    """The dtype the arithmetic runs in: float32 for half and bfloat16."""
    dtype = np.dtype(dtype)
    if dtype == np.float16 or dtype.name == "bfloat16":
        return np.dtype(np.float32)
    return dtype


def text(value):
    """A str from a bytes or str attr."""
    return value.decode() if isinstance(value, bytes) else value


# -- geometry ----------------------------------------------------------------------------------
def windowed_output_size(in_size, ksize, stride, dilation, padding, pad_before=0, pad_after=0):
    """Output size and padding of one windowed dimension, as TF's kernels compute them.

    Args:
      in_size: the input size.
      ksize: the window (filter) size.
      stride, dilation: positive ints.
      padding: "SAME", "VALID" or "EXPLICIT" (str or bytes).
      pad_before, pad_after: the EXPLICIT padding of this dimension.

    Returns:
      (out_size, pad_before, pad_after).

    Raises:
      InvalidArgumentError: if the output size would be negative.
    """
    padding = text(padding)
    eff = (ksize - 1) * dilation + 1
    if padding == "SAME":
        out = (in_size + stride - 1) // stride
        need = max((out - 1) * stride + eff - in_size, 0)
        pad_before, pad_after = need // 2, need - need // 2
    else:
        if padding == "VALID":
            pad_before = pad_after = 0
        num = in_size + pad_before + pad_after - eff + stride
        out = num // stride if num >= 0 else -((-num) // stride)  # C++ truncation
    if out < 0:
        raise invalid(f"Computed output size would be negative: {out} [input_size: {in_size}, "
                      f"effective_filter_size: {eff}, stride: {stride}]")
    return out, pad_before, pad_after


def spatial_attrs(values, data_format):
    """The (H, W) entries of a 4-entry attr (strides, dilations, ksize) for `data_format`."""
    if text(data_format).startswith("NC"):
        return int(values[2]), int(values[3])
    return int(values[1]), int(values[2])


def explicit_pairs(explicit_paddings, data_format):
    """The ((top, bottom), (left, right)) explicit padding pairs for `data_format`."""
    p = [int(v) for v in explicit_paddings]
    if text(data_format).startswith("NC"):
        return (p[4], p[5]), (p[6], p[7])
    return (p[2], p[3]), (p[4], p[5])


def to_nhwc(x, data_format):
    """`x` viewed in NHWC order."""
    return x.transpose(0, 2, 3, 1) if text(data_format).startswith("NC") else x


def from_nhwc(x, data_format):
    """An NHWC result put back in `data_format` order (contiguous)."""
    if text(data_format).startswith("NC"):
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    return x


def empty_result(shape, dtype, data_format="NHWC", zeros=False):
    """(array, NHWC view of it): a result of NHWC `shape` laid out in `data_format`, so
    that kernels write NCHW results in place instead of transposing an NHWC one."""
    make = np.zeros if zeros else np.empty
    if text(data_format).startswith("NC"):
        n, h, w, c = shape
        arr = make((n, c, h, w), dtype)
        return arr, arr.transpose(0, 2, 3, 1)
    arr = make(shape, dtype)
    return arr, arr


def shape_to_nhwc(shape, data_format):
    """A 4-entry shape in `data_format` order rewritten in NHWC order."""
    n, a, b, c = (int(d) for d in shape)
    return (n, b, c, a) if text(data_format).startswith("NC") else (n, a, b, c)


class Geometry:
    """Output sizes and paddings of a 2-D window op over an NHWC input."""

    __slots__ = ("out_h", "out_w", "pads", "strides", "dilations", "ksize")

    def __init__(self, in_h, in_w, kh, kw, strides, dilations, padding, explicit=None):
        (pt, pb), (pl, pr) = explicit if explicit is not None else ((0, 0), (0, 0))
        sh, sw = strides
        dh, dw = dilations
        self.out_h, pt, pb = windowed_output_size(in_h, kh, sh, dh, padding, pt, pb)
        self.out_w, pl, pr = windowed_output_size(in_w, kw, sw, dw, padding, pl, pr)
        self.pads = ((pt, pb), (pl, pr))
        self.strides = (sh, sw)
        self.dilations = (dh, dw)
        self.ksize = (kh, kw)

    def tap_slices(self, i, j):
        """Index of the padded input cells that window tap (i, j) reads, one per output."""
        sh, sw = self.strides
        dh, dw = self.dilations
        r0, c0 = i * dh, j * dw
        rows = slice(r0, r0 + sh * (self.out_h - 1) + 1, sh) if self.out_h else slice(r0, r0)
        cols = slice(c0, c0 + sw * (self.out_w - 1) + 1, sw) if self.out_w else slice(c0, c0)
        return slice(None), rows, cols

    def padded_extent(self, in_h, in_w):
        """(rows, cols) of the padded input actually read by the windows."""
        sh, sw = self.strides
        (kh, kw), (dh, dw) = self.ksize, self.dilations
        need_h = sh * (self.out_h - 1) + (kh - 1) * dh + 1 if self.out_h else 0
        need_w = sw * (self.out_w - 1) + (kw - 1) * dw + 1 if self.out_w else 0
        (pt, pb), (pl, pr) = self.pads
        return max(need_h, in_h + pt + pb), max(need_w, in_w + pl + pr)
