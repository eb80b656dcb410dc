"""Image codecs: PNG round trips (bit-exact), TensorFlow-written files, JPEG bytes
identical to TensorFlow's, GIF/BMP, channel conversions and errors."""
import hashlib
import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

import trainflow.compat.v1 as tf
from trainflow._src.ops.image import png16


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_png_round_trip_is_bit_exact(dtype):
    rng = np.random.RandomState(0)
    images = {c: rng.randint(0, np.iinfo(dtype).max + 1, (5, 7, c)).astype(dtype)
              for c in (1, 2, 3, 4)}
    with tf.Graph().as_default():
        tf_dtype = tf.as_dtype(dtype)
        outs = {c: tf.image.decode_png(tf.image.encode_png(img), dtype=tf_dtype)
                for c, img in images.items()}
        assert outs[3].shape.as_list() == [None, None, None]
        values = _run(outs)
    for c, value in values.items():
        assert value.dtype == dtype
        np.testing.assert_array_equal(value, images[c])


def test_encode_png_batch_and_compression_levels():
    imgs = np.random.RandomState(1).randint(0, 256, (2, 3, 4, 5, 3)).astype(np.uint8)
    with tf.Graph().as_default():
        enc = tf.image.encode_png(imgs, compression=9)
        assert enc.shape.as_list() == [2, 3]
        fast = tf.image.encode_png(imgs[0, 0], compression=0)
        encoded, raw = _run([enc, fast])
    assert encoded.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(encoded[1, 2]))),
                                  imgs[1, 2])
    assert len(raw) > 4 * 5 * 3


def test_decodes_pngs_written_by_tensorflow(tf_ref):
    ref = tf_ref["codec"]
    png8, png16_bytes = bytes.fromhex(ref["png8_hex"]), bytes.fromhex(ref["png16_hex"])
    with tf.Graph().as_default():
        outs = {"png8": tf.image.decode_png(png8), "png16": tf.image.decode_png(
            png16_bytes, dtype=tf.uint16),
                "png16_as_uint8": tf.image.decode_png(png16_bytes),
                "png8_as_uint16": tf.image.decode_png(png8, dtype=tf.uint16),
                "png16_decode_image_float": tf.image.decode_image(png16_bytes,
                                                                  dtype=tf.float32)}
        for c in (1, 3, 4):
            outs[f"png8_decoded/channels={c}"] = tf.image.decode_png(png8, channels=c)
            outs[f"png16_decoded/channels={c}"] = tf.image.decode_png(png16_bytes, channels=c,
                                                                      dtype=tf.uint16)
        values = _run(outs)
    np.testing.assert_array_equal(values.pop("png8"), ref["png8_pixels"])
    np.testing.assert_array_equal(values.pop("png16"), ref["png16_pixels"])
    for key, value in values.items():
        assert value.dtype == ref[key].dtype, key
        np.testing.assert_array_equal(value, ref[key], err_msg=key)


def test_jpeg_encoding_is_byte_identical_to_tensorflow(tf_ref):
    ref = tf_ref["codec"]
    pixels = ref["pixels"]
    options = [({}, "jpeg_sha256"),
               ({"quality": 50}, "jpeg_sha256/quality=50"),
               ({"chroma_downsampling": False}, "jpeg_sha256/chroma_downsampling=False"),
               ({"progressive": True}, "jpeg_sha256/progressive=True"),
               ({"optimize_size": True}, "jpeg_sha256/optimize_size=True"),
               ({"density_unit": "cm", "x_density": 72, "y_density": 96},
                "jpeg_sha256/density_unit=cm,x_density=72,y_density=96"),
               ({"xmp_metadata": "<x:xmpmeta/>"}, "jpeg_sha256/xmp_metadata=<x:xmpmeta/>")]
    with tf.Graph().as_default():
        outs = [tf.image.encode_jpeg(pixels, **kw) for kw, _ in options]
        outs.append(tf.image.encode_jpeg(pixels[..., :1], format="grayscale"))
        values = _run(outs)
    keys = [key for _, key in options] + ["jpeg_sha256/format=grayscale"]
    for key, data in zip(keys, values):
        assert hashlib.sha256(data).hexdigest() == ref[key], key
    assert values[0] == bytes.fromhex(ref["jpeg_hex"])


def test_jpeg_decoding_matches_tensorflows_accurate_idct(tf_ref):
    ref = tf_ref["codec"]
    jpeg = bytes.fromhex(ref["jpeg_hex"])
    with tf.Graph().as_default():
        outs = [tf.image.decode_jpeg(jpeg), tf.image.decode_jpeg(jpeg, channels=1),
                tf.image.decode_jpeg(jpeg, ratio=2), tf.image.extract_jpeg_shape(jpeg),
                tf.image.decode_image(jpeg, dtype=tf.uint16)]
        rgb, gray, half, shape, wide = _run(outs)
    np.testing.assert_array_equal(rgb, ref["jpeg_decoded_accurate"])
    np.testing.assert_array_equal(gray, ref["jpeg_decoded_gray_accurate"])
    np.testing.assert_array_equal(half, ref["jpeg_decoded_ratio2_accurate"])
    np.testing.assert_array_equal(shape, [8, 8, 3])
    np.testing.assert_array_equal(wide, rgb.astype(np.uint16) * 256)
    # TF's default fast IDCT differs by a few levels (this noisy image is a hard case).
    diff = np.abs(rgb.astype(int) - ref["jpeg_decoded_default"].astype(int))
    assert diff.max() <= 10 and diff.mean() < 5


def _gif(frames):
    buf = io.BytesIO()
    images = [Image.fromarray(f) for f in frames]
    images[0].save(buf, "GIF", save_all=True, append_images=images[1:])
    return buf.getvalue()


def test_gif_and_bmp():
    frames = [np.full((4, 5, 3), 40 * i, np.uint8) for i in range(3)]
    anim, still = _gif(frames), _gif(frames[:1])
    buf = io.BytesIO()
    Image.fromarray(frames[2]).save(buf, "BMP")
    bmp = buf.getvalue()
    with tf.Graph().as_default():
        outs = [tf.image.decode_gif(anim), tf.image.decode_image(anim),
                tf.image.decode_image(anim, expand_animations=False),
                tf.image.decode_png(still), tf.image.decode_bmp(bmp, channels=4),
                tf.image.decode_image(bmp, dtype=tf.float32)]
        assert outs[0].shape.as_list() == [None, None, None, 3]
        assert outs[2].shape.as_list() == [None, None, None]
        gif4, img4, first, single, bmp4, bmpf = _run(outs)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Got 3 frames, but animated gifs can only be decoded"):
                sess.run(tf.image.decode_png(anim))
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Trying to decode BMP format using a wrong op"):
                sess.run(tf.image.decode_jpeg(bmp))
    np.testing.assert_array_equal(gif4, np.stack(frames))
    np.testing.assert_array_equal(img4, gif4)
    np.testing.assert_array_equal(first, frames[0])
    np.testing.assert_array_equal(single, frames[0])
    np.testing.assert_array_equal(bmp4[..., :3], frames[2])
    assert np.all(bmp4[..., 3] == 255)
    np.testing.assert_allclose(bmpf, frames[2] / 255.0, rtol=1e-6)


def test_palette_transparency_and_low_bit_depth_pngs():
    pal = Image.new("P", (3, 2))
    pal.putpalette([255, 0, 0, 0, 255, 0] + [0] * 762)
    pal.putdata([0, 1, 0, 1, 0, 1])
    buf = io.BytesIO()
    pal.save(buf, "PNG", transparency=1)
    bits = Image.fromarray(np.array([[0, 255, 0, 255]], np.uint8)).convert("1")
    buf1 = io.BytesIO()
    bits.save(buf1, "PNG")
    with tf.Graph().as_default():
        rgba, mono = _run([tf.image.decode_png(buf.getvalue()),
                           tf.image.decode_png(buf1.getvalue(), channels=3)])
    assert rgba.shape == (2, 3, 4)
    np.testing.assert_array_equal(rgba[0, 0], [255, 0, 0, 255])
    np.testing.assert_array_equal(rgba[0, 1], [0, 255, 0, 0])
    np.testing.assert_array_equal(mono[0, :, 0], [0, 255, 0, 255])


def _filtered_png16(image, interlace):
    """A 16-bit PNG using every row filter (and Adam7 when asked), written plainly."""
    height, width, channels = image.shape
    bpp = 2 * channels
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
              (1, 0, 2, 2), (0, 1, 1, 2)] if interlace else [(0, 0, 1, 1)]
    out = bytearray()
    row_no = 0
    for x0, y0, dx, dy in passes:
        sub = image[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        raw = sub.astype(">u2").view(np.uint8).reshape(sub.shape[0], -1).astype(np.int32)
        prev = np.zeros(raw.shape[1], np.int32)
        for line in raw:
            kind = row_no % 5
            row_no += 1
            left = np.concatenate([np.zeros(bpp, np.int32), line[:-bpp]])
            up_left = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
            if kind == 1:
                pred = left
            elif kind == 2:
                pred = prev
            elif kind == 3:
                pred = (left + prev) >> 1
            elif kind == 4:
                p = left + prev - up_left
                pa, pb, pc = abs(p - left), abs(p - prev), abs(p - up_left)
                pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev,
                                                                        up_left))
            else:
                pred = 0
            out.append(kind)
            out += ((line - pred) & 0xFF).astype(np.uint8).tobytes()
            prev = line

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    header = struct.pack(">IIBBBBB", width, height, 16, ctype, 0, 0, int(interlace))
    return png16.SIGNATURE + chunk(b"IHDR", header) + chunk(
        b"IDAT", zlib.compress(bytes(out))) + chunk(b"IEND", b"")


@pytest.mark.parametrize("channels", [2, 3, 4])
@pytest.mark.parametrize("interlace", [False, True])
def test_png16_reader_handles_filters_and_interlacing(channels, interlace):
    image = np.random.RandomState(channels).randint(0, 65536, (9, 11, channels)).astype(
        np.uint16)
    data = _filtered_png16(image, interlace)
    np.testing.assert_array_equal(png16.decode(data), image)
    bad = bytearray(data)
    bad[40] ^= 0xFF
    with pytest.raises(png16.PngError):
        png16.decode(bytes(bad))


def test_jpeg_quality_functions():
    ramp = np.linspace(0, 1, 16, dtype=np.float32)
    img = np.stack([np.add.outer(ramp, ramp) / 2, np.outer(ramp, ramp),
                    np.tile(ramp, (16, 1))], axis=-1)
    with tf.Graph().as_default():
        fixed = tf.image.adjust_jpeg_quality(img, 90)
        rand = tf.image.random_jpeg_quality(img, 50, 90, seed=4)
        a, b = _run([fixed, rand])
        with pytest.raises(ValueError, match="must be less than"):
            tf.image.random_jpeg_quality(img, 90, 50)
    assert a.dtype == np.float32 and a.shape == img.shape
    assert np.abs(a - img).mean() < 0.02 and np.abs(b - img).mean() < 0.05


@pytest.mark.parametrize("build,message", [
    (lambda: tf.image.decode_png(b"garbage"), "Unknown image file format"),
    (lambda: tf.image.decode_png(b"\x89PNG\r\n\x1a\n" + b"\0" * 40), "Invalid PNG data"),
    (lambda: tf.image.decode_png(tf.image.encode_png(np.zeros((2, 2, 3), np.uint8)),
                                 channels=2), "`channels` must be 0, 1, 3 or 4 but got 2"),
    (lambda: tf.image.encode_png(np.zeros((2, 2, 5), np.uint8)),
     "image must have 1, 2, 3, or 4 channels, got 5"),
    (lambda: tf.image.encode_jpeg(np.zeros((2, 2, 2), np.uint8)),
     "image must have 1 or 3 channels, got [2,2,2]"),
    (lambda: tf.image.encode_jpeg(np.zeros((2, 2, 3), np.uint8), format="grayscale"),
     "format grayscale expects 1 channels, got [2,2,3]"),
    (lambda: tf.image.decode_jpeg(tf.image.encode_jpeg(np.zeros((2, 2, 3), np.uint8)),
                                  ratio=3), "ratio must be 1, 2, 4, or 8, got 3"),
])
def test_runtime_errors(build, message):
    with tf.Graph().as_default():
        op = build()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(op)
    assert message in str(info.value)


def test_batched_contents_fed_at_run_time_are_refused():
    with tf.Graph().as_default():
        contents = tf.placeholder(tf.string)
        image = tf.image.decode_png(contents)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"contents must be scalar, got shape \[2\]"):
                sess.run(image, {contents: [b"a", b"b"]})


def test_static_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.image.decode_png([b"a", b"b"])
        with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
            tf.image.encode_jpeg(np.zeros((2, 2), np.uint8))
