"""The optimizers' Apply/SparseApply lowerings (built from ops/state/optimizer_rules.py)
against the NumPy kernels: every tf.train optimizer trains a small embedding model for
20 steps on both backends (dense updates for a bias, sparse ones with repeated
indices for the embedding). Skipped when jax is not installed."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.state import training_ops

pytest.importorskip("jax")
import xla_compare  # noqa: E402

OPTIMIZERS = {
    "sgd": lambda step: tf.train.GradientDescentOptimizer(0.5),
    "momentum": lambda step: tf.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda step: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adagrad": lambda step: tf.train.AdagradOptimizer(0.3),
    "adagrad_da": lambda step: tf.train.AdagradDAOptimizer(
        0.3, step, l1_regularization_strength=0.001, l2_regularization_strength=0.01),
    "adadelta": lambda step: tf.train.AdadeltaOptimizer(1.0, rho=0.9),
    "rmsprop": lambda step: tf.train.RMSPropOptimizer(0.01, momentum=0.5),
    "centered_rmsprop": lambda step: tf.train.RMSPropOptimizer(0.01, centered=True),
    "ftrl": lambda step: tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.001,
                                                l2_regularization_strength=0.01),
    "ftrl_v2": lambda step: tf.train.FtrlOptimizer(0.3, learning_rate_power=-0.6,
                                                   l2_shrinkage_regularization_strength=0.01),
    "proximal_sgd": lambda step: tf.train.ProximalGradientDescentOptimizer(
        0.5, l1_regularization_strength=0.001, l2_regularization_strength=0.01),
    "proximal_adagrad": lambda step: tf.train.ProximalAdagradOptimizer(
        0.3, l1_regularization_strength=0.001, l2_regularization_strength=0.01),
    "adam": lambda step: tf.train.AdamOptimizer(0.05),
}

RNG = np.random.RandomState(7)
# Eight distinct ids a step, two of them repeated (the optimizers sum repeated rows with
# Unique first, whose output size then stays the same from step to step).
IDS = np.array([np.r_[p, p[:2]] for p in (RNG.permutation(12)[:8] for _ in range(20))],
               np.int32)


def _programs(use_resource):
    """One copy of the model per optimizer, all trained by one run call."""
    def build():
        ids = tf.placeholder(tf.int32, [None])
        labels = tf.placeholder(tf.int64, [None])
        fetches = []
        for name in sorted(OPTIMIZERS):
            with tf.variable_scope(name):
                emb = tf.Variable(np.random.RandomState(1).uniform(-1, 1, (12, 4)).astype(
                    np.float32), use_resource=use_resource)
                w = tf.Variable(np.random.RandomState(2).randn(4).astype(np.float32) * 0.3,
                                use_resource=use_resource)
                logits = tf.nn.embedding_lookup(emb, ids) + w
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=labels, logits=logits))
                step = tf.Variable(0, dtype=tf.int64, trainable=False,
                                   use_resource=use_resource)
                train = OPTIMIZERS[name](step).minimize(loss, global_step=step,
                                                        var_list=[emb, w])
                fetches.append([loss, train, emb, w])
        return fetches, tf.global_variables_initializer(), [ids, labels]
    return build


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_every_optimizer_trains_20_steps_as_on_numpy(use_resource):
    """Ref variables use the Apply*/SparseApply* ops, resource variables their
    ResourceApply*/ResourceSparseApply* twins (GradientDescent's sparse update is a
    ResourceScatterAdd)."""
    prefix = "Resource" if use_resource else ""

    def applies(sess):
        types = xla_compare.lowered_types(sess)
        for name in ("Momentum", "Adagrad", "AdagradDA", "Adadelta", "RMSProp",
                     "CenteredRMSProp", "Ftrl", "FtrlV2", "ProximalGradientDescent",
                     "ProximalAdagrad"):
            assert {prefix + "Apply" + name, prefix + "SparseApply" + name} <= types, name
        assert {prefix + "ApplyGradientDescent", prefix + "ApplyAdam"} <= types

    def feeds(i):
        return IDS[i], IDS[i].astype(np.int64) % 4
    np_run, xla_run = xla_compare.run_both(_programs(use_resource), feeds, steps=20,
                                           check=applies, on_host=["VarHandleOp"])
    for k, name in enumerate(sorted(OPTIMIZERS)):
        for a, b in zip(np_run, xla_run):
            for va, vb in zip(a[k][:1] + a[k][2:], b[k][:1] + b[k][2:]):
                np.testing.assert_allclose(vb, va, rtol=2e-5, atol=2e-6, err_msg=name)
        assert np_run[-1][k][0] < np_run[0][k][0], name


def test_sparse_apply_with_bad_index_raises_the_numpy_error():
    with tf.Graph().as_default():
        var = tf.Variable(np.ones((3, 2), np.float32))
        acc = tf.Variable(np.ones((3, 2), np.float32))
        idx = tf.placeholder(tf.int32, [None])
        # A repeated index is updated once per occurrence, each seeing the previous one.
        upd = training_ops.sparse_apply_adagrad(var, acc, 0.1, tf.ones([2, 2]), idx)
        with tf.Session(config=xla_compare.config(True)) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(upd, {idx: [0, 0]})
            np.testing.assert_allclose(sess.run(var)[0], 1 - 0.1 / np.sqrt(2) -
                                       0.1 / np.sqrt(3), rtol=1e-6)
            with pytest.raises(tf.errors.InvalidArgumentError, match="out of range") as info:
                sess.run(upd, {idx: [0, 5]})
            assert info.value.op.type == "SparseApplyAdagrad"
            assert "test_xla_lowerings.py" in info.value.message
            # Nothing was written by the failed step.
            np.testing.assert_allclose(sess.run(acc)[1], [1.0, 1.0])
