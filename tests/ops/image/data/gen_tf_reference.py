"""Writes tf_reference.json: small inputs and TensorFlow 2.21's outputs for the tf.image
resize, colour, dtype and codec ops. Run with a TensorFlow python:

    /path/to/tf/python tests/ops/image/data/gen_tf_reference.py

Not a test; the tests read the JSON it wrote.
"""
import hashlib
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_image_ops  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_reference.json")


def arr(x):
    x = np.asarray(x)
    return {"dtype": str(x.dtype), "shape": list(x.shape), "value": x.reshape(-1).tolist()}


def main():
    ref = {"tensorflow": tf.__version__}
    image = ((np.arange(24, dtype=np.float64) ** 1.5) % 17).astype(np.float32).reshape(1, 3, 4, 2)
    ref["resize_input"] = arr(image)
    resize = {}
    for name, fn in [("bilinear", gen_image_ops.resize_bilinear),
                     ("nearest", gen_image_ops.resize_nearest_neighbor),
                     ("bicubic", gen_image_ops.resize_bicubic)]:
        for size in [(2, 3), (5, 7)]:
            for ac, hpc in [(False, False), (True, False), (False, True)]:
                out = fn(image, size, align_corners=ac, half_pixel_centers=hpc)
                resize[f"{name}/{size[0]}x{size[1]}/{int(ac)}{int(hpc)}"] = arr(out)
    for size in [(2, 3), (5, 7)]:
        for ac in (False, True):
            out = gen_image_ops.resize_area(image, size, align_corners=ac)
            resize[f"area/{size[0]}x{size[1]}/{int(ac)}0"] = arr(out)
    ref["resize"] = resize
    rng = np.random.RandomState(7)
    grads = {}
    for size in [(2, 3), (5, 7)]:
        g = rng.uniform(-1, 1, size=(1,) + size + (2,)).astype(np.float32)
        for ac, hpc in [(False, False), (True, False), (False, True)]:
            key = f"{size[0]}x{size[1]}/{int(ac)}{int(hpc)}"
            grads[key] = {
                "grads": arr(g),
                "bilinear": arr(gen_image_ops.resize_bilinear_grad(g, image, ac, hpc)),
                "bicubic": arr(gen_image_ops.resize_bicubic_grad(g, image, ac, hpc)),
                "nearest": arr(gen_image_ops.resize_nearest_neighbor_grad(g, [3, 4], ac, hpc)),
            }
    ref["resize_grads"] = grads
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.0, 1.3, 0.5], [0.5, 0.5, 0.5, 0.5],
                      [0.9, 0.8, 0.1, 0.2]], np.float32)
    batch = np.concatenate([image, image[:, ::-1] * 0.5], axis=0)
    ref["crop_and_resize"] = {"image": arr(batch), "boxes": arr(boxes),
                              "box_ind": [0, 1, 0, 1]}
    for method in ("bilinear", "nearest"):
        for crop in [(3, 2), (1, 1)]:
            out = tf.image.crop_and_resize(batch, boxes, [0, 1, 0, 1], crop, method=method,
                                           extrapolation_value=-1.0)
            ref["crop_and_resize"][f"{method}/{crop[0]}x{crop[1]}"] = arr(out)
    rgb = rng.uniform(0, 1, size=(2, 3, 3)).astype(np.float32)
    rgb[0, 0] = [0.5, 0.5, 0.5]
    rgb[0, 1] = [0.2, 0.2, 0.7]
    rgb[0, 2] = [0.7, 0.7, 0.2]
    rgb[1, 0] = [0.3, 0.6, 0.6]
    rgb[1, 1] = [0.0, 0.0, 0.0]
    color = {"rgb": arr(rgb),
             "rgb_to_hsv": arr(gen_image_ops.rgb_to_hsv(rgb)),
             "hsv_to_rgb": arr(gen_image_ops.hsv_to_rgb(rgb)),
             "rgb_to_grayscale": arr(tf.image.rgb_to_grayscale(rgb)),
             "per_image_standardization": arr(tf.image.per_image_standardization(rgb))}
    for d in (0.1, -0.37, 0.5):
        color[f"adjust_hue/{d}"] = arr(gen_image_ops.adjust_hue(rgb, d))
    for s in (0.0, 0.5, 1.7):
        color[f"adjust_saturation/{s}"] = arr(gen_image_ops.adjust_saturation(rgb, s))
    for c in (0.2, 2.5, -1.0):
        color[f"adjust_contrast/{c}"] = arr(gen_image_ops.adjust_contrastv2(rgb, c))
    rgb8 = (rgb * 255).astype(np.uint8)
    color["rgb8"] = arr(rgb8)
    color["adjust_contrast_uint8/1.8"] = arr(tf.image.adjust_contrast(rgb8, 1.8))
    color["adjust_brightness_uint8/0.2"] = arr(tf.image.adjust_brightness(rgb8, 0.2))
    color["adjust_hue_uint8/0.3"] = arr(tf.image.adjust_hue(rgb8, 0.3))
    color["adjust_saturation_uint8/1.5"] = arr(tf.image.adjust_saturation(rgb8, 1.5))
    color["adjust_gamma_uint8/0.5"] = arr(tf.image.adjust_gamma(rgb8, 0.5, 1.2))
    color["rgb_to_grayscale_uint8"] = arr(tf.image.rgb_to_grayscale(rgb8))
    color["per_image_standardization_uint8"] = arr(tf.image.per_image_standardization(rgb8))
    ref["color"] = color
    conv = {}
    f = np.array([-0.2, 0.0, 0.1, 0.5, 0.999, 1.0, 1.3], np.float32)
    ints = {"uint8": np.array([0, 1, 127, 128, 255], np.uint8),
            "uint16": np.array([0, 1, 255, 256, 32767, 65535], np.uint16),
            "int8": np.array([-128, -1, 0, 1, 127], np.int8),
            "int16": np.array([-32768, -1, 0, 255, 32767], np.int16),
            "int32": np.array([-2 ** 31, -1, 0, 65535, 2 ** 31 - 1], np.int32)}
    for name, values in list(ints.items()) + [("float32", f)]:
        for target in ("uint8", "uint16", "int8", "int16", "int32", "float32", "float64"):
            for sat in (False, True):
                if name == target:
                    continue
                out = tf.image.convert_image_dtype(values, tf.as_dtype(target), saturate=sat)
                conv[f"{name}/{target}/{int(sat)}"] = {"input": arr(values), "output": arr(out)}
    ref["convert_image_dtype"] = conv
    pixels = rng.randint(0, 256, size=(8, 8, 3)).astype(np.uint8)
    pixels[:, :4] //= 4
    jpeg = tf.io.encode_jpeg(pixels).numpy()
    codec = {"pixels": arr(pixels), "jpeg_hex": jpeg.hex(),
             "jpeg_sha256": hashlib.sha256(jpeg).hexdigest(),
             "jpeg_decoded_accurate": arr(tf.io.decode_jpeg(
                 jpeg, dct_method="INTEGER_ACCURATE")),
             "jpeg_decoded_gray_accurate": arr(tf.io.decode_jpeg(
                 jpeg, channels=1, dct_method="INTEGER_ACCURATE")),
             "jpeg_decoded_ratio2_accurate": arr(tf.io.decode_jpeg(
                 jpeg, ratio=2, dct_method="INTEGER_ACCURATE")),
             "jpeg_decoded_default": arr(tf.io.decode_jpeg(jpeg))}
    for kw in [dict(quality=50), dict(chroma_downsampling=False), dict(progressive=True),
               dict(optimize_size=True), dict(density_unit="cm", x_density=72, y_density=96),
               dict(xmp_metadata="<x:xmpmeta/>")]:
        key = ",".join(f"{k}={v}" for k, v in sorted(kw.items()))
        codec[f"jpeg_sha256/{key}"] = hashlib.sha256(
            tf.io.encode_jpeg(pixels, **kw).numpy()).hexdigest()
    codec["jpeg_sha256/format=grayscale"] = hashlib.sha256(
        tf.io.encode_jpeg(pixels[..., :1], format="grayscale").numpy()).hexdigest()
    png16 = rng.randint(0, 65536, size=(3, 4, 3)).astype(np.uint16)
    codec["png16_pixels"] = arr(png16)
    codec["png16_hex"] = tf.io.encode_png(png16).numpy().hex()
    png8 = rng.randint(0, 256, size=(3, 4, 4)).astype(np.uint8)
    codec["png8_pixels"] = arr(png8)
    codec["png8_hex"] = tf.io.encode_png(png8).numpy().hex()
    for c in (1, 3, 4):
        codec[f"png8_decoded/channels={c}"] = arr(tf.io.decode_png(bytes.fromhex(
            codec["png8_hex"]), channels=c))
        codec[f"png16_decoded/channels={c}"] = arr(tf.io.decode_png(bytes.fromhex(
            codec["png16_hex"]), channels=c, dtype=tf.uint16))
    codec["png16_as_uint8"] = arr(tf.io.decode_png(bytes.fromhex(codec["png16_hex"])))
    codec["png8_as_uint16"] = arr(tf.io.decode_png(bytes.fromhex(codec["png8_hex"]),
                                                   dtype=tf.uint16))
    codec["png16_decode_image_float"] = arr(tf.io.decode_image(bytes.fromhex(
        codec["png16_hex"]), dtype=tf.float32))
    ref["codec"] = codec
    with open(OUT, "w") as f:
        json.dump(ref, f, sort_keys=True)


if __name__ == "__main__":
    main()
