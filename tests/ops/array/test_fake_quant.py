"""FakeQuant ops: errors, shapes and names (values and gradients against TensorFlow
are in test_fake_quant_tf_interop.py)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.mark.parametrize("build,match", [
    (lambda x: tf.fake_quant_with_min_max_args(x, min=1.0, max=1.0), "min has to be smaller"),
    (lambda x: tf.fake_quant_with_min_max_args(x, num_bits=1), "num_bits"),
    (lambda x: tf.fake_quant_with_min_max_args_gradient(x, x, min=2.0, max=-1.0),
     "min has to be smaller"),
    (lambda x: tf.fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=17), "num_bits"),
    (lambda x: tf.fake_quant_with_min_max_vars_per_channel(
        x, tf.placeholder(tf.float32, [None]), [1.0, 1.0, 1.0]),
     "min has incorrect size"),
])
def test_runtime_errors_are_invalid_argument(build, match):
    with tf.Graph().as_default():
        x = tf.constant([[0.5, -0.5, 1.5]])
        y = build(x)
        y = y[0] if isinstance(y, tuple) else y
        feed = {t: [0.0, 1.0] for t in [op.outputs[0] for op in
                                         tf.get_default_graph().get_operations()
                                         if op.type == "Placeholder"]}
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=match):
                sess.run(y, feed)


@pytest.mark.parametrize("shape,channels", [([3], [4]), ([2, 3, 4, 5, 3], [3]),
                                             ([2, 3], [2, 3])])
def test_per_channel_shape_errors(shape, channels):
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.fake_quant_with_min_max_vars_per_channel(tf.zeros(shape), tf.zeros(channels),
                                                        tf.ones(channels))


def test_shapes_names_and_gradient_ops():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        lo, hi = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
        y = tf.fake_quant_with_min_max_vars_per_channel(x, lo, hi)
        assert y.shape.as_list() == [None, 4] and y.op.type == \
            "FakeQuantWithMinMaxVarsPerChannel"
        grads = tf.fake_quant_with_min_max_vars_per_channel_gradient(y, x, lo, hi)
        assert [g.shape.as_list() for g in grads] == [[None, 4], [4], [4]]
        a = tf.fake_quant_with_min_max_args(x, name="fq")
        assert a.op.name == "fq" and a.op.get_attr("min") == -6.0
        assert tf.gradients(a, x)[0].op.type == "FakeQuantWithMinMaxArgsGradient"
        assert tf.gradients(y, [x, lo, hi])[2].op.type == \
            "FakeQuantWithMinMaxVarsPerChannelGradient"
        assert tf.gradients(tf.gradients(a, x)[0], x) == [None]  # not differentiable, as TF
        with tf.Session() as sess:
            out = sess.run(a, {x: np.array([[-7.0, 0.0, 3.01, 7.0]], np.float32)})
    np.testing.assert_allclose(out, [[-6.0235295, 0.0, 3.0117648, 5.9764705]], rtol=1e-6)
