"""Activations of tf.nn: values and gradients recorded from TensorFlow 2.21, op names
and attrs as TensorFlow builds them, dtype rules and errors."""
import ml_dtypes
import numpy as np
import pytest

import trainflow.compat.v1 as tf

X = np.array([[-1.5, -0.4, 0.3], [0.9, 2.2, 7.1]], np.float32)
W = np.array([[0.3, -1.2, 0.7], [1.1, 0.5, -0.8]], np.float32)

# (forward value, gradient of sum(y * W)) from tf.compat.v1 on TensorFlow 2.21.
TF_VALUES = {
    "relu6": ([[0, 0, 0.3], [0.9, 2.2, 6]], [[0, 0, 0.7], [1.1, 0.5, 0]]),
    "elu": ([[-0.7768698, -0.32968, 0.3], [0.9, 2.2, 7.1]],
            [[0.06693906, -0.8043841, 0.7], [1.1, 0.5, -0.8]]),
    "selu": ([[-1.365814, -0.5796101, 0.3152103], [0.9456309, 2.311542, 7.459977]],
             [[0.1176855, -1.414187, 0.7354907], [1.155771, 0.5253505, -0.8405609]]),
    "leaky_relu": ([[-0.45, -0.12, 0.3], [0.9, 2.2, 7.1]],
                   [[0.09, -0.36, 0.7], [1.1, 0.5, -0.8]]),
    "softplus": ([[0.2014133, 0.5130153, 0.8543553], [1.241154, 2.305083, 7.100825]],
                 [[0.05472765, -0.4815748, 0.4021098], [0.7820445, 0.4501248, -0.7993404]]),
    "softsign": ([[-0.6, -0.2857143, 0.2307692], [0.4736842, 0.6875, 0.8765432]],
                 [[0.048, -0.612245, 0.4142012], [0.3047092, 0.04882812, -0.01219326]]),
    "softmax": ([[0.09946475, 0.2988086, 0.6017267], [0.002010381, 0.007376683, 0.9906129]],
                [[0.02064115, -0.3862035, 0.3655623], [0.003792765, 0.009490771, -0.01328362]]),
    "log_softmax": ([[-2.307952, -1.207952, -0.507952], [-6.209431, -4.909431, -0.00943145]],
                    [[0.319893, -1.140238, 0.8203453], [1.098392, 0.4940987, -1.59249]]),
    "softmax_axis0": ([[0.08317269, 0.06913841, 0.001112536], [0.9168273, 0.9308616, 0.9988875]],
                      [[-0.061004, -0.1094091, 0.001666948],
                       [0.06100394, 0.1094091, -0.001666954]]),
}
FUNCTIONS = {
    "relu6": tf.nn.relu6, "elu": tf.nn.elu, "selu": tf.nn.selu,
    "leaky_relu": lambda x: tf.nn.leaky_relu(x, alpha=0.3), "softplus": tf.nn.softplus,
    "softsign": tf.nn.softsign, "softmax": tf.nn.softmax, "log_softmax": tf.nn.log_softmax,
    "softmax_axis0": lambda x: tf.nn.softmax(x, axis=0),
}


@pytest.mark.parametrize("name", sorted(TF_VALUES))
def test_values_and_gradients_match_tensorflow(name):
    value, grad = TF_VALUES[name]
    with tf.Graph().as_default():
        x = tf.constant(X)
        y = FUNCTIONS[name](x)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y), value, rtol=2e-6, atol=1e-6)
            dx = tf.gradients(y, x, grad_ys=tf.constant(W))[0]
            np.testing.assert_allclose(sess.run(dx), grad, rtol=2e-6, atol=1e-6)


def test_op_types_and_names_follow_tensorflow():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        assert tf.nn.relu(x).name == "Relu:0"
        assert tf.nn.relu6(x).name == "Relu6:0"
        assert tf.nn.elu(x).name == "Elu:0"
        assert tf.nn.selu(x).name == "Selu:0"
        leaky = tf.nn.leaky_relu(x)
        assert leaky.name == "LeakyRelu:0"
        assert leaky.op.get_attr("alpha") == pytest.approx(0.2)
        assert tf.nn.softplus(x).name == "Softplus:0"
        assert tf.nn.softsign(x).name == "Softsign:0"
        assert tf.nn.relu(x, name="act").name == "act:0"
        c = tf.nn.crelu(x)
        assert c.name == "CRelu/Relu:0"
        assert c.shape.as_list() == [2, 6]
        assert g.get_operation_by_name("CRelu").type == "ConcatV2"
        assert g.get_operation_by_name("CRelu/Neg").type == "Neg"


def test_relu_keeps_integer_dtypes():
    with tf.Graph().as_default():
        y = tf.nn.relu(tf.constant([-1, 2], dtype=tf.int64))
        y6 = tf.nn.relu6(tf.constant([-1, 7, 3], dtype=tf.int32))
        with tf.Session() as sess:
            a, b = sess.run([y, y6])
    assert a.dtype == np.int64 and a.tolist() == [0, 2]
    assert b.dtype == np.int32 and b.tolist() == [0, 6, 3]


def test_leaky_relu_casts_integers_to_float32():
    with tf.Graph().as_default():
        y = tf.nn.leaky_relu(tf.constant([-1, 2]))
        assert y.dtype == tf.float32
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y), [-0.2, 2.0], rtol=1e-6)


def test_float_only_activations_reject_integers_with_tensorflows_message():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Value passed to parameter 'features' has DataType "
                                            "int32 not in list of allowed values: float16, "
                                            "bfloat16, float32, float64"):
            tf.nn.elu(tf.constant([-1, 2]))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("fn", [tf.nn.relu, tf.nn.elu, tf.nn.selu, tf.nn.softplus,
                                tf.nn.softsign, tf.nn.softmax, tf.nn.log_softmax])
def test_low_precision_inputs_keep_their_dtype(fn, dtype):
    with tf.Graph().as_default():
        y = fn(tf.constant(X.astype(dtype)))
        with tf.Session() as sess:
            out = sess.run(y)
    assert out.dtype == np.dtype(dtype)
    with tf.Graph().as_default():
        want = tf.Session().run(fn(tf.constant(X)))
    np.testing.assert_allclose(out.astype(np.float32), want, rtol=2e-2, atol=2e-2)


def test_softplus_is_stable_for_large_magnitudes():
    with tf.Graph().as_default():
        y = tf.nn.softplus(tf.constant([-100.0, -20.0, 0.0, 20.0, 100.0]))
        with tf.Session() as sess:
            out = sess.run(y)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [0.0, 2.0611537e-09, 0.6931472, 20.0, 100.0], rtol=1e-6,
                               atol=1e-38)


def test_grad_ops_are_differentiable_twice():
    """Second derivatives go through the Grad ops' own gradients."""
    with tf.Graph().as_default():
        x = tf.constant([[-1.5, 0.5, 2.0]], dtype=tf.float64)
        y = tf.nn.softplus(x)
        (dx,) = tf.gradients(y, x)
        (d2x,) = tf.gradients(dx, x)
        with tf.Session() as sess:
            got = sess.run(d2x)
    s = 1 / (1 + np.exp(-np.array([[-1.5, 0.5, 2.0]])))
    np.testing.assert_allclose(got, s * (1 - s), rtol=1e-10)
