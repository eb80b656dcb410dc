"""Candidate samplers of `tf.nn` (LogUniform, Uniform, LearnedUnigram, FixedUnigram and
All CandidateSampler ops) and ComputeAccidentalHits, with their graph-building functions;
the sampled losses built on them (nce_loss, sampled_softmax_loss) are `sampled_loss`'s.

The samplers are stateful: each keeps its random stream (seeded by the `seed`/`seed2`
attrs, see `random_kernels.generator`) and, for the learned unigram sampler, its
class counts per session.
"""
__all__ = ["all_candidate_sampler", "compute_accidental_hits",
           "fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler",
           "log_uniform_candidate_sampler", "uniform_candidate_sampler"]

import collections

import numpy as np

from trainflow._src.framework import random_seed
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.nn import sampling_kernels as K
from trainflow._src.ops.array.shape_util import dims_of, with_rank
from trainflow._src.ops.random.random_kernels import generator

_COMMON_ATTRS = ["num_true: int >= 1", "num_sampled: int >= 1", "unique: bool"]
_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]
_OUTPUTS = ["sampled_candidates: int64", "true_expected_count: float",
            "sampled_expected_count: float"]


def _sampler_shape(op):
    batch = with_rank(dims_of(op.inputs[0]), 2)[0]
    n = op._attrs["num_sampled"]
    return [TensorShape([n]), TensorShape([batch, op._attrs["num_true"]]), TensorShape([n])]


def _log_uniform_kernel(true_classes, *, num_true, num_sampled, unique, range_max, ctx):
    K.check_true_classes(true_classes, num_true)
    rng = generator(ctx)
    return K.sample(rng, true_classes, num_sampled, unique, range_max,
                    lambda n: K.log_uniform_draw(rng, n, range_max),
                    lambda v: K.log_uniform_probability(v, range_max))


def _uniform_kernel(true_classes, *, num_true, num_sampled, unique, range_max, ctx):
    K.check_true_classes(true_classes, num_true)
    rng = generator(ctx)
    return K.sample(rng, true_classes, num_sampled, unique, range_max,
                    lambda n: rng.integers(0, range_max, n),
                    lambda v: np.full(np.shape(v), 1.0 / range_max))


def _unigram_sample(weights, true_classes, num_sampled, unique, range_max, rng):
    return K.sample(rng, true_classes, num_sampled, unique, range_max,
                    lambda n: weights.draw(rng, n), weights.probability)


def _learned_unigram_kernel(true_classes, *, num_true, num_sampled, unique, range_max, ctx):
    K.check_true_classes(true_classes, num_true)
    weights = ctx.state.get("weights")
    if weights is None:
        weights = ctx.state.setdefault("weights", K.UnigramWeights(np.ones(range_max)))
    out = _unigram_sample(weights, true_classes, num_sampled, unique, range_max,
                          generator(ctx))
    weights.update(true_classes)
    return out


def _fixed_unigram_kernel(true_classes, *, num_true, num_sampled, unique, range_max,
                          vocab_file, distortion, num_reserved_ids, num_shards, shard,
                          unigrams, ctx):
    K.check_true_classes(true_classes, num_true)
    weights = ctx.state.get("weights")
    if weights is None:
        weights = ctx.state.setdefault("weights", K.fixed_unigram_weights(
            range_max, unigrams, vocab_file, distortion, num_reserved_ids, num_shards, shard))
    return _unigram_sample(weights, true_classes, num_sampled, unique, range_max,
                           generator(ctx))


def _all_kernel(true_classes, *, num_true, num_sampled, unique):
    K.check_true_classes(true_classes, num_true)
    return (np.arange(num_sampled, dtype=np.int64),
            np.ones(true_classes.shape, dtype=np.float32),
            np.ones(num_sampled, dtype=np.float32))


_RANGE = ["range_max: int >= 1"]
for _op_type, _kernel, _extra in (
        ("LogUniformCandidateSampler", _log_uniform_kernel, _RANGE),
        ("UniformCandidateSampler", _uniform_kernel, _RANGE),
        ("LearnedUnigramCandidateSampler", _learned_unigram_kernel, _RANGE),
        ("FixedUnigramCandidateSampler", _fixed_unigram_kernel,
         _RANGE + ["vocab_file: string = ''", "distortion: float = 1",
                   "num_reserved_ids: int = 0", "num_shards: int >= 1 = 1",
                   "shard: int >= 0 = 0", "unigrams: list(float) = []"]),
        ("AllCandidateSampler", _all_kernel, [])):
    register_op(_op_type, inputs=["true_classes: int64"], outputs=_OUTPUTS,
                attrs=_COMMON_ATTRS + _extra + _SEED_ATTRS, shape_fn=_sampler_shape,
                kernel=_kernel, stateful=True)
    NotDifferentiable(_op_type)


def _accidental_hits_shape(op):
    with_rank(dims_of(op.inputs[0]), 2)
    with_rank(dims_of(op.inputs[1]), 1)
    vec = TensorShape([None])
    return [vec, vec, vec]


register_op("ComputeAccidentalHits", inputs=["true_classes: int64", "sampled_candidates: int64"],
            outputs=["indices: int32", "ids: int64", "weights: float"],
            attrs=["num_true: int"] + _SEED_ATTRS, shape_fn=_accidental_hits_shape,
            kernel=K.compute_accidental_hits)
NotDifferentiable("ComputeAccidentalHits")


def _result(op_type, op):
    cls = _RESULT_TYPES.get(op_type)
    if cls is None:
        cls = _RESULT_TYPES.setdefault(op_type, collections.namedtuple(
            op_type, [a.name for a in op._info.op_def.outputs]))
    return cls(*op.outputs)


_RESULT_TYPES = {}


def _sampler(op_type, true_classes, seed, name, **attrs):
    seed1, seed2 = random_seed.get_seed(seed)
    op = apply_op(op_type, true_classes=true_classes, seed=seed1 or 0, seed2=seed2 or 0,
                  name=name, **attrs)
    return _result(op_type, op)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Samples classes from the log-uniform (Zipfian) distribution
    P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)
    (`tf.nn.log_uniform_candidate_sampler`). Suits class ids sorted by decreasing
    frequency.

    Args:
      true_classes: int64 Tensor [batch, num_true] of target classes.
      num_true: the number of targets per example.
      num_sampled: the number of classes to sample.
      unique: sample without repetition.
      range_max: the number of classes.
      seed: op-level random seed.
      name: the op name.

    Returns:
      LogUniformCandidateSampler(sampled_candidates int64 [num_sampled],
      true_expected_count float32 [batch, num_true], sampled_expected_count float32
      [num_sampled]).
    """
    return _sampler("LogUniformCandidateSampler", true_classes, seed, name, num_true=num_true,
                    num_sampled=num_sampled, unique=bool(unique), range_max=range_max)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """Samples classes uniformly from [0, range_max) (`tf.nn.uniform_candidate_sampler`).
    Arguments and result as `log_uniform_candidate_sampler`."""
    return _sampler("UniformCandidateSampler", true_classes, seed, name, num_true=num_true,
                    num_sampled=num_sampled, unique=bool(unique), range_max=range_max)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):
    """Samples classes by how often they have been true classes so far (every class
    starts with a count of 1) (`tf.nn.learned_unigram_candidate_sampler`). Arguments
    and result as `log_uniform_candidate_sampler`."""
    return _sampler("LearnedUnigramCandidateSampler", true_classes, seed, name,
                    num_true=num_true, num_sampled=num_sampled, unique=bool(unique),
                    range_max=range_max)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """Samples classes with fixed unigram weights raised to `distortion`
    (`tf.nn.fixed_unigram_candidate_sampler`).

    Args:
      vocab_file: a file whose lines end in ",<count>" (used instead of `unigrams`).
      distortion: the power applied to each weight.
      num_reserved_ids: leading ids of weight 0.
      num_shards, shard: keep only ids with id % num_shards == shard.
      unigrams: the weights, one per class after the reserved ids.
      Other arguments and the result as `log_uniform_candidate_sampler`.
    """
    return _sampler("FixedUnigramCandidateSampler", true_classes, seed, name,
                    num_true=num_true, num_sampled=num_sampled, unique=bool(unique),
                    range_max=range_max, vocab_file=vocab_file, distortion=float(distortion),
                    num_reserved_ids=num_reserved_ids, num_shards=num_shards, shard=shard,
                    unigrams=[float(u) for u in unigrams])


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """"Samples" every class 0..num_sampled-1, each with expected count 1
    (`tf.nn.all_candidate_sampler`, for testing)."""
    return _sampler("AllCandidateSampler", true_classes, seed, name, num_true=num_true,
                    num_sampled=num_sampled, unique=bool(unique))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Finds the sampled candidates that equal one of an example's true classes
    (`tf.nn.compute_accidental_hits`).

    Args:
      true_classes: int64 Tensor [batch, num_true].
      sampled_candidates: int64 Tensor [num_sampled].
      num_true: the number of true classes per example.
      seed, name: as for the samplers (the op is deterministic).

    Returns:
      ComputeAccidentalHits(indices int32, ids int64, weights float32): for each hit,
      the example row, the position in sampled_candidates, and -FLT_MAX, a weight that
      removes the candidate from a softmax when added to its logit.
    """
    seed1, seed2 = random_seed.get_seed(seed)
    op = apply_op("ComputeAccidentalHits", true_classes=true_classes,
                  sampled_candidates=sampled_candidates, num_true=num_true,
                  seed=seed1 or 0, seed2=seed2 or 0, name=name)
    return _result("ComputeAccidentalHits", op)
