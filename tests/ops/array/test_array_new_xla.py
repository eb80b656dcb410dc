"""The XLA lowerings of Roll, SpaceToBatchND, BatchToSpaceND, TensorScatter*,
LowerBound/UpperBound, EnsureShape, GuaranteeConst and Bitcast against their NumPy
kernels (and the gradients built on them), in compiled segments with no fallback.
Skipped without jax."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")
import xla_compare  # noqa: E402

R = np.random.RandomState(0)
X = R.randn(2, 4, 6, 3).astype(np.float32)
V = R.randn(5, 4).astype(np.float32)

CASES = [  # name, input value, build(placeholder) -> list of fetches
    ("roll_scalar", V, lambda x: [tf.roll(x, 2, 1)]),
    ("roll_vector", V, lambda x: [tf.roll(x, [1, -3], [0, 1]), tf.roll(x, [1, 2], [1, 1])]),
    ("roll_grad", V, lambda x: tf.gradients(tf.reduce_sum(tf.roll(x, 1, 1) * x), x)),
    ("space_to_batch", X, lambda x: [tf.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 0]])]),
    ("batch_to_space", X, lambda x: [tf.batch_to_space_nd(x, [2, 1], [[1, 0], [0, 3]])]),
    ("space_batch_grad", X, lambda x: tf.gradients(tf.reduce_sum(
        tf.space_to_batch_nd(x, [2, 2], [[0, 0], [1, 1]]) ** 2), x)),
    ("scatter_update", V, lambda x: [tf.tensor_scatter_nd_update(x, [[1], [3]], x[:2] * 2.)]),
    ("scatter_add_sub", V, lambda x: [tf.tensor_scatter_nd_add(x, [[0, 1], [0, 1]], [1., 2.]),
                                      tf.tensor_scatter_nd_sub(x, [[4]], x[:1])]),
    ("scatter_min_max", V, lambda x: [tf.tensor_scatter_nd_min(x, [[2, 2]], [0.]),
                                      tf.tensor_scatter_nd_max(x, [[2, 2]], [0.])]),
    ("scatter_grads", V, lambda x: tf.gradients(tf.reduce_sum(
        tf.tensor_scatter_nd_max(x, [[1], [2]], x[3:5] + 1.) ** 2), x)),
    ("ensure_bitcast", V, lambda x: [tf.ensure_shape(x * 2., [5, None]),
                                     tf.guarantee_const(x) + 1.,
                                     tf.bitcast(tf.bitcast(x, tf.uint8), tf.float32) - x]),
    ("searchsorted", V, lambda x: [tf.searchsorted(tf.sort(x), x[:, :2]),
                                   tf.searchsorted(tf.sort(x), x[:, 1:], side="right")]),
]


# Ops of these graphs with no lowering of their own (sort's TopKV2; the scatter gradients'
# GatherNd and ScatterNd): they run on NumPy between the compiled segments.
ON_HOST = {"TopKV2", "GatherNd", "ScatterNd"}


@pytest.mark.parametrize("name, value, build", CASES, ids=[c[0] for c in CASES])
def test_lowering_matches_numpy(name, value, build):
    def graph():
        x = tf.placeholder(tf.float32, value.shape)
        return build(x), None, [x]

    want, got = xla_compare.run_both(graph, lambda i: [value],
                                     on_host=ON_HOST)
    for a, b in zip(got[0], want[0]):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)
