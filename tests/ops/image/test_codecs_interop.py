"""TensorFlow decodes the PNGs and JPEGs we write, and imports an image graph we build.

Runs TF in a subprocess through $TRAINFLOW_TF_PYTHON; skipped when unset.
"""
import json

import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

_DECODE = r'''
import json, sys
import numpy as np
import tensorflow as tf
files = json.loads(sys.argv[1])
out = {}
for name, path in files.items():
    data = open(path, "rb").read()
    dtype = tf.uint16 if "uint16" in name else tf.uint8
    if name.endswith(".pb"):
        tf.compat.v1.disable_eager_execution()
        graph_def = tf.compat.v1.GraphDef.FromString(data)
        with tf.Graph().as_default() as g:
            tf.import_graph_def(graph_def, name="")
            with tf.compat.v1.Session(graph=g) as sess:
                out[name] = sess.run("resized:0").tolist()
        continue
    image = tf.io.decode_image(data, dtype=dtype, expand_animations=False).numpy()
    out[name] = image.tolist()
print(json.dumps(out))
'''


def test_tensorflow_reads_our_images(tmp_path):
    rng = np.random.RandomState(0)
    images, files = {}, {}
    with tf.Graph().as_default():
        encoded = {}
        for dtype in (np.uint8, np.uint16):
            for c in (1, 2, 3, 4):
                name = f"{dtype.__name__}_{c}.png"
                images[name] = rng.randint(0, np.iinfo(dtype).max + 1, (5, 6, c)).astype(dtype)
                encoded[name] = tf.image.encode_png(images[name])
        ramp = np.linspace(0, 255, 8).astype(np.uint8)
        images["smooth.jpg"] = np.stack([np.add.outer(ramp, ramp) // 2] * 3, axis=-1)
        encoded["smooth.jpg"] = tf.image.encode_jpeg(images["smooth.jpg"])
        with tf.Session() as sess:
            blobs = sess.run(encoded)
    with tf.Graph().as_default() as g:
        x = tf.constant(rng.uniform(0, 1, (1, 4, 5, 2)).astype(np.float32))
        tf.identity(tf.image.resize_bilinear(x, [7, 3]), name="resized")
        with tf.Session() as sess:
            ours = sess.run("resized:0")
        blobs["graph.pb"] = g.as_graph_def().SerializeToString()
    for name, blob in blobs.items():
        path = tmp_path / name
        path.write_bytes(blob)
        files[name] = str(path)
    decoded = run_json(_DECODE, json.dumps(files))
    for name, image in images.items():
        got = np.array(decoded[name])
        if name.endswith(".png"):
            np.testing.assert_array_equal(got, image, err_msg=name)
        else:
            assert np.abs(got.astype(int) - image.astype(int)).max() <= 8
    np.testing.assert_array_equal(np.array(decoded["graph.pb"], np.float32), ours)


_BUILD_TF_GRAPH = r'''
import json, sys
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
with tf.Graph().as_default() as g:
    x = tf1.placeholder(tf.uint8, [None, None, 3], name="x")
    f = tf1.image.convert_image_dtype(x, tf.float32)
    r = tf1.image.resize_images(f, [5, 6])
    h = tf1.image.adjust_hue(r, 0.2)
    c = tf1.image.crop_and_resize(tf.expand_dims(h, 0), [[0.1, 0.1, 0.9, 0.9]], [0], [3, 3],
                                  method="nearest", extrapolation_value=0.5)
    png = tf.io.encode_png(tf1.image.convert_image_dtype(c[0], tf.uint8))
    tf.identity(tf.io.decode_png(png), name="out")
    image = np.random.RandomState(0).randint(0, 256, (7, 9, 3)).astype(np.uint8)
    with tf1.Session() as sess:
        out = sess.run("out:0", {x: image})
open(sys.argv[1], "wb").write(g.as_graph_def().SerializeToString())
print(json.dumps({"input": image.tolist(), "output": out.tolist()}))
'''


def test_we_run_an_image_graph_built_by_tensorflow(tmp_path):
    path = tmp_path / "graph.pb"
    data = run_json(_BUILD_TF_GRAPH, str(path))
    graph_def = tf.GraphDef.FromString(path.read_bytes())
    import trainflow.image  # noqa: F401 - registers the image op types
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            out = sess.run("out:0", {"x:0": np.array(data["input"], np.uint8)})
    np.testing.assert_array_equal(out, np.array(data["output"], np.uint8))
