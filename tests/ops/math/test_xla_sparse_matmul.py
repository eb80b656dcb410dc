"""SparseMatMul's XLA lowering against its NumPy kernel: float32 and bfloat16 inputs,
transposes, and the gradient products, all inside one compiled segment. Skipped when jax
is not installed."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")
import xla_compare  # noqa: E402

R = np.random.RandomState(3)
A = R.randn(5, 4).astype(np.float32)
B = R.randn(4, 3).astype(np.float32)


def _build():
    a, b = xla_compare.placeholder(A), tf.placeholder(tf.float32, [4, None])
    prods = [tf.sparse_matmul(a, b, a_is_sparse=True),
             tf.sparse_matmul(b, a, transpose_a=True, transpose_b=True),
             tf.sparse_matmul(tf.cast(a, tf.bfloat16), b, b_is_sparse=True)]
    loss = tf.reduce_sum(prods[0] * tf.transpose(prods[1])) + tf.reduce_sum(prods[2])
    return prods + tf.gradients(loss, [a, b]), None, [a, b]


def test_sparse_matmul_on_xla_matches_numpy():
    numpy_vals, xla_vals = xla_compare.run_both(
        _build, lambda i: [A, B], check=lambda sess: {"SparseMatMul"} <= xla_compare.
        lowered_types(sess))
    for got, want in zip(xla_vals[0], numpy_vals[0]):
        np.testing.assert_allclose(got, want, rtol=1e-2 if got.dtype != np.float32 else 1e-5,
                                   atol=1e-2)
