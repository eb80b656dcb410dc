"""NumPy kernels of CropAndResize's gradient ops: CropAndResizeGradImage (the crops'
gradient scattered back onto the image) and CropAndResizeGradBoxes (the gradient with
respect to the normalized box corners), with TensorFlow's sampling grid: rows of a crop
sample `y1 * (H - 1) + i * (y2 - y1) * (H - 1) / (crop_h - 1)` (the box centre for a
one-row crop), and samples outside the image contribute nothing.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.image.resize_kernels import (
    _F32, _crop_coords, _invalid, _round_half_away, _shape_str)


def _check_boxes(grads, boxes, box_ind, depth=None):
    if grads.ndim != 4:
        raise _invalid(f"grads image must be 4-D{_shape_str(grads.shape)}")
    num_boxes, crop_h, crop_w = grads.shape[:3]
    if crop_h <= 0 or crop_w <= 0:
        raise _invalid("grads dimensions must be positive")
    if boxes.ndim != 2 or (num_boxes and boxes.shape[1] != 4):
        raise _invalid(f"boxes must be 2-D with 4 columns, got: {_shape_str(boxes.shape)}")
    if boxes.shape[0] != num_boxes or box_ind.shape != (num_boxes,):
        raise _invalid("boxes and box_ind have incompatible shapes with grads: "
                       f"{_shape_str(boxes.shape)}, {_shape_str(box_ind.shape)}, "
                       f"{_shape_str(grads.shape)}")
    if depth is not None and grads.shape[3] != depth:
        raise _invalid("image_size and grads are incompatible")
    boxes = boxes.astype(_F32, copy=False)
    if not np.all(np.isfinite(boxes)):
        raise _invalid("Boxes contains at least one element that is not finite")
    return boxes


def _check_box_ind(box_ind, batch):
    if np.any((box_ind < 0) | (box_ind >= batch)):
        raise errors.OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")


def _samples(box, in_h, in_w, crop_h, crop_w):
    """Per axis: source coordinates, their in-image mask, floor/ceil indices and lerps."""
    y1, x1, y2, x2 = box
    out = []
    for lo, hi, size, crop in ((y1, y2, in_h, crop_h), (x1, x2, in_w, crop_w)):
        coords = _crop_coords(lo, hi, size, crop)
        valid = (coords >= 0) & (coords <= _F32(size - 1))
        c = np.clip(coords, 0, size - 1)
        low = np.floor(c).astype(np.int64)
        out.append((c, valid, low, np.ceil(c).astype(np.int64), (c - low).astype(_F32)))
    return out


def crop_and_resize_grad_image(grads, boxes, box_ind, image_size, *, T, method):
    """CropAndResizeGradImage: the gradient of the image, [batch, height, width, depth]."""
    method = method.decode() if isinstance(method, bytes) else method
    if method not in ("bilinear", "nearest"):
        raise _invalid(f"method must be 'bilinear' or 'nearest'{method}")
    image_size = np.asarray(image_size)
    if image_size.shape != (4,):
        raise _invalid(f"image_size must be 1-D with 4 elements, got "
                       f"{_shape_str(image_size.shape)}")
    batch, in_h, in_w, depth = (int(d) for d in image_size)
    if in_h <= 0 or in_w <= 0:
        raise _invalid("image dimensions must be positive")
    boxes = _check_boxes(grads, boxes, box_ind, depth)
    _check_box_ind(box_ind, batch)
    out = np.zeros((batch, in_h, in_w, depth), dtype=_F32)
    grads = grads.astype(_F32, copy=False)
    crop_h, crop_w = grads.shape[1:3]
    for b in range(grads.shape[0]):
        (cy, vy, top, bot, ly), (cx, vx, left, right, lx) = _samples(
            boxes[b], in_h, in_w, crop_h, crop_w)
        rows, cols = np.nonzero(vy)[0], np.nonzero(vx)[0]
        g = grads[b][np.ix_(rows, cols)]
        img = out[int(box_ind[b])]
        if method == "bilinear":
            wy, wx = ly[rows][:, None, None], lx[cols][None, :, None]
            for ys, yw in ((top[rows], 1 - wy), (bot[rows], wy)):
                for xs, xw in ((left[cols], 1 - wx), (right[cols], wx)):
                    np.add.at(img, (ys[:, None], xs[None, :]), g * yw * xw)
        else:
            ys = _round_half_away(cy[rows]).astype(np.int64)
            xs = _round_half_away(cx[cols]).astype(np.int64)
            np.add.at(img, (ys[:, None], xs[None, :]), g)
    return out.astype(T.as_numpy_dtype, copy=False)


def crop_and_resize_grad_boxes(grads, image, boxes, box_ind, *, method):
    """CropAndResizeGradBoxes: the gradient of the boxes, [num_boxes, 4] (bilinear only)."""
    method = method.decode() if isinstance(method, bytes) else method
    if method != "bilinear":
        raise _invalid(f"method must be 'bilinear'{method}")
    if image.ndim != 4:
        raise _invalid(f"input image must be 4-D{_shape_str(image.shape)}")
    batch, in_h, in_w, depth = image.shape
    if in_h <= 0 or in_w <= 0:
        raise _invalid("image dimensions must be positive")
    boxes = _check_boxes(grads, boxes, box_ind, depth)
    _check_box_ind(box_ind, batch)
    grads = grads.astype(_F32, copy=False)
    num_boxes, crop_h, crop_w = grads.shape[:3]
    out = np.zeros((num_boxes, 4), dtype=_F32)
    # d(source coordinate)/d(low corner), d/d(high corner), per crop row or column.
    d_axis = []
    for size, crop in ((in_h, crop_h), (in_w, crop_w)):
        if crop > 1:
            ratio = _F32(size - 1) / _F32(crop - 1)
            steps = np.arange(crop, dtype=_F32) * ratio
            d_axis.append((_F32(size - 1) - steps, steps))
        else:
            half = np.full(1, _F32(0.5) * _F32(size - 1), dtype=_F32)
            d_axis.append((half, half))
    (dy_lo, dy_hi), (dx_lo, dx_hi) = d_axis
    for b in range(num_boxes):
        (_, vy, top, bot, ly), (_, vx, left, right, lx) = _samples(
            boxes[b], in_h, in_w, crop_h, crop_w)
        rows, cols = np.nonzero(vy)[0], np.nonzero(vx)[0]
        img = image[int(box_ind[b])].astype(_F32, copy=False)
        tl = img[np.ix_(top[rows], left[cols])]
        tr = img[np.ix_(top[rows], right[cols])]
        bl = img[np.ix_(bot[rows], left[cols])]
        br = img[np.ix_(bot[rows], right[cols])]
        wy, wx = ly[rows][:, None, None], lx[cols][None, :, None]
        g = grads[b][np.ix_(rows, cols)]
        # The sampled value's slope along y and x, times the incoming gradient.
        along_y = (((1 - wx) * (bl - tl) + wx * (br - tr)) * g).sum(axis=(1, 2))
        along_x = (((1 - wy) * (tr - tl) + wy * (br - bl)) * g).sum(axis=(0, 2))
        out[b] = [along_y @ dy_lo[rows], along_x @ dx_lo[cols],
                  along_y @ dy_hi[rows], along_x @ dx_hi[cols]]
    return out
