"""Sampled losses of `tf.nn`: nce_loss and sampled_softmax_loss.

Both score each example's true classes and a shared sample of other classes
(drawn by a candidate sampler, log-uniform by default) with `inputs . w + b`,
subtract log(expected count) of each class (the "log Q" correction), and apply a
logistic (NCE) or softmax loss to those logits, so a step touches only
num_true + num_sampled rows of the class weights.
"""
from trainflow._src.ops.array import cast, create, join, shape, slicing
from trainflow._src.ops.math import arith
from trainflow._src.ops.nn.embedding import embedding_lookup
from trainflow._src.ops.nn.xent import (
    sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2)
from trainflow._src.ops.sparse import sparse_ops
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.nn.math_util import sum_rows
from trainflow._src.ops.nn.sampling import compute_accidental_hits, log_uniform_candidate_sampler

__all__ = ["nce_loss", "sampled_softmax_loss"]


def _weight_list(weights):
    if hasattr(weights, "_get_variable_list"):  # a PartitionedVariable
        return list(weights)
    return list(weights) if isinstance(weights, (list, tuple)) else [weights]


def _remove_hits(sampled_logits, labels, sampled, num_true, num_sampled):
    """Adds -FLT_MAX to the sampled logits of candidates that are true classes."""
    rows, positions, weights = compute_accidental_hits(labels, sampled, num_true=num_true)
    indices = join.concat(
        [shape.reshape(rows, [-1, 1]),
         shape.reshape(cast.cast(positions, dtypes.int32), [-1, 1])], 1,
        name="sparse_indices")
    dense_shape = join.concat(
        [shape.shape(labels)[:1], shape.expand_dims(num_sampled, 0)], 0)
    weights = cast.cast(weights, sampled_logits.dtype.base_dtype)
    # Assignment (not a sum) on repeated positions keeps the logit at -FLT_MAX, not -inf.
    penalty = sparse_ops.sparse_to_dense(indices, dense_shape, weights, default_value=0.0,
                                        validate_indices=False)
    return arith.add(sampled_logits, penalty)


def compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                           num_true=1, sampled_values=None, subtract_log_q=True,
                           remove_accidental_hits=False, partition_strategy="mod",
                           name=None, seed=None):
    """The logits of the true and the sampled classes, and their target probabilities.

    Args:
      weights: class embeddings [num_classes, dim]: a Tensor/Variable, a list of shards
        or a PartitionedVariable (sharded by `partition_strategy`).
      biases: class biases [num_classes].
      labels: int Tensor [batch, num_true] of target classes.
      inputs: float Tensor [batch, dim].
      num_sampled, num_classes, num_true: the sizes.
      sampled_values: a (sampled_candidates, true_expected_count,
        sampled_expected_count) triple from a candidate sampler; default: a unique
        log-uniform sample.
      subtract_log_q: subtract the log of the expected counts.
      remove_accidental_hits: push sampled candidates that are true classes to -FLT_MAX.
      partition_strategy: "mod" or "div".
      name: the name scope (default "compute_sampled_logits").
      seed: the sampler's seed.

    Returns:
      (logits [batch, num_true + num_sampled], labels of the same shape: 1/num_true for
      the true columns, 0 for the sampled ones).
    """
    weights = _weight_list(weights)
    with name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        labels = convert_to_tensor(labels, name="labels")
        if labels.dtype.base_dtype != dtypes.int64:
            labels = cast.cast(labels, dtypes.int64)
        inputs = convert_to_tensor(inputs, name="inputs")
        labels_flat = shape.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_expected, sampled_expected = (
            cast.stop_gradient(s) for s in sampled_values)
        sampled = cast.cast(sampled, dtypes.int64)
        # One lookup serves both the true and the sampled classes.
        all_ids = join.concat([labels_flat, sampled], 0)
        dtype = inputs.dtype.base_dtype
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype.base_dtype != dtype:
            all_w = cast.cast(all_w, dtype)
        n_true = shape.shape(labels_flat)[0]
        true_w = slicing.slice(all_w, [0, 0], join.stack([n_true, -1]))
        sampled_w = slicing.slice(all_w, join.stack([n_true, 0]), [-1, -1])
        sampled_logits = arith.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype.base_dtype != dtype:
            all_b = cast.cast(all_b, dtype)
        true_b = slicing.slice(all_b, [0], shape.shape(labels_flat))
        sampled_b = slicing.slice(all_b, shape.shape(labels_flat), [-1])
        # true_logits[i, j] = inputs[i] . true_w[i * num_true + j]
        dim = shape.shape(true_w)[1:2]
        per_example_w = shape.reshape(true_w, join.concat([[-1, num_true], dim], 0))
        products = arith.multiply(shape.expand_dims(inputs, 1), per_example_w)
        flat_products = shape.reshape(products, join.concat([[-1], dim], 0))
        true_logits = shape.reshape(sum_rows(flat_products), [-1, num_true])
        true_logits = arith.add(true_logits, shape.reshape(true_b, [-1, num_true]))
        sampled_logits = arith.add(sampled_logits, sampled_b)
        if remove_accidental_hits:
            sampled_logits = _remove_hits(sampled_logits, labels, sampled, num_true,
                                          num_sampled)
        if subtract_log_q:
            true_logits = arith.subtract(
                true_logits, cast.cast(arith.log(true_expected), dtype))
            sampled_logits = arith.subtract(
                sampled_logits, cast.cast(arith.log(sampled_expected), dtype))
        out_logits = join.concat([true_logits, sampled_logits], 1)
        true_targets = arith.truediv(create.ones_like(true_logits),
                                        convert_to_tensor(num_true, dtype=dtype))
        out_labels = join.concat([true_targets, create.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """Noise-contrastive estimation loss per example (`tf.nn.nce_loss`): a logistic loss
    telling the true classes from the sampled ones.

    Args: as `compute_sampled_logits` (weights [num_classes, dim], biases
    [num_classes], labels [batch, num_true], inputs [batch, dim]).

    Returns:
      a float Tensor [batch]: the summed logistic losses of each example's true and
      sampled classes.
    """
    logits, targets = compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs,
        num_sampled=num_sampled, num_classes=num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name)
    losses = sigmoid_cross_entropy_with_logits(labels=targets, logits=logits,
                                               name="sampled_losses")
    return sum_rows(losses)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """Softmax cross entropy over the true and a sample of the other classes
    (`tf.nn.sampled_softmax_loss`), a cheap training-time stand-in for the full
    softmax loss.

    Args: as `compute_sampled_logits`; accidental hits are removed by default.

    Returns:
      a float Tensor [batch] of losses.
    """
    logits, targets = compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs,
        num_sampled=num_sampled, num_classes=num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name, seed=seed)
    targets = cast.stop_gradient(targets, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=targets, logits=logits)
