"""NumPy kernels of the 2-D convolution ops (Conv2D, its two backprops, and the
depthwise variants), vectorised as im2col + BLAS products. The im2col matrix is built
a batch chunk at a time (COLS_BYTES) and multiplied while it is still in the CPU
cache, the chunks shared among the intra-op threads; col2im adds the chunk's columns
back the same way. With stride 1 the input gradient is itself a forward convolution
(of dy, with the filter turned around), which skips col2im.

Everything runs in NHWC internally; NCHW tensors are transposed on the way in
and out. The padding arithmetic (in `conv_geometry`) is TensorFlow's:
SAME pads ``max((out - 1) * stride + eff - in, 0)`` cells with the smaller half
before, VALID pads nothing, EXPLICIT takes the pairs from `explicit_paddings`.
Grouped convolutions (input depth a multiple of the filter's input depth) and
depthwise convolutions (a grouped convolution with one input channel per
group) share the same code path. Half and bfloat16 compute in float32 and round
the result back; every other dtype computes in itself.
"""
import functools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from trainflow._src.kernels import blas_threads, intra_op
from trainflow._src.ops.nn.conv_geometry import (
    Geometry, compute_dtype, empty_result, explicit_pairs, fmt_shape, invalid,
    shape_to_nhwc, spatial_attrs, text, to_nhwc, unimplemented)

# Below this many input channels, col2im sums channel-major slabs (see col2im_channels_first).
_CHANNELS_FIRST_BELOW = 16
# The multi-pass loops work on batch chunks of about this many input bytes, so that
# the intermediates of one chunk stay in the CPU cache from one pass to the next.
CHUNK_BYTES = 1 << 20
# The convolutions build their im2col matrices a batch chunk of at most about this many
# bytes at a time (two threads' chunks at once: a fair share of a 32 MB L3 cache).
COLS_BYTES = 6 << 20
# Filter gradients with fewer im2col columns than this multiply dy^T @ cols with dy^T a
# transposed view (no copy).
_NARROW_COLS = 512
# The convolutions cut the batch into at least this many chunks per intra-op thread.
CHUNKS_PER_THREAD = 2


def batch_chunks(x, target=None):
    """Slices of `x`'s first axis covering about `target` (CHUNK_BYTES) bytes each."""
    n = x.shape[0]
    per_item = max(1, x.nbytes // n) if n else 1
    step = max(1, (target or CHUNK_BYTES) // per_item)
    return [slice(i, min(n, i + step)) for i in range(0, n, step)]


def run_chunks(fn, chunks):
    """[fn(chunk) for chunk in chunks], the calls shared among the intra-op threads. Every
    call writes only its own batch slice of its outputs, so the calls are independent of
    one another; a product inside a call then runs whole on its thread (the pool is busy)."""
    if len(chunks) <= 1 or intra_op.threads() <= 1:
        return [fn(chunk) for chunk in chunks]
    results = [None] * len(chunks)

    def task(k):
        results[k] = fn(chunks[k])

    intra_op.run([functools.partial(task, k) for k in range(len(chunks))])
    return results


def pad_nhwc(x, pads, fill=0):
    """`x` with rows/cols padded by ((top, bottom), (left, right)) cells of `fill`."""
    (pt, pb), (pl, pr) = pads
    if not (pt or pb or pl or pr):
        return x
    n, h, w, c = x.shape
    out = np.full((n, h + pt + pb, w + pl + pr, c), fill, dtype=x.dtype)
    out[:, pt:pt + h, pl:pl + w, :] = x
    return out


def im2col(xp, geo):
    """The windows of padded NHWC `xp` as a [N*OH*OW, KH*KW*C] matrix (a copy)."""
    (kh, kw), (sh, sw), (dh, dw) = geo.ksize, geo.strides, geo.dilations
    n, c = xp.shape[0], xp.shape[3]
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    win = sliding_window_view(xp, (ekh, ekw), axis=(1, 2))
    win = win[:, :sh * (geo.out_h - 1) + 1:sh, :sw * (geo.out_w - 1) + 1:sw, :, ::dh, ::dw]
    # [N, OH, OW, C, KH, KW] -> [N, OH, OW, KH, KW, C] so columns match the filter's layout.
    return win.transpose(0, 1, 2, 4, 5, 3).reshape(n * geo.out_h * geo.out_w, kh * kw * c)


def col2im(cols, geo, in_h, in_w, channels):
    """Adds window columns [N, OH, OW, KH, KW, C] back into an unpadded NHWC array."""
    n = cols.shape[0]
    kh, kw = geo.ksize
    (pt, _), (pl, _) = geo.pads
    ph, pw = geo.padded_extent(in_h, in_w)
    out = np.zeros((n, ph, pw, channels), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[geo.tap_slices(i, j)] += cols[:, :, :, i, j, :]
    return out[:, pt:pt + in_h, pl:pl + in_w, :]


def col2im_channels_first(cols, geo, in_h, in_w):
    """col2im for columns laid out [G, KH, KW, Cg, N, OH, OW]; returns an NHWC view.

    Summing whole [C, N, OH, OW] slabs keeps the inner loop over image columns, which
    is much faster than NHWC when there are few channels.
    """
    groups, kh, kw, cg, n = cols.shape[:5]
    (pt, _), (pl, _) = geo.pads
    ph, pw = geo.padded_extent(in_h, in_w)
    out = np.zeros((groups * cg, n, ph, pw), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            _, rows, cs = geo.tap_slices(i, j)
            out[:, :, rows, cs] += cols[:, i, j].reshape(groups * cg, n, geo.out_h, geo.out_w)
    return out[:, :, pt:pt + in_h, pl:pl + in_w].transpose(1, 2, 3, 0)


# -- grouped matmul helpers ----------------------------------------------------------------------
def _group_cols(cols, taps, groups):
    """[M, taps*C] columns -> [G, M, taps*Cg] (a no-op view for one group)."""
    if groups == 1:
        return cols
    m = cols.shape[0]
    cg = cols.shape[1] // taps // groups
    return cols.reshape(m, taps, groups, cg).transpose(2, 0, 1, 3).reshape(groups, m, taps * cg)


def _group_filter(w, groups):
    """[KH, KW, Cg, O] filter -> [taps*Cg, O] or [G, taps*Cg, O/G]."""
    kh, kw, cg, o = w.shape
    if groups == 1:
        return w.reshape(kh * kw * cg, o)
    og = o // groups
    return w.reshape(kh * kw * cg, groups, og).transpose(1, 0, 2)


def _ungroup_out(y, groups):
    """[G, M, Og] -> [M, G*Og]."""
    if groups == 1:
        return y
    g, m, og = y.shape
    return y.transpose(1, 0, 2).reshape(m, g * og)


def _group_dy(dy2, groups):
    """[M, O] -> [G, M, O/G]."""
    if groups == 1:
        return dy2
    m, o = dy2.shape
    return dy2.reshape(m, groups, o // groups).transpose(1, 0, 2)


# -- the three convolutions (NHWC, compute dtype) -------------------------------------------------
def _image_chunks(n, rows_per_image, width, itemsize):
    """Batch slices whose im2col matrices are at most about COLS_BYTES each (the matrix of
    one chunk is built and consumed by BLAS while it is still in the CPU cache), and at
    least CHUNKS_PER_THREAD per intra-op thread where the batch allows, so that the
    threads share the im2col copies too."""
    per_image = max(1, rows_per_image * width * itemsize)
    count = -(-n // max(1, COLS_BYTES // per_image))
    threads = intra_op.threads()
    if threads > 1 and n * rows_per_image * width >= blas_threads.PARALLEL_MIN:
        # A multiple of the thread count, so that the threads get equal shares.
        count = -(-max(count, threads * CHUNKS_PER_THREAD) // threads) * threads
    count = min(n, count)
    cuts = [n * k // count for k in range(count + 1)]
    return [slice(a, b) for a, b in zip(cuts, cuts[1:])]


def conv2d_nhwc(x, w, strides, dilations, padding, explicit=None, out_format="NHWC",
                out_dtype=None):
    """Forward 2-D convolution of NHWC `x` with HWIO `w` (grouped when C > w's I).

    Returns:
      the [N, OH, OW, O] output (in `out_format` order), in `out_dtype` (default: the
      arrays' dtype).
    """
    n, in_h, in_w, c = x.shape
    kh, kw, cg, o = w.shape
    groups = c // cg
    geo = Geometry(in_h, in_w, kh, kw, strides, dilations, padding, explicit)
    shape = (n, geo.out_h, geo.out_w, o)
    result, y = empty_result(shape, out_dtype or np.result_type(x, w), out_format)
    if y.size == 0:
        return result
    xp = pad_nhwc(x, geo.pads)
    wf = _group_filter(w, groups)
    chunks = _image_chunks(n, geo.out_h * geo.out_w, kh * kw * c, x.itemsize)
    # One group, NHWC, the product's dtype: each product writes its rows of `y` directly.
    direct = groups == 1 and result is y and y.dtype == np.result_type(x, w)

    def chunk(sl):
        cols = im2col(xp[sl], geo)
        if direct:
            blas_threads.matmul(cols, wf, out=y[sl].reshape(-1, o))
            return
        part = blas_threads.matmul(_group_cols(cols, kh * kw, groups), wf)
        y[sl] = _ungroup_out(part, groups).reshape(y[sl].shape)

    run_chunks(chunk, chunks)
    return result


def conv2d_backprop_input_nhwc(input_shape, w, dy, strides, dilations, padding, explicit=None,
                               out_format="NHWC", out_dtype=None):
    """Gradient of conv2d_nhwc with respect to its input, of NHWC shape `input_shape`
    (laid out in `out_format`, in `out_dtype`, default dy's dtype)."""
    n, in_h, in_w, c = input_shape
    kh, kw, cg, o = w.shape
    groups = c // cg
    geo = Geometry(in_h, in_w, kh, kw, strides, dilations, padding, explicit)
    _check_backprop_size(geo, dy, in_h, in_w, kh, kw, "Conv2DCustomBackpropInput")
    result, dx = empty_result((n, in_h, in_w, c), out_dtype or dy.dtype, out_format,
                              zeros=dy.size == 0)
    if dy.size == 0:
        return result
    flipped_pads = _transposed_pads(geo, c, groups)
    if flipped_pads is not None:
        # dx is the stride-1 convolution of dy with the filter turned 180 degrees and its
        # in/out channels swapped: one im2col + product like the forward pass, instead of
        # a product as large as the im2col matrix and a col2im pass per tap.
        flipped = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
        return conv2d_nhwc(dy, flipped, (1, 1), geo.dilations, "EXPLICIT", flipped_pads,
                           out_format=out_format, out_dtype=out_dtype or dy.dtype)
    wf = _group_filter(w, groups)
    wf_t = np.ascontiguousarray(np.swapaxes(wf, -1, -2))

    def chunk(sl):
        dyc = dy[sl]
        m = dyc.shape[0]
        dy2 = _group_dy(dyc.reshape(-1, o), groups)
        if c < _CHANNELS_FIRST_BELOW:
            dcols = blas_threads.matmul(wf, np.swapaxes(dy2, -1, -2))  # [(G,) taps*Cg, M]
            dcols = dcols.reshape(groups, kh, kw, cg, m, geo.out_h, geo.out_w)
            dx[sl] = col2im_channels_first(dcols, geo, in_h, in_w)
            return
        dcols = blas_threads.matmul(dy2, wf_t)  # [(G,) M, taps*Cg]
        if groups > 1:
            dcols = dcols.reshape(groups, -1, kh * kw, cg).transpose(1, 2, 0, 3)
        dx[sl] = col2im(dcols.reshape(m, geo.out_h, geo.out_w, kh, kw, c), geo, in_h, in_w, c)

    run_chunks(chunk, _image_chunks(n, geo.out_h * geo.out_w, kh * kw * c, dy.itemsize))
    return result


def _transposed_pads(geo, channels, groups):
    """The explicit pads of the input gradient as a forward convolution of dy, or None
    where the col2im path serves better (strides, groups, few input channels, pads wider
    than the window)."""
    if geo.strides != (1, 1) or groups != 1 or channels < _CHANNELS_FIRST_BELOW:
        return None
    pads = []
    for (before, after), k, d in zip(geo.pads, geo.ksize, geo.dilations):
        eff = (k - 1) * d + 1
        if before > eff - 1 or after > eff - 1:
            return None
        pads.append((eff - 1 - before, eff - 1 - after))
    return tuple(pads)


def conv2d_backprop_filter_nhwc(x, filter_shape, dy, strides, dilations, padding,
                                explicit=None):
    """Gradient of conv2d_nhwc with respect to its HWIO filter of shape `filter_shape`."""
    n, in_h, in_w, c = x.shape
    kh, kw, cg, o = filter_shape
    groups = c // cg
    geo = Geometry(in_h, in_w, kh, kw, strides, dilations, padding, explicit)
    _check_backprop_size(geo, dy, in_h, in_w, kh, kw, "Conv2DCustomBackpropFilter")
    if dy.size == 0 or x.size == 0:
        return np.zeros((kh, kw, cg, o), dtype=x.dtype)
    xp = pad_nhwc(x, geo.pads)
    # Narrow column matrices multiply best as dy^T @ cols with dy^T read in place (a
    # transposed copy of a long dy costs as much as the product). Wide ones as a contiguous
    # dy^T @ cols: OpenBLAS is much slower on those long-inner-dimension shapes when handed
    # a transposed operand; the copy is of one cached chunk.
    narrow = kh * kw * cg < _NARROW_COLS

    def chunk(sl):
        cols = _group_cols(im2col(xp[sl], geo), kh * kw, groups)
        dy2 = _group_dy(dy[sl].reshape(-1, o), groups)
        if narrow:
            return blas_threads.matmul(np.swapaxes(dy2, -1, -2), cols)
        return blas_threads.matmul(np.ascontiguousarray(np.swapaxes(dy2, -1, -2)), cols)

    parts = run_chunks(chunk, _image_chunks(n, geo.out_h * geo.out_w, kh * kw * c,
                                            x.itemsize))
    dw_t = np.array(parts[0])
    for part in parts[1:]:
        dw_t += part
    if groups > 1:  # [G, Og, taps*Cg] -> [taps*Cg, G*Og]
        return dw_t.transpose(2, 0, 1).reshape(kh, kw, cg, o)
    return np.ascontiguousarray(dw_t.T).reshape(kh, kw, cg, o)


def _check_backprop_size(geo, dy, in_h, in_w, kh, kw, label):
    for dim, (actual, computed, size, k) in enumerate(
            ((dy.shape[1], geo.out_h, in_h, kh), (dy.shape[2], geo.out_w, in_w, kw)), start=1):
        if actual != computed:
            raise invalid(f"{label}: Size of out_backprop doesn't match computed: actual = "
                          f"{actual}, computed = {computed} spatial_dim: {dim} input: {size} "
                          f"filter: {k} output: {actual} stride: {geo.strides[dim - 1]} "
                          f"dilation: {geo.dilations[dim - 1]}")


# -- attr checks shared by the kernels ------------------------------------------------------------
def check_conv_attrs(strides, dilations, data_format):
    """Raises TF's errors for strides/dilations outside the spatial dimensions."""
    fmt = text(data_format)
    n_i, c_i = (0, 1) if fmt.startswith("NC") else (0, 3)
    if int(strides[n_i]) != 1 or int(strides[c_i]) != 1:
        raise unimplemented("Current implementation does not yet support strides in the "
                            "batch and depth dimensions.")
    if int(dilations[n_i]) != 1 or int(dilations[c_i]) != 1:
        raise unimplemented("Current implementation does not yet support dilations in the "
                            "batch and depth dimensions.")


def _window(strides, dilations, padding, explicit_paddings, data_format):
    """The (strides, dilations, padding, explicit pads) arguments of the NHWC conv helpers:
    the spatial (H, W) strides and dilations of `data_format`, and the explicit padding
    pairs when padding is "EXPLICIT" (else None)."""
    explicit = explicit_pairs(explicit_paddings, data_format) \
        if text(padding) == "EXPLICIT" else None
    return (spatial_attrs(strides, data_format), spatial_attrs(dilations, data_format),
            padding, explicit)


def _check_rank4(arr, what):
    if arr.ndim != 4:
        raise invalid(f"{what} must be 4-dimensional: {fmt_shape(arr.shape)}")


def _sizes(value, label):
    sizes = [int(v) for v in np.asarray(value).reshape(-1)]
    if len(sizes) != 4:
        raise invalid(f"{label} must be a 1-D tensor of 4 elements, got {len(sizes)}")
    return sizes


# -- kernels ---------------------------------------------------------------------------------------
def conv2d_kernel(input, filter, *, strides, padding, explicit_paddings, data_format,  # noqa: A002
                  dilations):
    """Conv2D."""
    _check_rank4(input, "convolution input")
    _check_rank4(filter, "convolution filter")
    check_conv_attrs(strides, dilations, data_format)
    x = to_nhwc(input, data_format)
    c, cg = x.shape[3], filter.shape[2]
    if cg == 0 or c % cg:
        raise invalid(f"input depth must be evenly divisible by filter depth: {c} vs {cg}")
    if filter.shape[3] % (c // cg):
        raise invalid(f"output depth must be evenly divisible by number of groups: "
                      f"{filter.shape[3]} vs {c // cg}")
    ct = compute_dtype(input.dtype)
    return conv2d_nhwc(x.astype(ct, copy=False), filter.astype(ct, copy=False),
                       *_window(strides, dilations, padding, explicit_paddings, data_format),
                       out_format=data_format, out_dtype=input.dtype)


def conv2d_backprop_input_kernel(input_sizes, filter,  # noqa: A002 - TF's argument name
                                 out_backprop, *, strides, padding, explicit_paddings,
                                 data_format, dilations):
    """Conv2DBackpropInput (input_sizes may hold 4 values, or the 2 spatial ones)."""
    _check_rank4(filter, "filter")
    _check_rank4(out_backprop, "out_backprop")
    check_conv_attrs(strides, dilations, data_format)
    dy = to_nhwc(out_backprop, data_format)
    sizes = [int(v) for v in np.asarray(input_sizes).reshape(-1)]
    if len(sizes) == 2:
        in_shape = (dy.shape[0], sizes[0], sizes[1], filter.shape[2])
    else:
        in_shape = shape_to_nhwc(_sizes(input_sizes, "input_sizes"), data_format)
    if in_shape[0] != dy.shape[0]:
        raise invalid("Conv2DCustomBackpropInput: input and out_backprop must have the same "
                      "batch size")
    if filter.shape[2] <= 0 or in_shape[3] % filter.shape[2]:
        raise invalid("Conv2DCustomBackpropInput: input depth must be evenly divisible by "
                      "filter depth")
    if dy.shape[3] != filter.shape[3]:
        raise invalid("Conv2DCustomBackpropInput: filter and out_backprop must have the same "
                      "out_depth")
    ct = compute_dtype(out_backprop.dtype)
    return conv2d_backprop_input_nhwc(in_shape, filter.astype(ct, copy=False),
                                      dy.astype(ct, copy=False),
                                      *_window(strides, dilations, padding, explicit_paddings,
                                               data_format),
                                      out_format=data_format, out_dtype=out_backprop.dtype)


def conv2d_backprop_filter_kernel(input, filter_sizes, out_backprop, *, strides,  # noqa: A002
                                  padding, explicit_paddings, data_format, dilations):
    """Conv2DBackpropFilter."""
    _check_rank4(input, "input")
    _check_rank4(out_backprop, "out_backprop")
    check_conv_attrs(strides, dilations, data_format)
    f_shape = tuple(_sizes(filter_sizes, "filter_sizes"))
    x = to_nhwc(input, data_format)
    dy = to_nhwc(out_backprop, data_format)
    if f_shape[2] <= 0 or x.shape[3] % f_shape[2]:
        raise invalid("Conv2DCustomBackpropFilter: input depth must be evenly divisible by "
                      "filter depth")
    if dy.shape[3] != f_shape[3]:
        raise invalid("Conv2DCustomBackpropFilter: filter and out_backprop must have the same "
                      "out_depth")
    ct = compute_dtype(input.dtype)
    dw = conv2d_backprop_filter_nhwc(x.astype(ct, copy=False), f_shape,
                                     dy.astype(ct, copy=False),
                                     *_window(strides, dilations, padding, explicit_paddings,
                                              data_format))
    return dw.astype(input.dtype, copy=False)


# Depthwise: filter [KH, KW, C, M] is a grouped filter [KH, KW, 1, C*M] with C groups.
def depthwise_kernel(input, filter, *, strides, padding, explicit_paddings,  # noqa: A002
                     data_format, dilations):
    """DepthwiseConv2dNative."""
    _check_rank4(input, "input")
    _check_rank4(filter, "filter")
    check_conv_attrs(strides, dilations, data_format)
    x = to_nhwc(input, data_format)
    if x.shape[3] != filter.shape[2]:
        raise invalid(f"input and filter must have the same depth: {x.shape[3]} vs "
                      f"{filter.shape[2]}")
    kh, kw, c, m = filter.shape
    ct = compute_dtype(input.dtype)
    return conv2d_nhwc(x.astype(ct, copy=False),
                       filter.astype(ct, copy=False).reshape(kh, kw, 1, c * m),
                       *_window(strides, dilations, padding, explicit_paddings, data_format),
                       out_format=data_format, out_dtype=input.dtype)


def depthwise_backprop_input_kernel(input_sizes, filter,  # noqa: A002 - TF's argument name
                                    out_backprop, *, strides, padding, explicit_paddings,
                                    data_format, dilations):
    """DepthwiseConv2dNativeBackpropInput."""
    _check_rank4(filter, "filter")
    _check_rank4(out_backprop, "out_backprop")
    check_conv_attrs(strides, dilations, data_format)
    in_shape = shape_to_nhwc(_sizes(input_sizes, "input_sizes"), data_format)
    kh, kw, c, m = filter.shape
    if in_shape[3] != c:
        raise invalid(f"input and filter must have the same depth: {in_shape[3]} vs {c}")
    dy = to_nhwc(out_backprop, data_format)
    if dy.shape[3] != c * m:
        raise invalid(f"out_backprop depth must be {c * m} (input depth times depth "
                      f"multiplier), got {dy.shape[3]}")
    ct = compute_dtype(out_backprop.dtype)
    return conv2d_backprop_input_nhwc(in_shape,
                                      filter.astype(ct, copy=False).reshape(kh, kw, 1, c * m),
                                      dy.astype(ct, copy=False),
                                      *_window(strides, dilations, padding, explicit_paddings,
                                               data_format),
                                      out_format=data_format, out_dtype=out_backprop.dtype)


def depthwise_backprop_filter_kernel(input, filter_sizes, out_backprop, *,  # noqa: A002
                                     strides, padding, explicit_paddings, data_format,
                                     dilations):
    """DepthwiseConv2dNativeBackpropFilter."""
    _check_rank4(input, "input")
    _check_rank4(out_backprop, "out_backprop")
    check_conv_attrs(strides, dilations, data_format)
    kh, kw, c, m = _sizes(filter_sizes, "filter_sizes")
    x = to_nhwc(input, data_format)
    dy = to_nhwc(out_backprop, data_format)
    if x.shape[3] != c:
        raise invalid(f"input and filter must have the same depth: {x.shape[3]} vs {c}")
    if dy.shape[3] != c * m:
        raise invalid(f"out_backprop depth must be {c * m} (input depth times depth "
                      f"multiplier), got {dy.shape[3]}")
    ct = compute_dtype(input.dtype)
    dw = conv2d_backprop_filter_nhwc(x.astype(ct, copy=False), (kh, kw, 1, c * m),
                                     dy.astype(ct, copy=False),
                                     *_window(strides, dilations, padding, explicit_paddings,
                                              data_format))
    return dw.reshape(kh, kw, c, m).astype(input.dtype, copy=False)
