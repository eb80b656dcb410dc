"""The tf.nn namespace: TF1's names resolve to the trainflow functions."""
import importlib

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn import nn_ops

TF1_NAMES = [
    "relu", "relu6", "elu", "selu", "leaky_relu", "crelu", "softplus", "softsign", "sigmoid",
    "tanh", "softmax", "log_softmax", "bias_add", "xw_plus_b", "relu_layer",
    "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits", "l2_loss", "l2_normalize", "dropout", "moments",
    "weighted_moments", "sufficient_statistics", "normalize_moments", "batch_normalization",
    "fused_batch_norm", "in_top_k", "top_k", "embedding_lookup", "embedding_lookup_sparse",
    "nce_loss", "sampled_softmax_loss", "log_uniform_candidate_sampler",
    "uniform_candidate_sampler", "learned_unigram_candidate_sampler",
    "fixed_unigram_candidate_sampler", "all_candidate_sampler", "compute_accidental_hits",
    "zero_fraction", "swish", "log_poisson_loss", "batch_norm_with_global_normalization",
]


@pytest.mark.parametrize("name", TF1_NAMES)
def test_tf1_names_are_exported(name):
    assert name in tf.nn.__all__
    assert callable(getattr(tf.nn, name))


def test_aliases_point_at_the_implementations():
    assert tf.nn.sigmoid is math_ops.sigmoid and tf.nn.tanh is math_ops.tanh
    assert tf.nn.relu is nn_ops.relu
    assert set(nn_ops.__all__) <= set(tf.nn.__all__)


@pytest.mark.parametrize("module_name", ["trainflow._src.ops.nn.conv",
                                         "trainflow._src.ops.nn.conv_composite",
                                         "trainflow._src.ops.nn.pool"])
def test_convolution_and_pooling_names_are_exported(module_name):
    module = importlib.import_module(module_name)
    for name in module.__all__:
        assert getattr(tf.nn, name) is getattr(module, name)
