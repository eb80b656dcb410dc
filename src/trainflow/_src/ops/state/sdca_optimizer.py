"""SdcaOptimizer / SdcaOptimizerV2 (`tf.train.sdca_optimizer`): one pass of stochastic dual
coordinate ascent (proximal, CoCoA+ partitioned) over a mini-batch for a linear model with
sparse and dense feature groups. Returns the updated example state data [N, 4] (dual,
primal loss, dual loss, example weight) and the weight deltas learned during the pass.

The rounding follows TF's kernel: weights and deltas are float32, dense dot products are
float32 sums, sparse dot products, norms and the dual step are in double. As in TF, each
example is visited once in a random order (adaptive=False) or drawn by importance
(adaptive=True); `num_inner_iterations` is checked but, as in TF, not used.
"""
import collections

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.state.sdca_losses import LOSSES


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


class _Model:
    """Nominal weights and float32 deltas per feature group; sparse groups map a feature
    id to its position (the last position wins where ids repeat, as TF's map)."""

    def __init__(self, sparse_indices, sparse_weights, dense_weights, parts, shrinkage):
        self.sparse_nominal = [np.asarray(w, np.float32).reshape(-1) for w in sparse_weights]
        self.sparse_delta = [np.zeros(w.size, np.float32) for w in self.sparse_nominal]
        self.sparse_pos = [{int(i): j for j, i in enumerate(np.asarray(ix).reshape(-1))}
                           for ix in sparse_indices]
        self.dense_nominal = [np.asarray(w, np.float32).reshape(-1) for w in dense_weights]
        self.dense_delta = [np.zeros(w.size, np.float32) for w in self.dense_nominal]
        self.parts = np.float32(parts)
        self.shrinkage = shrinkage
        # The shrunk nominal dense weights do not change during the pass.
        self.dense_prev = [self._shrink32(w) for w in self.dense_nominal]

    def _shrink32(self, w):
        return np.sign(w) * np.maximum(np.abs(w) - np.float32(self.shrinkage), np.float32(0))

    def _shrink64(self, w):
        w = w.astype(np.float64)
        return np.sign(w) * np.maximum(np.abs(w) - self.shrinkage, 0.0)

    def wx(self, example):
        """(wx with the current weights, wx with the nominal weights), both double."""
        wx = prev = 0.0
        for j, (pos, values) in enumerate(example.sparse):
            if not pos.size:
                continue
            nominal = self.sparse_nominal[j][pos]
            current = nominal + self.sparse_delta[j][pos] * self.parts
            prev += float(np.dot(values, self._shrink64(nominal)))
            wx += float(np.dot(values, self._shrink64(current)))
        for j, row in enumerate(example.dense):
            n = row.size
            current = self.dense_nominal[j][:n] + self.dense_delta[j][:n] * self.parts
            prev += float(np.sum(row * self.dense_prev[j][:n], dtype=np.float32))
            wx += float(np.sum(row * self._shrink32(current), dtype=np.float32))
        return wx, prev

    def update(self, example, step):
        for j, (pos, values) in enumerate(example.sparse):
            d = self.sparse_delta[j]
            d[pos] = (d[pos].astype(np.float64) + values * step).astype(np.float32)
        for j, row in enumerate(example.dense):
            self.dense_delta[j][:row.size] += row * np.float32(step)


Example = collections.namedtuple("Example", ["sparse", "dense", "weight", "label", "norm"])


def _examples(model, sparse_example_indices, sparse_feature_indices, sparse_feature_values,
              dense_features, weights, labels):
    """The per-example views of the features: sparse (positions, float64 values) per
    group, dense float32 rows, and the squared norm (double)."""
    n = weights.size
    sparse = [[None] * len(sparse_example_indices) for _ in range(n)]
    for j, (ex, feat) in enumerate(zip(sparse_example_indices, sparse_feature_indices)):
        ex, feat = np.asarray(ex).reshape(-1), np.asarray(feat).reshape(-1)
        if ex.size != feat.size:
            raise _invalid("Found mismatched example_indices and feature_indices ["
                           f"{' '.join(map(str, ex))}] vs [{' '.join(map(str, feat))}]")
        vals = (np.asarray(sparse_feature_values[j], np.float32).reshape(-1)
                if j < len(sparse_feature_values) else None)
        lookup = model.sparse_pos[j]
        end = 0
        # Features of one example are a contiguous run of its id (TF reads them so).
        for e in range(n):
            start = end
            while end < ex.size and ex[end] == e:
                end += 1
            ids = feat[start:end]
            for i in ids:
                if int(i) not in lookup:
                    raise _invalid(f"Found sparse feature indices out of valid range: {i}")
            if len(set(ids.tolist())) != ids.size:
                raise _invalid("Duplicate index in sparse vector.")
            pos = np.array([lookup[int(i)] for i in ids], np.int64)
            v = (np.ones(ids.size) if vals is None
                 else vals[start:end].astype(np.float64))
            sparse[e][j] = (pos, v)
    for j, d in enumerate(dense_features):
        if d.ndim != 2:
            raise _invalid(f"Dense features at index {j} must be rank 2 but is rank {d.ndim}")
        if d.shape[1] > model.dense_nominal[j].size:
            raise _invalid(f"More dense features than we have parameters for: {d.shape[1]}")
    out = []
    for e in range(n):
        dense = [np.asarray(d[e], np.float32) for d in dense_features]
        norm = sum(float(np.dot(v, v)) for _, v in sparse[e])
        norm += sum(float(np.sum(r * r, dtype=np.float32)) for r in dense)
        out.append(Example(sparse[e], dense, np.float32(weights[e]), np.float32(labels[e]),
                           norm))
    return out


def _adaptive_order(examples, model, loss, state, l2, rng):
    """TF's importance sampling: examples drawn in proportion to weight * sqrt(|x|^2 +
    l2 * smoothness) * |dual + loss'(wx)|, a drawn example kept with probability
    0.1 ** (times drawn before), at most N failed draws; the examples never drawn follow,
    most probable first."""
    n = len(examples)
    prob = np.empty(n, np.float32)
    for i, ex in enumerate(examples):
        label = loss.convert_label(float(ex.label))
        kappa = float(state[i, 0]) + loss.derivative(model.wx(ex)[0], label, 1.0)
        prob[i] = float(ex.weight) * np.sqrt(ex.norm + l2 * loss.smoothness) * abs(kappa)
    total = float(np.sum(prob, dtype=np.float64))
    if not np.isfinite(total) or total <= 0:
        return rng.permutation(n)
    p = prob.astype(np.float64) / total
    counts = np.zeros(n, np.int64)
    order, retries = [], 0
    while len(order) < n and retries < n:
        pick = int(rng.choice(n, p=p))
        if rng.random() > 0.1 ** counts[pick]:
            retries += 1
            continue
        counts[pick] += 1
        order.append(pick)
    unseen = [i for i in np.argsort(-prob, kind="stable") if counts[i] == 0]
    return np.array(order + unseen[:n - len(order)], np.int64)


def _sdca_kernel(sparse_example_indices, sparse_feature_indices, sparse_feature_values,
                 dense_features, example_weights, example_labels, sparse_indices,
                 sparse_weights, dense_weights, example_state_data, *, loss_type, adaptive,
                 num_sparse_features, num_dense_features, l1, l2, num_loss_partitions):
    if num_sparse_features + num_dense_features <= 0:
        raise _invalid("Requires at least one feature to train.")
    loss = LOSSES[loss_type.decode() if isinstance(loss_type, bytes) else loss_type]
    l2 = float(np.float32(l2))
    shrinkage = float(np.float32(l1)) / l2
    model = _Model(sparse_indices, sparse_weights, dense_weights, num_loss_partitions,
                   shrinkage)
    weights = np.asarray(example_weights, np.float32).reshape(-1)
    labels = np.asarray(example_labels, np.float32).reshape(-1)
    if labels.size != weights.size:
        raise _invalid(f"Expected {weights.size} example labels but got {labels.size}")
    examples = _examples(model, sparse_example_indices, sparse_feature_indices,
                         sparse_feature_values, dense_features, weights, labels)
    if example_state_data.ndim != 2:
        raise _invalid("example_state_data must be rank 2 but is rank "
                       f"{example_state_data.ndim}")
    if example_state_data.shape != (len(examples), 4):
        raise _invalid(f"Expected shape {_shape_str((len(examples), 4))} for "
                       f"example_state_data, got {_shape_str(example_state_data.shape)}")
    state = np.array(example_state_data, np.float32)
    rng = np.random.default_rng()
    order = (_adaptive_order(examples, model, loss, state, l2, rng) if adaptive
             else rng.permutation(len(examples)))
    for i in order:
        ex = examples[i]
        dual = float(state[i, 0])
        weight = float(ex.weight)
        label = loss.convert_label(float(ex.label))
        wx, prev_wx = model.wx(ex)
        new_dual = loss.updated_dual(num_loss_partitions, label, weight, dual, wx,
                                     ex.norm / l2)
        model.update(ex, (new_dual - dual) * weight / l2)
        state[i] = (new_dual, loss.primal_loss(prev_wx, label, weight),
                    loss.dual_loss(dual, label, weight), weight)
    deltas = [d.reshape(np.shape(w)) for d, w in zip(model.sparse_delta, sparse_weights)]
    deltas += [d.reshape(np.shape(w)) for d, w in zip(model.dense_delta, dense_weights)]
    return (state, *deltas)


def _sdca_shape(op):
    n_sparse = op._attrs["num_sparse_features"]
    n_dense = op._attrs["num_dense_features"]
    n_vals = op._attrs["num_sparse_features_with_values"]
    first = 2 * n_sparse + n_vals + n_dense + 2 + n_sparse
    weights = op.inputs[first:first + n_sparse + n_dense]
    return [TensorShape([None, 4])] + [w.get_shape() for w in weights]


_LOSS_ATTR = ("loss_type: {'logistic_loss', 'squared_loss', 'hinge_loss', "
              "'smooth_hinge_loss', 'poisson_loss'}")
_COMMON_ATTRS = ["num_sparse_features: int >= 0", "num_sparse_features_with_values: int >= 0",
                 "num_dense_features: int >= 0", "l1: float", "l2: float",
                 "num_loss_partitions: int >= 1", "num_inner_iterations: int >= 1"]
_INPUTS = ["sparse_example_indices: num_sparse_features * int64",
           "sparse_feature_indices: num_sparse_features * int64",
           "sparse_feature_values: num_sparse_features_with_values * float",
           "dense_features: num_dense_features * float", "example_weights: float",
           "example_labels: float", "sparse_indices: num_sparse_features * int64",
           "sparse_weights: num_sparse_features * float",
           "dense_weights: num_dense_features * float", "example_state_data: float"]
_OUTPUTS = ["out_example_state_data: float",
            "out_delta_sparse_weights: num_sparse_features * float",
            "out_delta_dense_weights: num_dense_features * float"]


def _v1_kernel(*inputs, adaptative, loss_type, num_sparse_features, num_dense_features, l1,
               l2, num_loss_partitions):
    return _sdca_kernel(*inputs, adaptive=adaptative, loss_type=loss_type,
                        num_sparse_features=num_sparse_features,
                        num_dense_features=num_dense_features, l1=l1, l2=l2,
                        num_loss_partitions=num_loss_partitions)


def _v2_kernel(*inputs, adaptive, loss_type, num_sparse_features, num_dense_features, l1, l2,
               num_loss_partitions):
    return _sdca_kernel(*inputs, adaptive=adaptive, loss_type=loss_type,
                        num_sparse_features=num_sparse_features,
                        num_dense_features=num_dense_features, l1=l1, l2=l2,
                        num_loss_partitions=num_loss_partitions)


# Stateful: the visiting order is random (TF's kernel draws from std::random_device).
register_op("SdcaOptimizer", inputs=_INPUTS, outputs=_OUTPUTS,
            attrs=[_LOSS_ATTR, "adaptative: bool = false", *_COMMON_ATTRS],
            shape_fn=_sdca_shape, kernel=_v1_kernel, stateful=True)
register_op("SdcaOptimizerV2", inputs=_INPUTS, outputs=_OUTPUTS,
            attrs=[_LOSS_ATTR, "adaptive: bool = false", *_COMMON_ATTRS],
            shape_fn=_sdca_shape, kernel=_v2_kernel, stateful=True)
NotDifferentiable("SdcaOptimizer")
NotDifferentiable("SdcaOptimizerV2")

SdcaResult = collections.namedtuple(
    "SdcaOptimizer", ["out_example_state_data", "out_delta_sparse_weights",
                      "out_delta_dense_weights"])


def _build(op_type, flag, args, attrs, name):
    op = apply_op(op_type, name=name, **{flag[0]: flag[1]}, **args, **attrs)
    n_sparse = len(args["sparse_weights"])
    outs = op.outputs
    return SdcaResult(outs[0], list(outs[1:1 + n_sparse]), list(outs[1 + n_sparse:]))


def sdca_optimizer(sparse_example_indices, sparse_feature_indices, sparse_feature_values,
                   dense_features, example_weights, example_labels, sparse_indices,
                   sparse_weights, dense_weights, example_state_data, loss_type, l1, l2,
                   num_loss_partitions, num_inner_iterations, adaptative=True, name=None):
    """One SDCA pass over a mini-batch (the SdcaOptimizer op). Returns a namedtuple
    (out_example_state_data, out_delta_sparse_weights, out_delta_dense_weights).

    Args:
      sparse_example_indices, sparse_feature_indices: per sparse group, int64 vectors
        naming (example, feature id) pairs, grouped by example.
      sparse_feature_values: float vectors for the first groups that have values (the
        others count 1.0 per feature).
      dense_features: per dense group a float matrix [examples, features].
      example_weights, example_labels: float vectors [examples].
      sparse_indices, sparse_weights: per sparse group the feature ids and their weights.
      dense_weights: per dense group its weights (features elements).
      example_state_data: float [examples, 4]: dual, primal loss, dual loss, weight.
      loss_type: 'logistic_loss', 'squared_loss', 'hinge_loss', 'smooth_hinge_loss' or
        'poisson_loss'.
      l1, l2: symmetric regularization strengths (floats).
      num_loss_partitions: the number of partitions of the global loss (>= 1).
      num_inner_iterations: kept for TF's signature (>= 1).
      adaptative: draw examples by importance instead of a shuffled order.
    """
    args, attrs = _args(locals())
    return _build("SdcaOptimizer", ("adaptative", bool(adaptative)), args, attrs, name)


def sdca_optimizer_v2(sparse_example_indices, sparse_feature_indices, sparse_feature_values,
                      dense_features, example_weights, example_labels, sparse_indices,
                      sparse_weights, dense_weights, example_state_data, loss_type, l1, l2,
                      num_loss_partitions, num_inner_iterations, adaptive=True, name=None):
    """`sdca_optimizer` building SdcaOptimizerV2 (whose flag is spelled `adaptive`)."""
    args, attrs = _args(locals())
    return _build("SdcaOptimizerV2", ("adaptive", bool(adaptive)), args, attrs, name)


def _args(given):
    lists = ["sparse_example_indices", "sparse_feature_indices", "sparse_feature_values",
             "dense_features", "sparse_indices", "sparse_weights", "dense_weights"]
    args = {k: list(given[k]) for k in lists}
    args.update(example_weights=given["example_weights"],
                example_labels=given["example_labels"],
                example_state_data=given["example_state_data"])
    attrs = dict(loss_type=given["loss_type"], l1=float(given["l1"]), l2=float(given["l2"]),
                 num_loss_partitions=int(given["num_loss_partitions"]),
                 num_inner_iterations=int(given["num_inner_iterations"]))
    return args, attrs
