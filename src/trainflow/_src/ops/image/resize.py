"""Image resizing: the ResizeBilinear / ResizeNearestNeighbor / ResizeBicubic /
ResizeArea / CropAndResize ops (with the gradient ops of all but ResizeArea) and TF1's
`tf.image.resize_images`, `resize_bilinear`, ... functions.

Defaults are TF1's: align_corners=False and half_pixel_centers=False (the legacy
pixel mapping `src = dst * in_size / out_size`). Kernels live in `resize_kernels` and
`crop_grad_kernels`.
"""
import numpy as np

from trainflow._src.framework import dtypes, tensor_util
from trainflow._src.framework.registry import RegisterGradient, NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, dimension_value
from trainflow._src.ops.image import image_util as _ops
from trainflow._src.ops.image import crop_grad_kernels
from trainflow._src.ops.image import resize_kernels as kernels
from trainflow._src.ops.image.geometry import pad_to_bounding_box

__all__ = ["ResizeMethod", "crop_and_resize", "resize", "resize_area", "resize_bicubic",
           "resize_bilinear", "resize_image_with_pad", "resize_images",
           "resize_nearest_neighbor"]

_RESIZE_TYPES = "{int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}"
_CORNER_ATTRS = ["align_corners: bool = false", "half_pixel_centers: bool = false"]


# -- shape functions -----------------------------------------------------------------------
def _with_rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape if shape.ndims is not None else TensorShape([None] * rank)


def _size_dims(size_tensor, what="size"):
    """(height, width) from a 2-element int32 size input, None where not static."""
    size_shape = _with_rank(size_tensor.get_shape(), 1)
    n = dimension_value(size_shape[0])
    if n is not None and n != 2:
        raise ValueError(f"Dimension must be 2 but is {n}")
    dims = tensor_util.constant_value_as_shape(size_tensor).as_list() \
        if size_shape.is_fully_defined() else [None, None]
    for d in dims:
        if d is not None and d < 0:
            raise ValueError(f"{what} must be non-negative, got {d}")
    return dims


def _resize_shape(op):
    images = _with_rank(op.inputs[0].get_shape(), 4)
    height, width = _size_dims(op.inputs[1])
    return [TensorShape([images[0], height, width, images[3]])]


def _grad_to_original_shape(op):
    _with_rank(op.inputs[0].get_shape(), 4)
    return [_with_rank(op.inputs[1].get_shape(), 4)]


def _nn_grad_shape(op):
    grads = _with_rank(op.inputs[0].get_shape(), 4)
    height, width = _size_dims(op.inputs[1])
    return [TensorShape([grads[0], height, width, grads[3]])]


def _crop_and_resize_shape(op):
    image = _with_rank(op.inputs[0].get_shape(), 4)
    boxes = _with_rank(op.inputs[1].get_shape(), 2)
    box_ind = _with_rank(op.inputs[2].get_shape(), 1)
    if dimension_value(boxes[1]) not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {dimension_value(boxes[1])}")
    num_boxes = boxes[0].merge_with(box_ind[0])
    height, width = _size_dims(op.inputs[3], "crop_size")
    return [TensorShape([num_boxes, height, width, image[3]])]


# -- op registrations (gradients right after each forward op) ------------------------------
def _corner_attrs(op):
    """The align_corners / half_pixel_centers attrs of a resize op, for its gradient op."""
    return {"align_corners": op.get_attr("align_corners"),
            "half_pixel_centers": op.get_attr("half_pixel_centers")}


register_op("ResizeBilinear", inputs=["images: T", "size: int32"],
            outputs=["resized_images: float"], attrs=["T: " + _RESIZE_TYPES] + _CORNER_ATTRS,
            shape_fn=_resize_shape, kernel=kernels.resize_bilinear)
register_op("ResizeBilinearGrad", inputs=["grads: float", "original_image: T"],
            outputs=["output: T"], attrs=["T: {float, bfloat16, half, double}"] + _CORNER_ATTRS,
            shape_fn=_grad_to_original_shape, kernel=kernels.resize_bilinear_grad)


@RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op, grad):
    grad0 = _ops.op("ResizeBilinearGrad", grads=grad, original_image=op.inputs[0],
                    **_corner_attrs(op))
    return [grad0, None]


NotDifferentiable("ResizeBilinearGrad")

register_op("ResizeNearestNeighbor", inputs=["images: T", "size: int32"],
            outputs=["resized_images: T"], attrs=["T: " + _RESIZE_TYPES] + _CORNER_ATTRS,
            shape_fn=_resize_shape, kernel=kernels.resize_nearest_neighbor)
register_op("ResizeNearestNeighborGrad", inputs=["grads: T", "size: int32"],
            outputs=["output: T"],
            attrs=["T: {uint8, int8, int32, half, float, double, bfloat16}"] + _CORNER_ATTRS,
            shape_fn=_nn_grad_shape, kernel=kernels.resize_nearest_neighbor_grad)


@RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_neighbor_grad(op, grad):
    image = op.inputs[0]
    hw = image.get_shape()[1:3]
    if hw.is_fully_defined():
        size = convert_to_tensor(hw.as_list(), dtype=dtypes.int32)
    else:
        size = _ops.slice_(_ops.shape(image), convert_to_tensor([1], dtype=dtypes.int32),
                           convert_to_tensor([2], dtype=dtypes.int32))
    grads = _ops.op("ResizeNearestNeighborGrad", grads=grad, size=size, **_corner_attrs(op))
    return [grads, None]


register_op("ResizeBicubic", inputs=["images: T", "size: int32"],
            outputs=["resized_images: float"], attrs=["T: " + _RESIZE_TYPES] + _CORNER_ATTRS,
            shape_fn=_resize_shape, kernel=kernels.resize_bicubic)
register_op("ResizeBicubicGrad", inputs=["grads: float", "original_image: T"],
            outputs=["output: T"], attrs=["T: {float, double}"] + _CORNER_ATTRS,
            shape_fn=_grad_to_original_shape, kernel=kernels.resize_bicubic_grad)


@RegisterGradient("ResizeBicubic")
def _resize_bicubic_grad(op, grad):
    grad0 = None
    if op.inputs[0].dtype.base_dtype in (dtypes.float32, dtypes.float64):
        grad0 = _ops.op("ResizeBicubicGrad", grads=grad, original_image=op.inputs[0],
                        **_corner_attrs(op))
    return [grad0, None]


register_op("ResizeArea", inputs=["images: T", "size: int32"],
            outputs=["resized_images: float"],
            attrs=["T: " + _RESIZE_TYPES, "align_corners: bool = false"],
            shape_fn=_resize_shape, kernel=kernels.resize_area)

register_op("CropAndResize",
            inputs=["image: T", "boxes: float", "box_ind: int32", "crop_size: int32"],
            outputs=["crops: float"],
            attrs=["T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
                   "method: {'bilinear', 'nearest'} = 'bilinear'",
                   "extrapolation_value: float = 0"],
            shape_fn=_crop_and_resize_shape, kernel=kernels.crop_and_resize)


def _crop_grad_image_shape(op):
    _with_rank(op.inputs[0].get_shape(), 4)
    size = tensor_util.constant_value_as_shape(op.inputs[3])
    return [size.with_rank(4) if size.ndims is not None else TensorShape([None] * 4)]


def _crop_grad_boxes_shape(op):
    grads = _with_rank(op.inputs[0].get_shape(), 4)
    _with_rank(op.inputs[1].get_shape(), 4)
    return [TensorShape([grads[0], 4])]


register_op("CropAndResizeGradImage",
            inputs=["grads: float", "boxes: float", "box_ind: int32", "image_size: int32"],
            outputs=["output: T"],
            attrs=["T: {float, half, double}", "method: {'bilinear', 'nearest'} = 'bilinear'"],
            shape_fn=_crop_grad_image_shape, kernel=crop_grad_kernels.crop_and_resize_grad_image)
register_op("CropAndResizeGradBoxes",
            inputs=["grads: float", "image: T", "boxes: float", "box_ind: int32"],
            outputs=["output: float"],
            attrs=["T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
                   "method: {'bilinear'} = 'bilinear'"],
            shape_fn=_crop_grad_boxes_shape, kernel=crop_grad_kernels.crop_and_resize_grad_boxes)


@RegisterGradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    """Gradients of the image (float types only) and the boxes, as TensorFlow's."""
    image, boxes, box_ind = op.inputs[:3]
    shape = image.get_shape()
    image_size = shape.as_list() if shape.is_fully_defined() else _ops.op("Shape", input=image)
    grad_image = None
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad_image = _ops.op("CropAndResizeGradImage", grads=grad, boxes=boxes, box_ind=box_ind,
                             image_size=image_size, T=image.dtype.base_dtype,
                             method=op.get_attr("method"))
    grad_boxes = _ops.op("CropAndResizeGradBoxes", grads=grad, image=image, boxes=boxes,
                         box_ind=box_ind)
    return [grad_image, grad_boxes, None, None]



# -- public functions ----------------------------------------------------------------------
class ResizeMethod:
    """TF1's `tf.image.ResizeMethod` (the TF2 string names are accepted too)."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


_METHODS = {0: "BILINEAR", "bilinear": "BILINEAR", 1: "NEAREST", "nearest": "NEAREST",
            2: "BICUBIC", "bicubic": "BICUBIC", 3: "AREA", "area": "AREA"}


def _scaled_size(height, width, size):
    """The aspect-preserving target size, folded in float32 when everything is static."""
    size_value = tensor_util.constant_value(size)
    if size_value is not None and not _ops.is_tensor(height) and not _ops.is_tensor(width):
        f32 = np.float32
        scale = min(f32(size_value[0]) / f32(height), f32(size_value[1]) / f32(width))
        return convert_to_tensor([int(np.round(scale * f32(height))),
                                  int(np.round(scale * f32(width)))],
                                 dtype=dtypes.int32, name="size")
    h = _ops.cast(height, dtypes.float32)
    w = _ops.cast(width, dtypes.float32)
    new = _ops.unstack(size, 2)
    scale = _ops.op("Minimum", x=_ops.realdiv(_ops.cast(new[0], dtypes.float32), h),
                    y=_ops.realdiv(_ops.cast(new[1], dtypes.float32), w))
    scaled = [_ops.cast(_ops.op("Round", x=_ops.mul(scale, d)), dtypes.int32) for d in (h, w)]
    return _ops.stack(scaled, name="size")


def _resize_common(images, resizer, size, preserve_aspect_ratio, name, skip_if_same=True):
    with name_scope(name, "resize", [images, size]):
        images = convert_to_tensor(images, name="images")
        if images.get_shape().ndims is None:
            raise ValueError("'images' contains no shape.")
        batched = True
        if images.get_shape().ndims == 3:
            batched = False
            images = _ops.expand_dims(images, 0)
        elif images.get_shape().ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.get_shape().as_list()
        try:
            size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.get_shape().is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            _, cur_h, cur_w, _ = _ops.image_dimensions(images, 4)
            size = _scaled_size(cur_h, cur_w, size)
        new_h, new_w = tensor_util.constant_value_as_shape(size).as_list()
        if skip_if_same and None not in (new_h, new_w, height, width) and \
                (new_h, new_w) == (height, width):
            return _ops.unbatch(images, batched)
        images = resizer(images, size)
        images.set_shape([None, new_h, new_w, None])
        return _ops.unbatch(images, batched)


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None):
    """Resizes images (3-D [H, W, C] or 4-D [N, H, W, C]) to `size` (TF1 semantics).

    Args:
      size: [new_height, new_width] (int32 tensor or Python list).
      method: a `ResizeMethod` (BILINEAR, NEAREST_NEIGHBOR, BICUBIC, AREA).
      align_corners: map the corner pixels of input and output onto each other.
      preserve_aspect_ratio: scale to fit inside `size` keeping the aspect ratio.

    Returns:
      float32 images (NEAREST_NEIGHBOR keeps the input dtype); the input itself when
      the size is statically unchanged.

    Raises:
      ValueError: for a bad rank, a bad `size`, or an unknown method.
    """
    kind = _METHODS.get(method)
    if kind is None:
        raise ValueError(f"Resize method is not implemented: {method}")

    def resizer(images_t, new_size):
        if kind == "BILINEAR":
            return _ops.op("ResizeBilinear", images=images_t, size=new_size,
                           align_corners=align_corners)
        if kind == "NEAREST":
            return _ops.op("ResizeNearestNeighbor", images=images_t, size=new_size,
                           align_corners=align_corners)
        if kind == "BICUBIC":
            return _ops.op("ResizeBicubic", images=images_t, size=new_size,
                           align_corners=align_corners)
        return _ops.op("ResizeArea", images=images_t, size=new_size,
                       align_corners=align_corners)

    return _resize_common(images, resizer, size, preserve_aspect_ratio, name)


resize = resize_images


def _resize_op(op_type, images, size, align_corners, half_pixel_centers, name):
    return _ops.op(op_type, images=images, size=convert_to_tensor(size, dtype=dtypes.int32,
                                                                  name="size"),
                   align_corners=align_corners, half_pixel_centers=half_pixel_centers,
                   name=name)


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """The ResizeBilinear op on a 4-D batch: float32 [N, new_h, new_w, C]."""
    return _resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    """The ResizeNearestNeighbor op on a 4-D batch (keeps the dtype)."""
    return _resize_op("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers,
                      name)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """The ResizeBicubic op on a 4-D batch: float32."""
    return _resize_op("ResizeBicubic", images, size, align_corners, half_pixel_centers, name)


def resize_area(images, size, align_corners=False, name=None):
    """The ResizeArea op on a 4-D batch: float32 area averages."""
    return _ops.op("ResizeArea", images=images,
                   size=convert_to_tensor(size, dtype=dtypes.int32, name="size"),
                   align_corners=align_corners, name=name)


def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                          align_corners=False):
    """Resizes an image (or batch) to fit target_height x target_width keeping its aspect
    ratio, then zero-pads it to exactly that size.

    Raises:
      ValueError: for a bad rank or non-positive targets.
    """
    with name_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        image, batched = _ops.as_batch(image)
        image, _ = _ops.check_targets(image, target_height, target_width)
        _, height, width, _ = _ops.image_dimensions(image, 4)
        if not any(_ops.is_tensor(v) for v in (height, width, target_height, target_width)):
            f32 = np.float32
            ratio = max(f32(width) / f32(target_width), f32(height) / f32(target_height))
            h_float, w_float = f32(height) / ratio, f32(width) / ratio
            new_size = [int(np.floor(h_float)), int(np.floor(w_float))]
            pad_h = max(0, int(np.floor((f32(target_height) - h_float) / f32(2))))
            pad_w = max(0, int(np.floor((f32(target_width) - w_float) / f32(2))))
        else:
            fh, fw = (_ops.cast(v, dtypes.float32) for v in (height, width))
            fth, ftw = (_ops.cast(v, dtypes.float32) for v in (target_height, target_width))
            ratio = _ops.op("Maximum", x=_ops.realdiv(fw, ftw), y=_ops.realdiv(fh, fth))
            h_float, w_float = _ops.realdiv(fh, ratio), _ops.realdiv(fw, ratio)
            new_size = _ops.stack([_ops.cast(_ops.op("Floor", x=v), dtypes.int32)
                                   for v in (h_float, w_float)])
            two = convert_to_tensor(2.0, dtype=dtypes.float32)
            pad_h, pad_w = (
                _ops.op("Maximum", x=0, y=_ops.cast(_ops.op(
                    "Floor", x=_ops.realdiv(_ops.sub(t, f), two)), dtypes.int32))
                for t, f in ((fth, h_float), (ftw, w_float)))
        resized = resize_images(image, new_size, method, align_corners=align_corners)
        padded = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
        if padded.get_shape().ndims is None:
            raise ValueError("padded contains no shape.")
        return _ops.unbatch(padded, batched)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0, name=None, box_indices=None):
    """Crops normalized boxes ([y1, x1, y2, x2] in [0, 1]) out of a batch of images and
    resizes each crop to `crop_size` (the CropAndResize op).

    Args:
      image: 4-D [batch, H, W, C].
      boxes: float32 [num_boxes, 4].
      box_ind / box_indices: int32 [num_boxes], the image of each box.
      crop_size: [crop_height, crop_width].
      method: "bilinear" or "nearest".
      extrapolation_value: the value of samples outside the image.

    Returns:
      float32 [num_boxes, crop_height, crop_width, C].
    """
    if box_ind is None:
        box_ind = box_indices
    elif box_indices is not None:
        raise ValueError("Cannot specify both 'box_ind' and 'box_indices'.")
    return _ops.op("CropAndResize", image=image, boxes=boxes,
                   box_ind=convert_to_tensor(box_ind, dtype=dtypes.int32),
                   crop_size=convert_to_tensor(crop_size, dtype=dtypes.int32),
                   method=method, extrapolation_value=extrapolation_value, name=name)
