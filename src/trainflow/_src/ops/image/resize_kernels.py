"""NumPy kernels of TensorFlow's image resize ops (ResizeBilinear, ResizeNearestNeighbor,
ResizeBicubic, ResizeArea, CropAndResize) and of their gradients.

The source coordinate of each output pixel, the neighbours read and the weights are
computed in float32 exactly as TensorFlow's CPU kernels compute them (including TF1's
legacy `half_pixel_centers=False` mapping), so indices match bit for bit and values
agree to float32 round-off (bilinear and bicubic repeat TF's operation order and are
bit-identical). Images are NHWC; pixels are gathered with fancy indexing along one
axis at a time, and gradients scatter with `np.add.at` in TF's accumulation order.
"""
import numpy as np

from trainflow._src.framework import errors

_F32 = np.float32
_INT32_MAX = 2 ** 31 - 1


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def resize_scale(in_size, out_size, align_corners):
    """TF's CalculateResizeScale: the float32 ratio of input to output pixels."""
    if align_corners and out_size > 1:
        return _F32(in_size - 1) / _F32(out_size - 1)
    return _F32(in_size) / _F32(out_size)


def source_coords(out_size, scale, half_pixel_centers):
    """The float32 source coordinate of each output index (legacy or half-pixel scaler)."""
    x = np.arange(out_size, dtype=_F32)
    if half_pixel_centers:
        return (x + _F32(0.5)) * scale - _F32(0.5)
    return x * scale


def _size_pair(size):
    """(height, width) from a resize op's `size` input (TF's shape_t checks).

    Raises:
      InvalidArgumentError: unless `size` is a vector of two elements.
    """
    size = np.asarray(size)
    if size.ndim != 1:
        raise _invalid(f"shape_t must be 1-dimensional{_shape_str(size.shape)}")
    if size.size != 2:
        raise _invalid(f"shape_t must have two elements{_shape_str(size.shape)}")
    return int(size[0]), int(size[1])


def check_resize_args(images, size, align_corners, half_pixel_centers, what="input"):
    """Validates a resize op's inputs as TF's ImageResizerState does.

    Returns:
      (out_height, out_width).

    Raises:
      InvalidArgumentError: with TF's message for each bad input.
    """
    if half_pixel_centers and align_corners:
        raise _invalid("If half_pixel_centers is True, align_corners must be False.")
    if images.ndim != 4:
        raise _invalid(f"{what} must be 4-dimensional{_shape_str(images.shape)}")
    if images.shape[3] <= 0:
        raise _invalid("image must have at least one channel")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise _invalid("input image must be of non-zero size")
    out_h, out_w = _size_pair(size)
    if out_h <= 0 or out_w <= 0:
        raise _invalid("output dimensions must be positive")
    return out_h, out_w


# -- bilinear ------------------------------------------------------------------------------
def _linear_weights(out_size, in_size, scale, half_pixel_centers):
    """(lower, upper, lerp) per output index, as TF's compute_interpolation_weights."""
    src = source_coords(out_size, scale, half_pixel_centers)
    floor = np.floor(src)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, upper, (src - floor).astype(_F32)


def resize_bilinear(images, size, *, align_corners, half_pixel_centers):
    """ResizeBilinear: images [B,H,W,C] of any real type -> float32 [B,h,w,C]."""
    out_h, out_w = check_resize_args(images, size, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = images.shape
    img = images.astype(_F32, copy=False)
    if (out_h, out_w) == (in_h, in_w):
        return img.copy() if img is images else img
    y_lo, y_hi, y_lerp = _linear_weights(out_h, in_h, resize_scale(in_h, out_h, align_corners),
                                         half_pixel_centers)
    x_lo, x_hi, x_lerp = _linear_weights(out_w, in_w, resize_scale(in_w, out_w, align_corners),
                                         half_pixel_centers)
    top_rows, bottom_rows = img[:, y_lo], img[:, y_hi]
    x_lerp = x_lerp[:, None]
    top = top_rows[:, :, x_lo] + (top_rows[:, :, x_hi] - top_rows[:, :, x_lo]) * x_lerp
    bottom = bottom_rows[:, :, x_lo] + (bottom_rows[:, :, x_hi] - bottom_rows[:, :, x_lo]) * x_lerp
    return top + (bottom - top) * y_lerp[:, None, None]


def _check_grad_args(grads, original_shape, align_corners, half_pixel_centers):
    if half_pixel_centers and align_corners:
        raise _invalid("If half_pixel_centers is True, align_corners must be False.")
    if grads.ndim != 4:
        raise _invalid(f"input_grad must be 4-dimensional{_shape_str(grads.shape)}")
    if grads.shape[1] <= 0 or grads.shape[2] <= 0:
        raise _invalid("resized dimensions must be positive")
    if len(original_shape) != 4:
        raise _invalid(f"original_image must be 4-dimensional{_shape_str(original_shape)}")
    if original_shape[1] <= 0 or original_shape[2] <= 0:
        raise _invalid("original dimensions must be positive")


def _work_dtype(dtype):
    """TF accumulates half/bfloat16 gradients in float32 and casts at the end."""
    return np.float64 if np.dtype(dtype) == np.float64 else _F32


def resize_bilinear_grad(grads, original_image, *, align_corners, half_pixel_centers):
    """ResizeBilinearGrad: float32 grads [B,h,w,C] -> gradient of original_image's type."""
    _check_grad_args(grads, original_image.shape, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = original_image.shape
    _, out_h, out_w, _ = grads.shape
    y_lo, y_hi, y_l = _linear_weights(out_h, in_h, resize_scale(in_h, out_h, align_corners),
                                      half_pixel_centers)
    x_lo, x_hi, x_l = _linear_weights(out_w, in_w, resize_scale(in_w, out_w, align_corners),
                                      half_pixel_centers)
    inv_y, inv_x = _F32(1) - y_l, _F32(1) - x_l
    y_idx = np.stack([y_lo, y_lo, y_hi, y_hi])
    x_idx = np.stack([x_lo, x_hi, x_lo, x_hi])
    work = _work_dtype(original_image.dtype)
    # TF multiplies grad * y_weight * x_weight left to right in float32.
    g = grads.astype(_F32, copy=False)
    ys = np.stack([inv_y, inv_y, y_l, y_l])[:, :, None]
    xs = np.stack([inv_x, x_l, inv_x, x_l])[:, None, :]
    out = _scatter_ordered(work, (in_h, in_w), g, y_idx, x_idx, ys, xs)
    return out.astype(original_image.dtype, copy=False)


def _scatter_ordered(work, out_hw, grads, y_idx, x_idx, y_w, x_w):
    """Sums grads[b,y,x,c] * y_w[k,y] * x_w[k,x] into out[b, y_idx[k,y], x_idx[k,x], c].

    The products are formed as (grad * y_weight) * x_weight and accumulated in the
    order (y, x, k) of TF's gradient kernels, in the working dtype `work`.

    Args:
      y_idx: int [K, h]; x_idx: int [K, w]; y_w: [K, h, 1]; x_w: [K, 1, w].
    """
    batch, h, w, channels = grads.shape
    k = y_idx.shape[0]
    g = np.moveaxis(grads, 0, 2)[:, :, None]  # [h, w, 1, B, C]
    yw = np.broadcast_to(y_w, (k, h, 1))
    xw = np.broadcast_to(x_w, (k, 1, w))
    yw = np.moveaxis(yw, 0, 2)[:, :, :, None, None]  # [h, 1, K, 1, 1]
    xw = np.moveaxis(xw, 0, 2)[:, :, :, None, None]  # [1, w, K, 1, 1]
    vals = ((g * yw) * xw).astype(work, copy=False)
    rows = np.broadcast_to(np.moveaxis(y_idx, 0, 1)[:, None, :], (h, w, k)).reshape(-1)
    cols = np.broadcast_to(np.moveaxis(x_idx, 0, 1)[None, :, :], (h, w, k)).reshape(-1)
    out = np.zeros((out_hw[0], out_hw[1], batch, channels), dtype=work)
    np.add.at(out, (rows, cols), vals.reshape(h * w * k, batch, channels))
    return np.ascontiguousarray(np.moveaxis(out, 2, 0))


# -- nearest neighbour ---------------------------------------------------------------------
def _round_half_away(x):
    """C's roundf: halves round away from zero (without the x + 0.5 rounding trap)."""
    a = np.abs(x)
    whole = np.floor(a)
    return np.sign(x) * (whole + (a - whole >= 0.5))


def nearest_indices(out_size, in_size, scale, align_corners, half_pixel_centers):
    """Source index per output index, as TF's ResizeNearestNeighbor computes it."""
    x = np.arange(out_size, dtype=_F32)
    src = (x + _F32(0.5)) * scale if half_pixel_centers else x * scale
    idx = _round_half_away(src) if align_corners else np.floor(src)
    idx = np.minimum(idx.astype(np.int64), in_size - 1)
    if half_pixel_centers:
        idx = np.maximum(idx, 0)
    return idx


def resize_nearest_neighbor(images, size, *, align_corners, half_pixel_centers):
    """ResizeNearestNeighbor: keeps the input dtype."""
    out_h, out_w = check_resize_args(images, size, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = images.shape
    if in_h >= (1 << 24) or in_w >= (1 << 24):
        raise _invalid("nearest neighbor requires max height & width of 2^24")
    ys = nearest_indices(out_h, in_h, resize_scale(in_h, out_h, align_corners), align_corners,
                         half_pixel_centers)
    xs = nearest_indices(out_w, in_w, resize_scale(in_w, out_w, align_corners), align_corners,
                         half_pixel_centers)
    return images[:, ys][:, :, xs]


def resize_nearest_neighbor_grad(grads, size, *, align_corners, half_pixel_centers):
    """ResizeNearestNeighborGrad: sums each resized pixel's gradient into its source."""
    if grads.ndim != 4:
        raise _invalid(f"input must be 4-dimensional{_shape_str(grads.shape)}")
    out_h, out_w = _size_pair(size)
    if out_h <= 0 or out_w <= 0:
        raise _invalid("shape_t's elements must be positive")
    _, in_h, in_w, _ = grads.shape
    ys = nearest_indices(in_h, out_h, resize_scale(out_h, in_h, align_corners), align_corners,
                         half_pixel_centers)
    xs = nearest_indices(in_w, out_w, resize_scale(out_w, in_w, align_corners), align_corners,
                         half_pixel_centers)
    ones_y, ones_x = np.ones((1, in_h), _F32), np.ones((1, in_w), _F32)
    work = grads.dtype if grads.dtype.kind in "iu" else _work_dtype(grads.dtype)
    out = _scatter_ordered(work, (out_h, out_w), grads.astype(work, copy=False), ys[None],
                           xs[None], ones_y[:, :, None].astype(work),
                           ones_x[:, None, :].astype(work))
    return out.astype(grads.dtype, copy=False)


# -- bicubic -------------------------------------------------------------------------------
_TABLE_SIZE = 1024
_TABLES = {}


def _coeffs_table(a):
    """TF's 1025-entry cubic-convolution table for parameter `a` (rows: (w(x), w(x+1)))."""
    table = _TABLES.get(a)
    if table is None:
        x = (np.arange(_TABLE_SIZE + 1) * (1.0 / _TABLE_SIZE)).astype(_F32).astype(np.float64)
        near = (((a + 2) * x - (a + 3)) * x * x + 1).astype(_F32)
        x1 = x + 1.0
        far = (((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a).astype(_F32)
        table = _TABLES[a] = np.stack([near, far], axis=1)
    return table


def cubic_weights(out_size, in_size, scale, half_pixel_centers):
    """(indices [4, n], weights [4, n]) of each output index, as TF's GetWeightsAndIndices.

    Legacy mode uses Keys' a=-0.75 and clamps the taps; half-pixel mode uses a=-0.5,
    zeroes taps that fall outside the image and renormalises the weights.
    """
    src = source_coords(out_size, scale, half_pixel_centers)
    in_loc = np.floor(src).astype(np.int64)
    delta = (src - in_loc.astype(_F32)).astype(_F32)
    offset = np.rint(delta * _F32(_TABLE_SIZE)).astype(np.int64)
    table = _coeffs_table(-0.5 if half_pixel_centers else -0.75)
    weights = np.stack([table[offset, 1], table[offset, 0], table[_TABLE_SIZE - offset, 0],
                        table[_TABLE_SIZE - offset, 1]])
    raw = np.stack([in_loc - 1, in_loc, in_loc + 1, in_loc + 2])
    indices = np.clip(raw, 0, in_size - 1)
    if half_pixel_centers:
        weights = np.where(indices == raw, weights, _F32(0)).astype(_F32)
        total = ((weights[0] + weights[1]) + weights[2]) + weights[3]
        ok = np.abs(total) >= _F32(1000) * np.finfo(_F32).tiny
        inv = np.where(ok, _F32(1) / np.where(ok, total, _F32(1)), _F32(1)).astype(_F32)
        weights = np.where(ok, weights * inv, weights).astype(_F32)
    return indices, weights


def resize_bicubic(images, size, *, align_corners, half_pixel_centers):
    """ResizeBicubic: images [B,H,W,C] -> float32, rows interpolated first, then columns."""
    out_h, out_w = check_resize_args(images, size, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = images.shape
    img = images.astype(_F32, copy=False)
    yi, yw = cubic_weights(out_h, in_h, resize_scale(in_h, out_h, align_corners),
                           half_pixel_centers)
    xi, xw = cubic_weights(out_w, in_w, resize_scale(in_w, out_w, align_corners),
                           half_pixel_centers)
    cols = img[:, yi[0]] * yw[0][:, None, None]
    for k in range(1, 4):
        cols = cols + img[:, yi[k]] * yw[k][:, None, None]
    out = cols[:, :, xi[0]] * xw[0][:, None]
    for k in range(1, 4):
        out = out + cols[:, :, xi[k]] * xw[k][:, None]
    return out


def resize_bicubic_grad(grads, original_image, *, align_corners, half_pixel_centers):
    """ResizeBicubicGrad: the transpose of ResizeBicubic's 16-tap weighting."""
    _check_grad_args(grads, original_image.shape, align_corners, half_pixel_centers)
    _, in_h, in_w, _ = original_image.shape
    _, out_h, out_w, _ = grads.shape
    yi, yw = cubic_weights(out_h, in_h, resize_scale(in_h, out_h, align_corners),
                           half_pixel_centers)
    xi, xw = cubic_weights(out_w, in_w, resize_scale(in_w, out_w, align_corners),
                           half_pixel_centers)
    work = _work_dtype(original_image.dtype)
    y_idx = np.repeat(yi, 4, axis=0)      # taps ordered (row k, column j)
    x_idx = np.tile(xi, (4, 1))
    y_w = np.repeat(yw, 4, axis=0)[:, :, None].astype(work)
    x_w = np.tile(xw, (4, 1))[:, None, :].astype(work)
    out = _scatter_ordered(work, (in_h, in_w), grads.astype(work, copy=False), y_idx, x_idx,
                           y_w, x_w)
    return out.astype(original_image.dtype, copy=False)


# -- area ----------------------------------------------------------------------------------
def area_taps(out_size, in_size, scale):
    """The input cells each output cell of ResizeArea covers, and the covered fraction of
    each, as TF computes them (float32; taps beyond the image read the edge cell).

    Returns:
      (indices, weights), both [out_size, K], zero-weight padded to the longest run.
    """
    runs = []
    one = _F32(1)
    for i in range(out_size):
        start, end = _F32(i) * scale, _F32(i + 1) * scale
        run = []
        for j in range(int(np.floor(start)), int(np.ceil(end))):
            jf = _F32(j)
            if jf < start:
                w = scale if jf + one > end else (jf + one) - start
            else:
                w = end - jf if jf + one > end else one
            run.append((min(max(j, 0), in_size - 1), _F32(w)))
        runs.append(run)
    k = max(len(r) for r in runs)
    indices = np.zeros((out_size, k), dtype=np.int64)
    weights = np.zeros((out_size, k), dtype=_F32)
    for i, run in enumerate(runs):
        for t, (j, w) in enumerate(run):
            indices[i, t], weights[i, t] = j, w
    return indices, weights


def resize_area(images, size, *, align_corners):
    """ResizeArea: each output pixel averages the input area it covers (float32).

    Sums run in TF's order (columns of a row first, then rows), so results are exact.
    """
    out_h, out_w = check_resize_args(images, size, align_corners, False)
    _, in_h, in_w, _ = images.shape
    h_scale = resize_scale(in_h, out_h, align_corners)
    w_scale = resize_scale(in_w, out_w, align_corners)
    yi, yw = area_taps(out_h, in_h, h_scale)
    xi, xw = area_taps(out_w, in_w, w_scale)
    img = images.astype(_F32, copy=False)
    total = None
    for ky in range(yi.shape[1]):
        rows = img[:, yi[:, ky]]
        row_sum = rows[:, :, xi[:, 0]] * xw[:, 0][:, None]
        for kx in range(1, xi.shape[1]):
            row_sum = row_sum + rows[:, :, xi[:, kx]] * xw[:, kx][:, None]
        term = row_sum * yw[:, ky][:, None, None]
        total = term if total is None else total + term
    return total * _F32(1.0 / float(h_scale * w_scale))


# -- crop and resize -----------------------------------------------------------------------
def crop_and_resize(image, boxes, box_ind, crop_size, *, method, extrapolation_value):
    """CropAndResize: samples a crop_size grid in each normalized box of image[box_ind]."""
    method = method.decode() if isinstance(method, bytes) else method
    if method not in ("bilinear", "nearest"):
        raise _invalid(f"method must be 'bilinear' or 'nearest'{method}")
    if image.ndim != 4:
        raise _invalid(f"input image must be 4-D{_shape_str(image.shape)}")
    batch, in_h, in_w, depth = image.shape
    if in_h <= 0 or in_w <= 0:
        raise _invalid("image dimensions must be positive")
    if boxes.ndim != 2:
        raise _invalid(f"boxes must be 2-D, got: {_shape_str(boxes.shape)}")
    if box_ind.ndim != 1:
        raise _invalid(f"box_indices must be rank 1 but is shape {_shape_str(box_ind.shape)}")
    num_boxes = boxes.shape[0]
    if num_boxes and boxes.shape[1] != 4:
        raise _invalid("boxes must have 4 columns")
    if box_ind.shape[0] != num_boxes:
        raise _invalid("box_index has incompatible shape")
    crop_size = np.asarray(crop_size)
    if crop_size.ndim != 1:
        raise _invalid(f"crop_size must be 1-D{_shape_str(crop_size.shape)}")
    if crop_size.shape[0] != 2:
        raise _invalid(f"crop_size must have two elements{_shape_str(crop_size.shape)}")
    crop_h, crop_w = int(crop_size[0]), int(crop_size[1])
    if crop_h <= 0 or crop_w <= 0:
        raise _invalid("crop dimensions must be positive")
    if np.any((box_ind < 0) | (box_ind >= batch)):
        raise errors.OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")
    boxes = boxes.astype(_F32, copy=False)
    if not np.all(np.isfinite(boxes)):
        raise _invalid("Boxes contains at least one element that is not finite")
    out = np.empty((num_boxes, crop_h, crop_w, depth), dtype=_F32)
    fill = _F32(extrapolation_value)
    for b in range(num_boxes):
        y1, x1, y2, x2 = boxes[b]
        in_y = _crop_coords(y1, y2, in_h, crop_h)
        in_x = _crop_coords(x1, x2, in_w, crop_w)
        img = image[int(box_ind[b])].astype(_F32, copy=False)
        valid_y = (in_y >= 0) & (in_y <= _F32(in_h - 1))
        valid_x = (in_x >= 0) & (in_x <= _F32(in_w - 1))
        cy = np.clip(in_y, 0, in_h - 1)
        cx = np.clip(in_x, 0, in_w - 1)
        if method == "bilinear":
            top_i = np.floor(cy).astype(np.int64)
            bot_i = np.ceil(cy).astype(np.int64)
            left_i = np.floor(cx).astype(np.int64)
            right_i = np.ceil(cx).astype(np.int64)
            y_lerp = (cy - top_i.astype(_F32))[:, None, None]
            x_lerp = (cx - left_i.astype(_F32))[None, :, None]
            top_rows, bot_rows = img[top_i], img[bot_i]
            top = top_rows[:, left_i] + (top_rows[:, right_i] - top_rows[:, left_i]) * x_lerp
            bot = bot_rows[:, left_i] + (bot_rows[:, right_i] - bot_rows[:, left_i]) * x_lerp
            crop = top + (bot - top) * y_lerp
        else:
            ry = _round_half_away(cy).astype(np.int64)
            rx = _round_half_away(cx).astype(np.int64)
            crop = img[ry][:, rx]
        mask = valid_y[:, None, None] & valid_x[None, :, None]
        out[b] = np.where(mask, crop, fill)
    return out


def _crop_coords(lo, hi, in_size, crop_size):
    """Source coordinates (float32) of a crop's rows or columns."""
    if crop_size > 1:
        scale = (hi - lo) * _F32(in_size - 1) / _F32(crop_size - 1)
        return (lo * _F32(in_size - 1) + np.arange(crop_size, dtype=_F32) * scale).astype(_F32)
    return np.array([_F32(0.5 * float(lo + hi) * (in_size - 1))], dtype=_F32)
