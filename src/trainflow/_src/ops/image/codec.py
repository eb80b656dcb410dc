"""Image codec ops (DecodePng, DecodeJpeg, DecodeGif, DecodeBmp, DecodeImage, EncodePng,
EncodeJpeg, EncodeJpegVariableQuality, ExtractJpegShape) and the tf.image / tf.io
functions that build them, plus adjust_jpeg_quality and random_jpeg_quality."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.ops.image import image_util as _ops
from trainflow._src.ops.image import codec_kernels as kernels
from trainflow._src.ops.image.pixel import convert_image_dtype
from trainflow._src.ops.random import random_ops

__all__ = ["adjust_jpeg_quality", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg",
           "decode_png", "encode_jpeg", "encode_png", "extract_jpeg_shape",
           "random_jpeg_quality"]


def _scalar_contents(op):
    shape = op.inputs[0].get_shape()
    if shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims}")


def _decoded_shape(op):
    _scalar_contents(op)
    channels = op._attrs.get("channels", 0)
    return [TensorShape([None, None, channels or None])]


def _gif_shape(op):
    _scalar_contents(op)
    return [TensorShape([None, None, None, 3])]


def _decode_image_shape(op):
    _scalar_contents(op)
    if op._attrs["expand_animations"]:
        return [unknown_shape()]
    return [TensorShape([None, None, op._attrs["channels"] or None])]


def _encode_png_shape(op):
    shape = op.inputs[0].get_shape()
    if shape.ndims is None:
        return [unknown_shape()]
    if shape.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {shape.ndims}")
    return [shape[:-3]]


def _encode_jpeg_shape(op):
    shape = op.inputs[0].get_shape()
    if shape.ndims not in (None, 3):
        raise ValueError(f"Shape must be rank 3 but is rank {shape.ndims}")
    return [TensorShape([])]


_JPEG_ATTRS = ["channels: int = 0", "ratio: int = 1", "fancy_upscaling: bool = true",
               "try_recover_truncated: bool = false", "acceptable_fraction: float = 1.0",
               "dct_method: string = ''"]
register_op("DecodePng", inputs=["contents: string"], outputs=["image: dtype"],
            attrs=["channels: int = 0", "dtype: {uint8, uint16} = DT_UINT8"],
            shape_fn=_decoded_shape, kernel=kernels.decode_png, host_only=True)
register_op("DecodeJpeg", inputs=["contents: string"], outputs=["image: uint8"],
            attrs=_JPEG_ATTRS, shape_fn=_decoded_shape, kernel=kernels.decode_jpeg,
            host_only=True)
register_op("DecodeGif", inputs=["contents: string"], outputs=["image: uint8"],
            shape_fn=_gif_shape, kernel=kernels.decode_gif, host_only=True)
register_op("DecodeBmp", inputs=["contents: string"], outputs=["image: uint8"],
            attrs=["channels: int = 0"], shape_fn=_decoded_shape, kernel=kernels.decode_bmp,
            host_only=True)
register_op("DecodeImage", inputs=["contents: string"], outputs=["image: dtype"],
            attrs=["channels: int = 0", "dtype: {uint8, uint16, float} = DT_UINT8",
                   "expand_animations: bool = true"],
            shape_fn=_decode_image_shape, kernel=kernels.decode_image, host_only=True)
register_op("EncodePng", inputs=["image: T"], outputs=["contents: string"],
            attrs=["compression: int = -1", "T: {uint8, uint16} = DT_UINT8"],
            shape_fn=_encode_png_shape, kernel=kernels.encode_png, host_only=True)
register_op("EncodeJpeg", inputs=["image: uint8"], outputs=["contents: string"],
            attrs=["format: {'', 'grayscale', 'rgb'} = ''", "quality: int = 95",
                   "progressive: bool = false", "optimize_size: bool = false",
                   "chroma_downsampling: bool = true", "density_unit: {'in', 'cm'} = 'in'",
                   "x_density: int = 300", "y_density: int = 300",
                   "xmp_metadata: string = ''"],
            shape_fn=_encode_jpeg_shape, kernel=kernels.encode_jpeg, host_only=True)
register_op("EncodeJpegVariableQuality", inputs=["images: uint8", "quality: int32"],
            outputs=["contents: string"], shape_fn=_encode_jpeg_shape,
            kernel=kernels.encode_jpeg_variable_quality, host_only=True)
register_op("ExtractJpegShape", inputs=["contents: string"], outputs=["image_shape: output_type"],
            attrs=["output_type: {int32, int64} = DT_INT32"],
            shape_fn=lambda op: [TensorShape([3])], kernel=kernels.extract_jpeg_shape,
            host_only=True)
for _op_type in ("DecodePng", "DecodeJpeg", "DecodeGif", "DecodeBmp", "DecodeImage",
                 "EncodePng", "EncodeJpeg", "EncodeJpegVariableQuality", "ExtractJpegShape"):
    NotDifferentiable(_op_type)


def _string(contents):
    return convert_to_tensor(contents, dtype=dtypes.string, name="contents")


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decodes a PNG (TF 2.x also reads JPEG and single-frame GIF here) to
    [height, width, channels] uint8 or uint16.

    Args:
      channels: 0 (as stored), 1 (greyscale), 3 (RGB) or 4 (RGBA).
      dtype: uint8 or uint16 (16-bit data is shifted down / 8-bit scaled by 257).
    """
    return _ops.op("DecodePng", contents=_string(contents), channels=channels, dtype=dtype,
                   name=name)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """Decodes a JPEG to [height, width, channels] uint8.

    Args:
      channels: 0 (as stored), 1 (greyscale) or 3 (RGB).
      ratio: downscale by 1, 2, 4 or 8 while decoding.
      try_recover_truncated: decode what is there of a truncated file.
      fancy_upscaling, acceptable_fraction, dct_method: accepted for compatibility;
        decoding always uses fancy upsampling and the accurate integer IDCT.
    """
    return _ops.op("DecodeJpeg", contents=_string(contents), channels=channels, ratio=ratio,
                   fancy_upscaling=fancy_upscaling,
                   try_recover_truncated=try_recover_truncated,
                   acceptable_fraction=acceptable_fraction, dct_method=dct_method, name=name)


def decode_gif(contents, name=None):
    """Decodes every frame of a GIF: [num_frames, height, width, 3] uint8."""
    return _ops.op("DecodeGif", contents=_string(contents), name=name)


def decode_bmp(contents, channels=0, name=None):
    """Decodes a BMP to [height, width, channels] uint8 (channels 0, 3 or 4)."""
    return _ops.op("DecodeBmp", contents=_string(contents), channels=channels, name=name)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """Decodes a BMP, GIF, JPEG, PNG or WebP image, whichever `contents` holds.

    Args:
      channels: None/0 (as stored), 1, 3 or 4.
      dtype: the output dtype; values are rescaled as by `convert_image_dtype`.
      expand_animations: GIFs decode to 4-D [frames, H, W, 3] when True, else to their
        first frame.

    Returns:
      3-D [H, W, C] (4-D for GIFs when expand_animations).
    """
    with name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        dtype = dtypes.as_dtype(dtype)
        decode_dtype = dtype if dtype in (dtypes.float32, dtypes.uint8, dtypes.uint16) \
            else dtypes.uint16
        image = _ops.op("DecodeImage", contents=_string(contents), channels=channels,
                        dtype=decode_dtype, expand_animations=expand_animations)
        if decode_dtype != dtype:
            image = convert_image_dtype(image, dtype)
        if not expand_animations:
            image.set_shape([None, None, channels or None])
        return image


def encode_png(image, compression=-1, name=None):
    """Encodes uint8/uint16 [H, W, C] (C in 1..4) as PNG bytes (a batch [..., H, W, C]
    gives a batch of strings). compression: zlib level 0-9, -1 for the default."""
    return _ops.op("EncodePng", image=convert_to_tensor(image, name="image"),
                   compression=compression, name=name)


def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002 - TF's name
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None):
    """Encodes uint8 [H, W, 1 or 3] as JPEG bytes (byte-identical to TensorFlow's)."""
    return _ops.op("EncodeJpeg", image=image, format=format, quality=quality,
                   progressive=progressive, optimize_size=optimize_size,
                   chroma_downsampling=chroma_downsampling, density_unit=density_unit,
                   x_density=x_density, y_density=y_density, xmp_metadata=xmp_metadata,
                   name=name)


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """[height, width, channels] of a JPEG, read from its header."""
    return _ops.op("ExtractJpegShape", contents=_string(contents), output_type=output_type,
                   name=name)


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """Round-trips an image through JPEG compression at `jpeg_quality` (0-100)."""
    with name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image.get_shape().as_list()[-1]
        orig = image.dtype.base_dtype
        image = convert_image_dtype(image, dtypes.uint8, saturate=True)
        if not _ops.is_tensor(jpeg_quality):
            jpeg_quality = convert_to_tensor(jpeg_quality, dtype=dtypes.int32)
        encoded = _ops.op("EncodeJpegVariableQuality", images=image, quality=jpeg_quality)
        image = _ops.op("DecodeJpeg", contents=encoded, channels=channels or 0,
                        dct_method=dct_method)
        return convert_image_dtype(image, orig, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """`adjust_jpeg_quality` at a quality drawn uniformly from [min, max).

    Raises:
      ValueError: if the range is outside [0, 100] or empty.
    """
    if (min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100 or
            max_jpeg_quality > 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed,
                                        dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)
