"""Kernels of TensorFlow's image codec ops (DecodePng, DecodeJpeg, DecodeGif, DecodeBmp,
DecodeImage, EncodePng, EncodeJpeg, EncodeJpegVariableQuality, ExtractJpegShape),
built on Pillow; 16-bit PNGs go through `png16`.

As in TF 2.x, every decode op sniffs the format from the leading bytes and decodes
what it finds (DecodePng reads a JPEG), refusing only the combinations TF refuses.
Channel conversions follow libpng/libjpeg as TF drives them: greyscale from RGB uses
libpng's fixed-point 0.299/0.587/0.114 weights, alpha is dropped or added opaque.
JPEGs are decoded with libjpeg's accurate integer IDCT (TF's dct_method
"INTEGER_ACCURATE"; TF's own default is the fast IDCT, which can differ by a few
levels). EncodeJpeg output is byte-identical to TensorFlow's for the same options.
"""
import io
import threading

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.image import png16

_FORMATS_MSG = "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."
_TRUNCATED_LOCK = threading.Lock()


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _bytes(contents, what="contents"):
    if isinstance(contents, np.ndarray) and contents.ndim != 0:
        raise _invalid(f"{what} must be scalar, got shape "
                       f"[{','.join(map(str, contents.shape))}]")
    value = contents.item() if isinstance(contents, np.ndarray) else contents
    if isinstance(value, str):
        value = value.encode("latin-1")
    if not isinstance(value, (bytes, bytearray)):
        raise _invalid(f"{what} must be a scalar string, got {type(value).__name__}")
    return bytes(value)


def sniff(data):
    """The image format of `data`: 'jpeg', 'png', 'gif', 'bmp', 'webp' or None."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == png16.SIGNATURE:
        return "png"
    if data[:4] == b"GIF8":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _pil():
    from PIL import Image, ImageFile, ImageSequence
    return Image, ImageFile, ImageSequence


def _open(data, fmt):
    Image, _, _ = _pil()
    try:
        return Image.open(io.BytesIO(data))
    except Exception as e:  # noqa: BLE001 - Pillow raises many types for bad data
        raise _invalid(f"Invalid {fmt.upper()} data, size {len(data)}: {e}") from None


def _load(im, data, fmt, try_recover=False):
    try:
        im.load()
    except (OSError, SyntaxError, ValueError) as e:
        if not try_recover:
            raise _invalid(f"Invalid {fmt.upper()} data or crop window, data size "
                           f"{len(data)}: {e}") from None
        _, ImageFile, _ = _pil()
        with _TRUNCATED_LOCK:
            old = ImageFile.LOAD_TRUNCATED_IMAGES
            ImageFile.LOAD_TRUNCATED_IMAGES = True
            try:
                im = _open(data, fmt)
                im.load()
            finally:
                ImageFile.LOAD_TRUNCATED_IMAGES = old
    return im


# -- channel and depth conversions ---------------------------------------------------------
def _gray(rgb, depth):
    """libpng's rgb_to_gray with TF's weights (8-bit truncates, 16-bit rounds)."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    total = 9797 * r + 19234 * g + 3737 * b
    if depth == 16:
        total += 16384
    return (total >> 15).astype(rgb.dtype)[..., None]


def convert_channels(arr, channels, depth):
    """Converts an [H, W, C] image (C in 1..4, grey[+alpha] or RGB[+alpha]) to `channels`
    (0 keeps C), dropping alpha or adding an opaque one as libpng does."""
    c = arr.shape[-1]
    if channels == 0 or channels == c:
        return arr
    opaque = np.full(arr.shape[:-1] + (1,), (1 << depth) - 1, arr.dtype)
    gray = arr[..., :1] if c <= 2 else _gray(arr, depth)
    alpha = arr[..., -1:] if c in (2, 4) else opaque
    if channels == 1:
        return gray
    rgb = np.repeat(gray, 3, axis=-1) if c <= 2 else arr[..., :3]
    if channels == 3:
        return rgb
    return np.concatenate([rgb, alpha], axis=-1)


def _to_dtype(arr, dtype, png):
    """uint8 <-> uint16 (PNG: x*257 / x>>8 as libpng; others x*256) and float32."""
    dtype = np.dtype(dtype)
    if arr.dtype == dtype:
        return arr
    if dtype == np.uint16:
        return arr.astype(np.uint16) * np.uint16(257 if png else 256)
    if dtype == np.uint8:
        return (arr >> 8).astype(np.uint8)
    scale = np.float32(1.0 / np.iinfo(arr.dtype).max)
    return arr.astype(np.float32) * scale


def _check_channels(channels, allowed=(0, 1, 3, 4)):
    if channels not in allowed:
        raise _invalid(f"`channels` must be 0, 1, 3 or 4 but got {channels}")


# -- decoders ------------------------------------------------------------------------------
def _png_array(data):
    """(native [H, W, C] array, bit depth) of a PNG."""
    try:
        _, _, depth, _, _ = png16.read_header(data)
    except png16.PngError:
        raise _invalid(f"Invalid PNG data, size {len(data)}") from None
    if depth == 16:
        try:
            return png16.decode(data), 16
        except png16.PngError as e:
            raise _invalid(f"Invalid PNG data, size {len(data)}: {e}") from None
    im = _load(_open(data, "png"), data, "png")
    mode, info = im.mode, im.info
    if mode in ("P", "PA"):
        im = im.convert("RGBA" if mode == "PA" or "transparency" in info else "RGB")
    elif mode == "1":
        im = im.convert("L")
    arr = np.asarray(im)
    if arr.ndim == 2:
        arr = arr[..., None]
    key = info.get("transparency") if mode in ("L", "RGB") else None
    if key is not None and not isinstance(key, bytes):
        key = np.asarray(key).reshape(-1)
        alpha = np.where(np.all(arr == key.astype(arr.dtype), axis=-1), 0, 255)
        arr = np.concatenate([arr, alpha.astype(np.uint8)[..., None]], axis=-1)
    return np.ascontiguousarray(arr), 8


def _jpeg_array(data, channels, ratio, try_recover):
    """[H, W, C] uint8 of a JPEG decoded at 1/ratio scale with libjpeg's converters."""
    if ratio not in (1, 2, 4, 8):
        raise _invalid(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    if channels == 4:
        raise _invalid("JPEG does not support 4 channels")
    im = _open(data, "jpeg")
    native_gray = im.mode == "L"
    mode = "L" if channels == 1 or (channels == 0 and native_gray) else "RGB"
    width, height = im.size
    if ratio > 1 or mode != im.mode:
        im.draft(mode, (max(1, width // ratio), max(1, height // ratio)))
    im = _load(im, data, "jpeg", try_recover)
    if im.mode != mode:
        im = im.convert(mode)
    arr = np.asarray(im)
    return np.ascontiguousarray(arr[..., None] if arr.ndim == 2 else arr)


def _gif_frames(data):
    """[N, H, W, 3] uint8: every frame of a GIF, composited as displayed."""
    _, _, ImageSequence = _pil()
    im = _open(data, "gif")
    try:
        frames = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(im)]
    except (OSError, ValueError, EOFError) as e:
        raise _invalid(f"Invalid GIF data (size {len(data)}): {e}") from None
    return np.stack(frames)


def _rgb_array(data, fmt):
    """BMP / WebP: [H, W, 3 or 4] uint8."""
    im = _load(_open(data, fmt), data, fmt)
    if im.mode not in ("RGB", "RGBA"):
        im = im.convert("RGBA" if "A" in im.mode or "transparency" in im.info else "RGB")
    return np.ascontiguousarray(np.asarray(im))


def decode_any(data, channels, dtype, op_type, expand_animations=True, ratio=1,
               try_recover=False):
    """Decodes image bytes as TF 2.x's shared decode kernel does for `op_type`.

    Returns:
      the image array: [H, W, C], or [N, H, W, 3] for GIFs when `op_type` is DecodeGif
      or DecodeImage with expand_animations.

    Raises:
      InvalidArgumentError: for unknown or corrupt data and the format/op and
        format/channels combinations TF refuses, with TF's wording.
    """
    fmt = sniff(data)
    if fmt is None:
        raise _invalid(_FORMATS_MSG)
    if fmt == "bmp" and op_type not in ("DecodeBmp", "DecodeImage"):
        raise _invalid("Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                       f"`decode_image` instead. Op used: {op_type}")
    if op_type == "DecodeBmp" and fmt != "bmp":
        names = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "webp": "WebP"}
        raise _invalid(f"Trying to decode {names[fmt]} format using DecodeBmp op. Use "
                       f"`decode_{fmt}` or `decode_image` instead.")
    batched = op_type == "DecodeGif" or (op_type == "DecodeImage" and expand_animations)
    if fmt == "gif":
        if channels not in (0, 3):
            raise _invalid(f"channels must be 0 or 3 for GIF, got {channels}")
        frames = _gif_frames(data)
        if not batched and frames.shape[0] > 1 and op_type != "DecodeImage":
            raise _invalid(f"Got {frames.shape[0]} frames, but animated gifs can only be "
                           "decoded by tf.io.decode_gif or tf.io.decode_image")
        frames = _to_dtype(frames, dtype, False)
        return frames if batched else frames[0]
    if fmt == "bmp":
        if channels not in (0, 3, 4):
            raise _invalid(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
        image = _to_dtype(convert_channels(_rgb_array(data, fmt), channels, 8), dtype, False)
    elif fmt == "png":
        arr, depth = _png_array(data)
        image = _to_dtype(convert_channels(arr, channels, depth), dtype, True)
    elif fmt == "jpeg":
        arr = _jpeg_array(data, channels, ratio, try_recover)
        image = _to_dtype(convert_channels(arr, channels, 8), dtype, False)
    else:
        image = _to_dtype(convert_channels(_rgb_array(data, fmt), channels, 8), dtype, False)
    return image[None] if op_type == "DecodeGif" else image


def decode_png(contents, *, channels, dtype):
    """DecodePng kernel."""
    _check_channels(channels)
    return decode_any(_bytes(contents), channels, dtype.as_numpy_dtype, "DecodePng")


def decode_jpeg(contents, *, channels, ratio, fancy_upscaling, try_recover_truncated,
                acceptable_fraction, dct_method):
    """DecodeJpeg kernel (fancy_upscaling, acceptable_fraction and dct_method are
    accepted; libjpeg's defaults, fancy upsampling and the accurate IDCT, are used)."""
    _check_channels(channels)
    return decode_any(_bytes(contents), channels, np.uint8, "DecodeJpeg", ratio=ratio,
                      try_recover=try_recover_truncated)


def decode_gif(contents):
    """DecodeGif kernel: [num_frames, H, W, 3] uint8."""
    return decode_any(_bytes(contents), 0, np.uint8, "DecodeGif")


def decode_bmp(contents, *, channels):
    """DecodeBmp kernel."""
    return decode_any(_bytes(contents), channels, np.uint8, "DecodeBmp")


def decode_image(contents, *, channels, dtype, expand_animations):
    """DecodeImage kernel: any supported format; float32 output is scaled to [0, 1]."""
    _check_channels(channels)
    return decode_any(_bytes(contents), channels, dtype.as_numpy_dtype, "DecodeImage",
                      expand_animations=expand_animations)


def extract_jpeg_shape(contents, *, output_type):
    """ExtractJpegShape kernel: [height, width, components] without decoding pixels."""
    data = _bytes(contents)
    if sniff(data) != "jpeg":
        raise _invalid(f"Invalid JPEG data, size {len(data)}")
    im = _open(data, "jpeg")
    comps = {"L": 1, "RGB": 3, "YCbCr": 3, "CMYK": 4}.get(im.mode, len(im.getbands()))
    return np.array([im.size[1], im.size[0], comps], dtype=output_type.as_numpy_dtype)


# -- encoders ------------------------------------------------------------------------------
def _string(data):
    out = np.empty((), dtype=object)
    out[()] = data
    return out


def _png_bytes(image, compression):
    if image.dtype == np.uint16:
        return png16.encode(image, compression)
    Image, _, _ = _pil()
    channels = image.shape[2]
    mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[channels]
    pixels = np.ascontiguousarray(image[..., 0] if channels == 1 else image)
    buf = io.BytesIO()
    Image.fromarray(pixels, mode).save(buf, "PNG",
                                       compress_level=6 if compression < 0 else compression)
    return buf.getvalue()


def encode_png(image, *, compression):
    """EncodePng kernel: uint8 or uint16 [..., H, W, C], C in 1..4; a batch of images
    gives a batch of PNG strings."""
    shape = ",".join(map(str, image.shape))
    if image.ndim < 3:
        raise _invalid(f"images must be at least rank 3[{shape}]")
    channels = image.shape[-1]
    if channels not in (1, 2, 3, 4):
        raise _invalid(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    if not -1 <= compression <= 9:
        raise _invalid(f"compression should be in [-1,9], got {compression}")
    flat = image.reshape((-1,) + image.shape[-3:])
    out = np.empty(flat.shape[0], dtype=object)
    bad = []
    for i, img in enumerate(flat):
        if img.size == 0:
            bad.append(str(i))
            continue
        out[i] = _png_bytes(img, compression)
    if bad:
        raise errors.InternalError(None, None, "PNG encoding failed at the following "
                                               f"flattened batch indices: {', '.join(bad)}")
    return out.reshape(image.shape[:-3])


def _jpeg_bytes(image, fmt, quality, progressive, optimize_size, chroma_downsampling,
                density_unit, x_density, y_density, xmp_metadata):
    if image.ndim != 3:
        raise _invalid(f"image must be 3-dimensional[{','.join(map(str, image.shape))}]")
    channels = image.shape[2]
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    want = {"grayscale": 1, "rgb": 3}.get(fmt)
    if want is None and channels not in (1, 3):
        raise _invalid(f"image must have 1 or 3 channels, got "
                       f"[{','.join(map(str, image.shape))}]")
    if want is not None and channels != want:
        raise _invalid(f"format {fmt} expects {want} channels, got "
                       f"[{','.join(map(str, image.shape))}]")
    if not 0 <= quality <= 100:
        raise _invalid(f"quality must be in [0,100], got {quality}")
    if image.size == 0:
        raise errors.InternalError(None, None, "JPEG encoding failed")
    Image, _, _ = _pil()
    pixels = np.ascontiguousarray(image[..., 0] if channels == 1 else image)
    kwargs = dict(quality=int(quality), progressive=bool(progressive),
                  optimize=bool(optimize_size),
                  subsampling=2 if chroma_downsampling and channels == 3 else 0,
                  dpi=(int(x_density), int(y_density)))
    xmp = xmp_metadata.decode() if isinstance(xmp_metadata, bytes) else xmp_metadata
    if xmp:
        kwargs["xmp"] = xmp.encode()
    buf = io.BytesIO()
    Image.fromarray(pixels, "L" if channels == 1 else "RGB").save(buf, "JPEG", **kwargs)
    data = bytearray(buf.getvalue())
    unit = density_unit.decode() if isinstance(density_unit, bytes) else density_unit
    if unit == "cm" and data[6:11] == b"JFIF\x00":
        data[13] = 2  # JFIF density units: 1 = dots per inch, 2 = dots per cm
    return bytes(data)


def encode_jpeg(image, *, format, quality, progressive, optimize_size,  # noqa: A002
                chroma_downsampling, density_unit, x_density, y_density, xmp_metadata):
    """EncodeJpeg kernel: uint8 [H, W, 1 or 3] -> JPEG bytes."""
    return _string(_jpeg_bytes(image, format, quality, progressive, optimize_size,
                               chroma_downsampling, density_unit, x_density, y_density,
                               xmp_metadata))


def encode_jpeg_variable_quality(images, quality):
    """EncodeJpegVariableQuality kernel: EncodeJpeg with a run-time quality."""
    quality = np.asarray(quality)
    if quality.ndim != 0:
        raise _invalid(f"quality must be a scalar, got shape {list(quality.shape)}")
    return _string(_jpeg_bytes(images, "", int(quality), False, False, True, "in", 300, 300,
                               ""))
