"""The FusedBatchNorm lowerings against the NumPy kernels (training and inference, both
layouts, V1/V2/V3 and their Grad ops through tf.gradients), and a convnet with batch
norm trained 100 steps on XLA and on NumPy. Skipped when jax is not installed."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.nn import batch_norm

pytest.importorskip("jax")
import xla_compare  # noqa: E402

R = np.random.RandomState(0)
X = R.randn(4, 5, 5, 3).astype(np.float32) * 2 + 1
C = np.float32([1.5, 0.5, 2.0]), np.float32([0.1, -0.2, 0.3])
STATS = np.float32([0.5, 1.0, -1.0]), np.float32([2.0, 0.5, 1.5])


def _bn(x, training, fmt="NHWC", op_type="FusedBatchNormV3", avg=1.0):
    scale, offset = (tf.constant(v) for v in C)
    mean, var = (tf.constant(v) for v in STATS) if not training or avg != 1.0 else \
        (tf.constant([], tf.float32), tf.constant([], tf.float32))
    attrs = {"exponential_avg_factor": avg} if op_type == "FusedBatchNormV3" else {}
    op = tf.get_default_graph().create_op(
        op_type, [x, scale, offset, mean, var],
        attrs={"T": tf.float32, **({"U": tf.float32} if op_type != "FusedBatchNorm" else {}),
               "epsilon": 0.001, "data_format": fmt, "is_training": training, **attrs})
    return op.outputs[:3]


CASES = [
    ("v3_train", lambda x: _bn(x, True), X),
    ("v3_infer", lambda x: _bn(x, False), X),
    ("v3_train_avg", lambda x: _bn(x, True, avg=0.25), X),
    ("v2_train_nchw", lambda x: _bn(x, True, "NCHW", "FusedBatchNormV2"),
     X.transpose(0, 3, 1, 2)),
    ("v1_infer_nchw", lambda x: _bn(x, False, "NCHW", "FusedBatchNorm"),
     X.transpose(0, 3, 1, 2)),
    ("layer_train", lambda x: tf.nn.fused_batch_norm(x, *C, epsilon=0.01)[:3], X),
]


def test_fused_batch_norm_and_gradients_match_numpy():
    """All CASES in one graph (one compile): outputs and the gradient of a weighted sum
    (so the Grad op sees a non-uniform y_backprop)."""
    values = [value for _, _, value in CASES]

    def build():
        phs = [xla_compare.placeholder(v) for v in values]
        fetches = []
        for (_, fn, value), x in zip(CASES, phs):
            dy = np.random.RandomState(1).randn(*value.shape).astype(np.float32)
            outs = list(fn(x))
            fetches.append(outs + tf.gradients(tf.reduce_sum(outs[0] * dy), x))
        return fetches, None, phs

    def check(sess):
        types = xla_compare.lowered_types(sess)
        for op_type in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
            assert {op_type, op_type.replace("Norm", "NormGrad")} <= types, types
    (np_vals,), (xla_vals,) = xla_compare.run_both(build, lambda i: values, check=check)
    for (name, _, _), outs_np, outs_xla in zip(CASES, np_vals, xla_vals):
        for a, b in zip(outs_np, outs_xla):
            assert a.dtype == b.dtype and a.shape == b.shape, name
            np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-5, err_msg=name)


def test_bad_channels_raise_the_numpy_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 2, 3])
        scale = tf.placeholder(tf.float32, [None])
        y = batch_norm.fused_batch_norm(x, scale, tf.zeros([3]), is_training=True)[0]
        with tf.Session(config=xla_compare.config(True)) as sess:
            ones = np.ones((1, 2, 2, 3), np.float32)
            assert sess.run(y, {x: ones, scale: np.ones(3, np.float32)}).shape == ones.shape
            with pytest.raises(tf.errors.InvalidArgumentError, match="scale must have") as e:
                sess.run(y, {x: ones, scale: np.ones(2, np.float32)})
            assert e.value.op.type == "FusedBatchNormV3"


def _convnet_bn():
    def build():
        images = tf.placeholder(tf.float32, [None, 8, 8, 3])
        labels = tf.placeholder(tf.int64, [None])
        init = tf.truncated_normal_initializer(stddev=0.1, seed=1)
        h = tf.layers.conv2d(images, 6, 3, padding="same", use_bias=False,
                             kernel_initializer=init)
        h = tf.nn.relu(tf.layers.batch_normalization(h, training=True, fused=True))
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, 8, 3, use_bias=False, kernel_initializer=init)
        h = tf.nn.relu(tf.layers.batch_normalization(h, training=True, fused=True))
        logits = tf.layers.dense(tf.reshape(h, [-1, 2 * 2 * 8]), 4, kernel_initializer=init)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
        moving = [v for v in tf.global_variables() if "moving" in v.name]
        return [loss, train, moving], tf.global_variables_initializer(), [images, labels]
    rng = np.random.RandomState(3)
    data = rng.rand(8, 8, 8, 3).astype(np.float32), rng.randint(0, 4, 8)
    return build, lambda i: data


def test_convnet_with_batch_norm_agrees_over_100_steps():
    build, feeds = _convnet_bn()

    def check(sess):
        assert {"FusedBatchNormV3", "FusedBatchNormGradV3"} <= xla_compare.lowered_types(sess)
    np_run, xla_run = xla_compare.run_both(build, feeds, steps=100, check=check)
    np_loss = np.array([r[0] for r in np_run])
    xla_loss = np.array([r[0] for r in xla_run])
    assert np_loss[-1] < 0.5 * np_loss[0]
    np.testing.assert_allclose(xla_loss[:10], np_loss[:10], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xla_loss, np_loss, rtol=5e-4, atol=1e-5)
    for a, b in zip(np_run[-1][2], xla_run[-1][2]):
        np.testing.assert_allclose(b, a, rtol=5e-4, atol=1e-5)
