"""With XLA on, a tf.data pipeline stays on the host and feeds the compiled model: a
training step fed by get_next compiles its model part, and trains as the NumPy backend."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

jax = pytest.importorskip("jax")
from xla_compare import config, lowered_types  # noqa: E402 - needs jax

D = tf.data.Dataset


def _model(features):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - 1.0))
    gs = tf.train.get_or_create_global_step()
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs), gs


def _features():
    return D.from_tensor_slices(np.arange(24, dtype=np.float32).reshape(8, 3) / 24).batch(2)


def _train(jit):
    with tf.Graph().as_default():
        train, _ = _model(_features().repeat().make_one_shot_iterator().get_next())
        with tf.Session(config=config(jit=jit)) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(6):
                sess.run(train)
            return sess.run(tf.trainable_variables()[0]), lowered_types(sess)


def test_xla_compiles_the_model_fed_by_get_next():
    w_xla, lowered = _train(jit=True)
    assert {"MatMul", "ApplyGradientDescent"} <= lowered, lowered
    assert not lowered & {"IteratorGetNext", "OneShotIterator", "RangeDataset"}
    w_numpy, _ = _train(jit=False)
    np.testing.assert_allclose(w_xla, w_numpy, rtol=1e-5)
