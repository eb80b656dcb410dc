"""tf.layers pooling (1-D and 2-D, max and average) and flatten against TensorFlow."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_pooling_and_flatten_match_tf(layers_ref):
    ref = layers_ref["pool"]
    L = tf.layers
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 5, 5, 2], name="x")
        xt = tf.placeholder(tf.float32, [None, 2, 5, 5], name="xt")
        x1 = tf.placeholder(tf.float32, [None, 7, 3], name="x1")
        outs = {"p1": L.max_pooling2d(x, 2, 2),
                "p2": L.average_pooling2d(x, (3, 2), (1, 2), padding="same"),
                "p3": L.max_pooling2d(xt, 2, 1, data_format="channels_first"),
                "p4": L.average_pooling2d(xt, 2, 2, padding="same",
                                          data_format="channels_first"),
                "p5": L.max_pooling1d(x1, 2, 2),
                "p6": L.average_pooling1d(x1, 3, 2, padding="same"),
                "f1": L.flatten(x),
                "f2": L.flatten(xt, data_format="channels_first")}
        # The graph below x1 differs from TF's only in the order of placeholders.
        assert sorted(map(tuple, [[o.name, o.type] for o in g.get_operations()])) == \
            sorted(map(tuple, ref["nodes"]))
        assert {k: v.shape.as_list() for k, v in outs.items()} == ref["shapes"]
        inputs = ref["inputs"]
        with tf.Session() as sess:
            got = sess.run(outs, {x: inputs["x"], xt: inputs["xt"], x1: inputs["x1"]})
    for key, want in ref["values"].items():
        np.testing.assert_allclose(got[key], want, rtol=1e-6, atol=1e-6, err_msg=key)
    # TF's CPU kernels refuse NCHW pooling: compare with the channels-last results.
    xt_data = np.asarray(inputs["xt"], np.float32)
    with tf.Graph().as_default():
        xl = tf.constant(xt_data.transpose(0, 2, 3, 1))
        p3 = tf.layers.max_pooling2d(xl, 2, 1)
        p4 = tf.layers.average_pooling2d(xl, 2, 2, padding="same")
        with tf.Session() as sess:
            want3, want4 = sess.run([p3, p4])
    np.testing.assert_allclose(got["p3"].transpose(0, 2, 3, 1), want3, rtol=1e-6)
    np.testing.assert_allclose(got["p4"].transpose(0, 2, 3, 1), want4, rtol=1e-6)


def test_pooling_classes_defaults_and_1d_channels_first():
    with tf.Graph().as_default():
        layer = tf.layers.MaxPooling2D(3)
        assert layer.strides == (3, 3) and layer.name == "max_pooling2d"
        assert layer(tf.zeros([1, 7, 7, 2])).shape.as_list() == [1, 2, 2, 2]
        data = np.arange(2 * 3 * 6, dtype=np.float32).reshape(2, 3, 6)
        out = tf.layers.AveragePooling1D(2, 2, data_format="channels_first")(tf.constant(data))
        assert out.shape.as_list() == [2, 3, 3]
        with tf.Session() as sess:
            got = sess.run(out)
    np.testing.assert_allclose(got, data.reshape(2, 3, 3, 2).mean(-1))


def test_pooling_rejects_bad_rank():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
            tf.layers.max_pooling2d(tf.zeros([1, 4, 4]), 2, 2)
