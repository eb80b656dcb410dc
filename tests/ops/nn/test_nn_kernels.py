"""The tf.nn NumPy kernels called directly: exact dtypes, untouched inputs, stability,
and the sampling helpers."""
import ml_dtypes
import numpy as np
import pytest

from trainflow._src.framework import dtypes, errors
from trainflow._src.ops.nn import activation_kernels
from trainflow._src.ops.nn import batch_norm_kernels
from trainflow._src.ops.nn import sampling_kernels
from trainflow._src.ops.nn import topk_kernels
from trainflow._src.ops.nn import xent_kernels

X = np.array([[-1.5, -0.4, 0.3], [0.9, 2.2, 7.1]], np.float32)

UNARY = [activation_kernels.relu, activation_kernels.relu6, activation_kernels.elu,
         activation_kernels.selu, activation_kernels.softplus, activation_kernels.softsign,
         activation_kernels.softmax,
         activation_kernels.log_softmax, lambda x: activation_kernels.leaky_relu(x, alpha=0.2)]


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
@pytest.mark.parametrize("kernel", UNARY)
def test_unary_kernels_keep_dtype_and_leave_inputs_alone(kernel, dtype):
    x = X.astype(dtype)
    before = x.copy()
    out = kernel(x)
    assert out.dtype == np.dtype(dtype) and out.shape == x.shape
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("kernel", [activation_kernels.relu_grad, activation_kernels.relu6_grad,
                                    activation_kernels.elu_grad, activation_kernels.selu_grad,
                                    activation_kernels.softplus_grad,
                                    activation_kernels.softsign_grad])
def test_grad_kernels_keep_dtype(kernel):
    g = np.ones_like(X, dtype=np.float16)
    assert kernel(g, X.astype(np.float16)).dtype == np.float16


def test_softmax_family_is_stable_for_huge_logits():
    x = np.array([[1e30, 0.0, -1e30]], np.float32)
    np.testing.assert_array_equal(activation_kernels.softmax(x), [[1.0, 0.0, 0.0]])
    assert np.all(np.isfinite(activation_kernels.log_softmax(np.array([[1e4, 0.0]], np.float32))))
    loss, backprop = xent_kernels.softmax_xent(np.array([[1e4, 0.0]], np.float32),
                                          np.array([[0.0, 1.0]], np.float32))
    np.testing.assert_allclose(loss, [1e4])
    np.testing.assert_allclose(backprop, [[1, -1]])
    s = activation_kernels.stable_sigmoid(np.array([-800.0, 0.0, 800.0]))
    np.testing.assert_array_equal(s, [0.0, 0.5, 1.0])


def test_bias_add_kernel_errors_and_integer_sums():
    with pytest.raises(errors.InvalidArgumentError, match=r"Biases must be 1D: \[1,3\]"):
        activation_kernels.bias_add(np.ones((2, 3)), np.ones((1, 3)), data_format=b"NHWC")
    out = activation_kernels.bias_add_grad(np.ones((2, 3, 4), np.int32), data_format=b"NCHW")
    assert out.dtype == np.int32 and out.tolist() == [8, 8, 8]


def test_xent_kernels_compute_in_float32_for_half():
    logits = np.array([[10.0, 0.0, -10.0]], np.float16)
    loss, backprop = xent_kernels.sparse_softmax_xent(logits, np.array([2]))
    assert loss.dtype == np.float16 and backprop.dtype == np.float16
    assert float(loss[0]) == pytest.approx(20.0, rel=1e-3)
    small = xent_kernels.l2_loss(np.array([3.0, 4.0], np.float16))
    assert small.dtype == np.float16 and small == 12.5
    assert np.isinf(xent_kernels.l2_loss(np.array([300.0, 400.0], np.float16)))  # > half's max


def test_top_k_indices_prefer_lower_index_on_ties():
    x = np.array([[2.0, 5.0, 5.0, 1.0, 5.0]])
    np.testing.assert_array_equal(topk_kernels.top_k_indices(x, 4), [[1, 2, 4, 0]])
    values, idx = topk_kernels.top_k_v2(x, np.int32(2), sorted=True, index_type=dtypes.int64)
    assert idx.dtype == np.int64 and values.tolist() == [[5.0, 5.0]]


def test_fused_batch_norm_kernel_validates_channels():
    x = np.ones((1, 2, 2, 3), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="When is_training=false, mean must "
                                                          "have the same number of elements as "
                                                          "the channels of x, got 0 and 3"):
        batch_norm_kernels.fused_batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32),
                                       np.zeros(0, np.float32), np.zeros(0, np.float32),
                                       epsilon=1e-3, data_format=b"NHWC", is_training=False)


def test_draw_unique_counts_every_draw():
    stream = iter([3, 3, 1, 3, 2, 0, 2, 1] * 20)
    sampled, tries = sampling_kernels._draw_unique(lambda n: [next(stream) for _ in range(n)], 3)
    assert sampled.tolist() == [3, 1, 2] and tries == 5


def test_unigram_weights_update_and_probability():
    w = sampling_kernels.UnigramWeights(np.ones(4))
    w.update(np.array([[2, 2], [3, 2]]))
    np.testing.assert_allclose(w.probability([0, 2, 3, 7]), [1 / 8, 4 / 8, 2 / 8, 0.0])
    draws = w.draw(np.random.default_rng(0), 4000)
    assert abs(np.mean(draws == 2) - 0.5) < 0.03


def test_fixed_unigram_weights_with_shards_and_reserved_ids():
    w = sampling_kernels.fixed_unigram_weights(3, [4.0, 1.0, 9.0, 16.0], "", 0.5, 2, 2, 0)
    # word ids 0..5: reserved 0, 1; weights of ids 2..5 are 4, 1, 9, 16 -> shard 0 keeps
    # ids 0, 2, 4 with weights 0, 2, 3 (after distortion 0.5).
    np.testing.assert_allclose(w.weights, [0.0, 2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match="range_max must equal"):
        sampling_kernels.fixed_unigram_weights(5, [1.0], "", 1.0, 0, 1, 0)


def test_accidental_hits_without_hits_or_candidates():
    idx, ids, w = sampling_kernels.compute_accidental_hits(np.array([[1], [2]]), np.array([5, 6]),
                                                      num_true=1)
    assert idx.shape == ids.shape == w.shape == (0,)
    idx, ids, w = sampling_kernels.compute_accidental_hits(np.array([[1]]),
                                                      np.zeros(0, np.int64), num_true=1)
    assert idx.shape == (0,)
