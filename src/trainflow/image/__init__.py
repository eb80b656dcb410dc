"""`tf.image`: TF1's image functions as input pipelines use them (resizing, crops and
pads, flips and rotations, colour and brightness jitter, dtype conversion, PNG /
JPEG / GIF / BMP codecs).

Importing this package registers the image op types (ResizeBilinear, AdjustHue,
DecodePng, ...) with their kernels, shape functions and gradients.
"""
from trainflow._src.ops.image.codec import (  # noqa: F401
    adjust_jpeg_quality, decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png,
    encode_jpeg, encode_png, extract_jpeg_shape, random_jpeg_quality)
from trainflow._src.ops.image.color import (  # noqa: F401
    adjust_contrast, adjust_hue, adjust_saturation, grayscale_to_rgb, hsv_to_rgb,
    random_contrast, random_hue, random_saturation, rgb_to_grayscale, rgb_to_hsv)
from trainflow._src.ops.image.geometry import (  # noqa: F401
    central_crop, crop_to_bounding_box, flip_left_right, flip_up_down, pad_to_bounding_box,
    random_flip_left_right, random_flip_up_down, resize_image_with_crop_or_pad,
    resize_with_crop_or_pad, rot90, transpose, transpose_image)
from trainflow._src.ops.image.pixel import (  # noqa: F401
    adjust_brightness, adjust_gamma, convert_image_dtype, per_image_standardization,
    random_brightness)
from trainflow._src.ops.image.resize import (  # noqa: F401
    ResizeMethod, crop_and_resize, resize, resize_area, resize_bicubic, resize_bilinear,
    resize_image_with_pad, resize_images, resize_nearest_neighbor)
from trainflow._src.ops.image.draw_boxes import draw_bounding_boxes  # noqa: F401
from trainflow._src.ops.image.jpeg_magic import is_jpeg  # noqa: F401
from trainflow._src.ops.image.patches import (  # noqa: F401
    extract_image_patches, extract_patches)
from trainflow._src.ops.image.combined_nms import combined_non_max_suppression  # noqa: F401
from trainflow._src.ops.image.nms_padded import non_max_suppression_padded  # noqa: F401
from trainflow._src.ops.image.glimpse import extract_glimpse  # noqa: F401
from trainflow._src.ops.image.nms import (  # noqa: F401
    non_max_suppression, non_max_suppression_overlaps, non_max_suppression_with_scores)
from trainflow._src.ops.image.quality import (  # noqa: F401
    image_gradients, psnr, rgb_to_yiq, rgb_to_yuv, sobel_edges, ssim, ssim_multiscale, yiq_to_rgb,
    yuv_to_rgb)
from trainflow._src.ops.image.total_variation import total_variation  # noqa: F401
from trainflow._src.ops.random.random_ops import random_crop  # noqa: F401

__all__ = sorted(n for n in dir() if not n.startswith("_"))
