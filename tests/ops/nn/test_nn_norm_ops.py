"""Normalisation in tf.nn: moments, weighted moments, batch_normalization, l2 norms and
the fused batch norm ops, against TensorFlow 2.21's numbers and NumPy."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

X = np.array([[-1.5, -0.4, 0.3], [0.9, 2.2, 7.1]], np.float32)
W = np.array([[0.3, -1.2, 0.7], [1.1, 0.5, -0.8]], np.float32)
BN_X = (np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) ** 1.5) / 10
BN_W = np.cos(np.arange(24, dtype=np.float32)).reshape(2, 2, 2, 3)

# tf.nn.fused_batch_norm(BN_X, [1, 2, 3], [0, 1, 0], epsilon=0.01) in TensorFlow 2.21, with
# the gradients of sum(y * BN_W) (flattened NHWC values; NCHW gives the same numbers).
TF_FUSED_BN = {
    True: {
        "y": [-1.228026, -1.542022, -3.900714, -1.068081, -1.132989, -3.201446, -0.7756313,
              -0.5182545, -2.243033, -0.3969235, 0.2473696, -1.082978, 0.05154016, 1.138443,
              0.2482854, 0.5602222, 2.13928, 1.73103, 1.122687, 3.238942, 3.351112, 1.734212,
              4.429233, 5.097744],
        "mean": [3.989484, 4.450293, 4.941773],
        "variance": [12.05031, 13.37702, 14.66157],
        "dx": [0.2439009, 0.21062, -0.3264661, -0.3616077, -0.4670762, 0.2655868, 0.2515605,
               0.3854078, -0.08532404, -0.3077802, -0.5080472, 0.05037838, 0.2521786, 0.555999,
               0.1728351, -0.2190187, -0.4849905, -0.1590237, 0.2428478, 0.7060143, 0.4272389,
               -0.1020813, -0.397927, -0.3452252],
        "dscale": [-1.144374, -1.336605, -0.2514583],
        "doffset": [0.255801, -0.2599795, -0.5367361],
    },
    False: {  # with mean [1, 2, 3] and variance [4, 5, 6]
        "y": [-0.4993762, -0.6977148, -3.325055, -0.2398927, -0.07224095, -2.30301, 0.2345539,
              0.8677801, -0.902202, 0.8489395, 2.038535, 0.7933257, 1.576492, 3.40112, 2.73909,
              2.401737, 4.93155, 4.906258, 3.314236, 6.613099, 7.274158, 4.306325, 8.433233,
              9.827022],
        "mean": [1, 2, 3],
        "variance": [4, 5, 6],
        "dx": [0.4993762, 0.4827785, -0.5092495, -0.4943787, -0.5840529, 0.3471246, 0.4794862,
               0.6736374, -0.1780521, -0.4549967, -0.7497391, 0.00541584, 0.4214005, 0.8108347,
               0.1673288, -0.37937, -0.8557014, -0.3367244, 0.3297464, 0.8834413, 0.4993805,
               -0.2735229, -0.8934991, -0.6520414],
        "dscale": [-1.474663, -2.328472, -0.7926599],
        "doffset": [0.255801, -0.2599795, -0.5367361],
    },
}


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_batch_norm_matches_tensorflow(training, fmt):
    want = TF_FUSED_BN[training]
    to_fmt = (lambda a: a.transpose(0, 3, 1, 2)) if fmt == "NCHW" else (lambda a: a)
    from_fmt = (lambda a: a.transpose(0, 2, 3, 1)) if fmt == "NCHW" else (lambda a: a)
    with tf.Graph().as_default():
        x = tf.constant(to_fmt(BN_X))
        scale, offset = tf.constant([1.0, 2.0, 3.0]), tf.constant([0.0, 1.0, 0.0])
        stats = {} if training else {"mean": [1.0, 2.0, 3.0], "variance": [4.0, 5.0, 6.0]}
        y, mean, variance = tf.nn.fused_batch_norm(x, scale, offset, epsilon=0.01,
                                                   data_format=fmt, is_training=training,
                                                   **stats)
        assert y.op.type == "FusedBatchNormV3" and y.shape == x.shape
        assert mean.shape.as_list() == [3]
        grads = tf.gradients(y, [x, scale, offset], grad_ys=tf.constant(to_fmt(BN_W)))
        with tf.Session() as sess:
            got = sess.run({"y": y, "mean": mean, "variance": variance, "dx": grads[0],
                            "dscale": grads[1], "doffset": grads[2]})
    got["y"], got["dx"] = from_fmt(got["y"]), from_fmt(got["dx"])
    for key, value in want.items():
        np.testing.assert_allclose(got[key].reshape(-1), value, rtol=1e-5, atol=2e-6,
                                   err_msg=key)


def test_fused_batch_norm_running_average_and_reserve_spaces():
    x = BN_X * 10
    with tf.Graph().as_default():
        op = apply_op("FusedBatchNormV3", x=x, scale=[1.0, 2.0, 3.0], offset=[0.0, 1.0, 0.0],
                      mean=[1.0, 1.0, 1.0], variance=[2.0, 2.0, 2.0], epsilon=0.001,
                      exponential_avg_factor=0.5, is_training=True)
        with tf.Session() as sess:
            _, mean, var, r1, r2, r3 = sess.run(op.outputs)
    # TensorFlow 2.21's values: running stats average old and new; the reserve spaces
    # hold the batch mean and the biased batch variance.
    np.testing.assert_allclose(mean, [20.44742, 22.75146, 25.20887], rtol=1e-6)
    np.testing.assert_allclose(var, [603.5155, 669.851, 734.0785], rtol=1e-6)
    np.testing.assert_allclose(r1, [39.89484, 44.50293, 49.41774], rtol=1e-6)
    np.testing.assert_allclose(r2, [1054.402, 1170.489, 1282.887], rtol=1e-6)
    assert r3.shape == ()


def test_fused_batch_norm_grad_op_matches_tensorflow():
    x = np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3)
    with tf.Graph().as_default():
        outs = {}
        for training in (True, False):
            op = apply_op("FusedBatchNormGradV3", y_backprop=x ** 1.2, x=x ** 1.5,
                          scale=[1.0, 2.0, 3.0],
                          reserve_space_1=[39.89484, 44.50293, 49.41774] if training else
                          [39.8, 44.5, 49.4],
                          reserve_space_2=[1054.402, 1170.489, 1282.887] if training else
                          [1054.4, 1170.4, 1282.8],
                          reserve_space_3=[1.0, 1.0, 1.0], epsilon=0.001,
                          is_training=training)
            outs[training] = op.outputs
            assert [t.shape.as_list() for t in op.outputs] == [[2, 2, 2, 3], [3], [3], [0], [0]]
        with tf.Session() as sess:
            got = sess.run(outs)
    np.testing.assert_allclose(got[True][1], [102.2895, 105.0346, 107.3055], rtol=1e-5)
    np.testing.assert_allclose(got[True][2], [142.4898, 157.0895, 172.2552], rtol=1e-6)
    np.testing.assert_allclose(got[True][0][0, 0, 0], [-0.06473391, -0.11349998, -0.14970694],
                               rtol=2e-4)
    np.testing.assert_allclose(got[False][1], [102.7058, 105.052, 107.3945], rtol=1e-5)
    np.testing.assert_allclose(got[False][0][1, 1, 1], [1.1889411, 2.3865466, 3.606742],
                               rtol=1e-5)
    assert got[True][3].shape == (0,)


def test_fused_batch_norm_v1_and_v2_ops():
    with tf.Graph().as_default():
        v1 = apply_op("FusedBatchNorm", x=BN_X, scale=[1.0, 2.0, 3.0], offset=[0.0, 1.0, 0.0],
                      mean=np.zeros([0], np.float32), variance=np.zeros([0], np.float32),
                      epsilon=0.01)
        v2 = apply_op("FusedBatchNormV2", x=BN_X.astype(np.float16), scale=[1.0, 2.0, 3.0],
                      offset=[0.0, 1.0, 0.0], mean=np.zeros([0], np.float32),
                      variance=np.zeros([0], np.float32), epsilon=0.01)
        assert len(v1.outputs) == 5 and v2.outputs[0].dtype == tf.float16
        assert v2.outputs[1].dtype == tf.float32
        with tf.Session() as sess:
            y1, y2 = sess.run([v1.outputs[0], v2.outputs[0]])
    np.testing.assert_allclose(y1.reshape(-1), TF_FUSED_BN[True]["y"], rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(y2.reshape(-1), TF_FUSED_BN[True]["y"], rtol=1e-2, atol=1e-2)


def test_fused_batch_norm_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Both `mean` and `variance` must be a 1D tensor "
                                             "when `is_training` is False"):
            tf.nn.fused_batch_norm(tf.ones([2, 2, 2, 3]), tf.ones([3]), tf.zeros([3]),
                                   is_training=False)
        with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 2"):
            tf.nn.fused_batch_norm(tf.ones([2, 3]), tf.ones([3]), tf.zeros([3]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.nn.fused_batch_norm(tf.ones([2, 2, 2, 3]), tf.ones([4]), tf.zeros([3]))
        y = tf.nn.fused_batch_norm(tf.ones([1, 1, 1, 2]), [1.0, 1.0], [0.0, 0.0],
                                   epsilon=1e-9)[0]
        assert y.op.get_attr("epsilon") == pytest.approx(1.001e-5)


def test_moments_and_batch_normalization_match_tensorflow():
    with tf.Graph().as_default():
        x = tf.constant(X)
        mean0 = tf.nn.moments(x, axes=[0])[0]
        var1 = tf.nn.moments(x, axes=[1])[1]
        wvar = tf.nn.weighted_moments(x, axes=[1], frequency_weights=[[1.0, 2.0, 0.5]])[1]
        bn = tf.nn.batch_normalization(x, [0.1, 0.2, 0.3], [1.0, 2.0, 0.5], [0.0, 1.0, -1.0],
                                       [2.0, 1.0, 0.5], 1e-3)
        assert mean0.name == "moments/Squeeze:0" and bn.name == "batchnorm/add_1:0"
        with tf.Session() as sess:
            m, v, w, b = sess.run([mean0, var1, wvar, bn])
    np.testing.assert_allclose(m, [-0.3, 0.9, 3.7], rtol=1e-6)
    np.testing.assert_allclose(v, [0.5488889, 7.126667], rtol=1e-6)
    np.testing.assert_allclose(w, [0.3697959, 3.804898], rtol=1e-6)
    np.testing.assert_allclose(b, [[-3.198401, 0.5758419, -1], [1.599201, 2.41386, 3.803525]],
                               rtol=1e-6)


def test_moments_keep_dims_integers_and_half():
    with tf.Graph().as_default():
        kept = tf.nn.moments(tf.constant(X), axes=[0, 1], keep_dims=True)
        ints = tf.nn.moments(tf.constant([1, 2, 4]), axes=[0])
        half = tf.nn.moments(tf.constant([1, 2, 4], tf.float16), axes=[0])
        assert kept[0].shape.as_list() == [1, 1] and half[0].dtype == tf.float16
        with tf.Session() as sess:
            k, i, h = sess.run([kept, ints, half])
    np.testing.assert_allclose(k[1], [[X.var()]], rtol=1e-6)
    assert [int(i[0]), int(i[1])] == [2, 1]  # TensorFlow's integer results
    np.testing.assert_allclose([float(h[0]), float(h[1])], [2.333984375, 1.5556640625])


def test_sufficient_statistics_and_normalize_moments():
    with tf.Graph().as_default():
        x = tf.constant(X)
        count, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(x, [1], shift=0.5)
        mean, var = tf.nn.normalize_moments(count, mean_ss, var_ss, shift)
        c2, m2, v2, s2 = tf.nn.sufficient_statistics(x, [0], keep_dims=True)
        assert s2 is None
        with tf.Session() as sess:
            n, m, v, ss = sess.run([count, mean, var, m2])
    assert n == 3
    np.testing.assert_allclose(m, X.mean(1), rtol=1e-6)
    np.testing.assert_allclose(v, X.var(1), rtol=1e-5)
    np.testing.assert_allclose(ss, X.sum(0, keepdims=True), rtol=1e-6)


def test_l2_normalize_and_l2_loss():
    with tf.Graph().as_default():
        n = tf.nn.l2_normalize(tf.constant([[3.0, 4.0], [0.0, 0.0]]), axis=1)
        n_dim = tf.nn.l2_normalize(tf.constant([[3.0, 4.0], [0.0, 0.0]]), dim=0)
        loss = tf.nn.l2_loss(tf.constant(X))
        half = tf.nn.l2_loss(tf.constant([1.0, 2.0, 3.0], tf.float16))
        assert n.name == "l2_normalize:0" and loss.name == "L2Loss:0"
        assert loss.shape.as_list() == [] and half.dtype == tf.float16
        with tf.Session() as sess:
            a, b, c, d = sess.run([n, n_dim, loss, half])
    np.testing.assert_allclose(a, [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(b, [[1.0, 1.0], [0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(c, 29.28, rtol=1e-6)
    assert d == 7.0
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Value passed to parameter 't' has DataType int32"):
            tf.nn.l2_loss(tf.constant([1, 2]))


def _second_derivatives(fused, training, fmt, x_val, w_val, v_val):
    """d/d(x, scale, w) of sum(v * dL/dx), L = sum(w * batch_norm(x)): through the
    FusedBatchNormGradV3 op (fused, float32), or through float64 primitive ops as the
    reference (no stop_gradient in the variance, unlike tf.nn.moments, whose second
    derivative leaves out the mean's dependence on x, in TensorFlow too)."""
    dtype = tf.float32 if fused else tf.float64
    with tf.Graph().as_default():
        x = tf.constant(x_val, dtype)
        w = tf.constant(w_val, dtype)
        scale = tf.constant([1.0, 2.0, 3.0], dtype)
        offset = tf.constant([0.0, 1.0, 0.0], dtype)
        mean, variance = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]
        axes = [0, 2, 3] if fmt == "NCHW" else [0, 1, 2]
        if fused:
            y = tf.nn.fused_batch_norm(x, scale, offset, mean=None if training else mean,
                                       variance=None if training else variance,
                                       epsilon=0.01, data_format=fmt,
                                       is_training=training)[0]
        else:
            shape = [1, 3, 1, 1] if fmt == "NCHW" else [3]
            if training:
                m = tf.reduce_mean(x, axes, keepdims=True)
                v = tf.reduce_mean(tf.square(x - m), axes, keepdims=True)
            else:
                m = tf.reshape(tf.constant(mean, dtype), shape)
                v = tf.reshape(tf.constant(variance, dtype), shape)
            y = tf.nn.batch_normalization(x, m, v, tf.reshape(offset, shape),
                                          tf.reshape(scale, shape), 0.01)
        dx = tf.gradients(y, x, grad_ys=w)[0]
        second = tf.gradients(tf.reduce_sum(dx * tf.constant(v_val, dtype)), [x, scale, w])
        # In inference dx does not depend on x: None, or zeros through the fused op.
        second = [tf.zeros_like(t) if g is None else g for g, t in zip(second, [x, scale, w])]
        with tf.Session() as sess:
            return sess.run(second)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_second_derivatives(training, fmt):
    rng = np.random.RandomState(3)
    x_val, w_val, v_val = (rng.normal(size=(2, 3, 2, 2) if fmt == "NCHW" else (2, 2, 2, 3))
                           .astype(np.float32) for _ in range(3))
    got = _second_derivatives(True, training, fmt, x_val, w_val, v_val)
    want = _second_derivatives(False, training, fmt, x_val, w_val, v_val)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=2e-4, atol=2e-5)


def test_fused_batch_norm_grad_gradient_matches_finite_differences():
    rng = np.random.RandomState(4)
    x_val = rng.normal(size=(2, 2, 2, 3)).astype(np.float32)
    w_val = rng.normal(size=(2, 2, 2, 3)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 2, 2, 3])
        y = tf.nn.fused_batch_norm(x, [1.0, 2.0, 3.0], [0.0, 1.0, 0.0], epsilon=0.01)[0]
        dx = tf.gradients(y, x, grad_ys=tf.constant(w_val))[0]
        assert dx.op.type == "FusedBatchNormGradV3"
        with tf.Session():
            err = tf.test.compute_gradient_error(x, [2, 2, 2, 3], dx, [2, 2, 2, 3],
                                                 x_init_value=x_val, delta=1e-2)
    assert err < 2e-2
