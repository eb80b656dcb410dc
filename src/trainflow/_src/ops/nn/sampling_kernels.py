"""NumPy kernels of the candidate samplers and ComputeAccidentalHits.

A sampler draws `num_sampled` class ids from a distribution P over [0, range_max)
and reports the expected number of times each sampled and each true class would
appear in such a draw. With `unique`, ids are drawn until `num_sampled` distinct
ones have appeared after `num_tries` draws, and the expected count of class c is
1 - (1 - P(c)) ** num_tries; otherwise (or when no draw repeated) it is
num_sampled * P(c) — TensorFlow's formulas. The distributions:

- log-uniform (Zipfian): P(c) = log((c + 2) / (c + 1)) / log(range_max + 1);
- uniform: P(c) = 1 / range_max;
- learned unigram: P(c) proportional to 1 + the number of times c appeared among
  the true classes of earlier steps (counts kept per session and op);
- fixed unigram: P(c) proportional to unigrams[c] ** distortion.
"""
import numpy as np

from trainflow._src.framework import errors


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def check_true_classes(true_classes, num_true):
    """Raises InvalidArgumentError unless true_classes is a [batch, num_true] matrix."""
    if true_classes.ndim != 2:
        raise _invalid("true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise _invalid(f"true_classes must have num_true columns, expected: {num_true} was: "
                       f"{true_classes.shape[1]}")


def log_uniform_probability(values, range_max):
    """P(c) of the log-uniform distribution over [0, range_max)."""
    v = np.asarray(values, dtype=np.float64)
    return np.log((v + 2.0) / (v + 1.0)) / np.log(range_max + 1.0)


def log_uniform_draw(rng, n, range_max):
    """`n` draws of the log-uniform distribution (exp of a uniform, minus one)."""
    values = np.exp(rng.random(n) * np.log(range_max + 1.0)).astype(np.int64) - 1
    return values % range_max


def _draw_unique(draw, num_sampled):
    """(distinct ids in order of first appearance, number of draws used)."""
    taken = np.zeros(0, dtype=np.int64)
    tries = 0
    chunk = max(2 * num_sampled, 64)
    while taken.size < num_sampled:
        values = np.asarray(draw(chunk), dtype=np.int64)
        _, first = np.unique(values, return_index=True)
        first.sort()
        fresh = first[~np.isin(values[first], taken)]
        need = num_sampled - taken.size
        if fresh.size >= need:
            fresh = fresh[:need]
            tries += int(fresh[-1]) + 1
        else:
            tries += chunk
        taken = np.concatenate([taken, values[fresh]])
    return taken, tries


def _expected(prob, num_sampled, tries):
    if tries == num_sampled:
        return prob * num_sampled
    return -np.expm1(tries * np.log1p(-prob))


def sample(rng, true_classes, num_sampled, unique, range_max, draw, probability):
    """Draws candidates and computes expected counts.

    Args:
      rng: a NumPy Generator.
      true_classes: int64 [batch, num_true].
      draw: ``draw(n) -> n int ids`` from the distribution.
      probability: ``probability(ids) -> P(ids)`` as float64.

    Returns:
      (sampled int64 [num_sampled], true_expected float32 [batch, num_true],
      sampled_expected float32 [num_sampled]).

    Raises:
      InvalidArgumentError: if `unique` and num_sampled > range_max.
    """
    if unique and num_sampled > range_max:
        raise _invalid("Sampler's range is too small.")
    if unique:
        sampled, tries = _draw_unique(draw, num_sampled)
    else:
        sampled, tries = np.asarray(draw(num_sampled), dtype=np.int64), num_sampled
    true_expected = _expected(probability(true_classes), num_sampled, tries)
    sampled_expected = _expected(probability(sampled), num_sampled, tries)
    return (sampled.astype(np.int64), true_expected.astype(np.float32),
            sampled_expected.astype(np.float32))


class UnigramWeights:
    """Per-class weights of a unigram sampler with a cumulative table for drawing."""

    def __init__(self, weights):
        self.weights = np.asarray(weights, dtype=np.float64)
        self._cumsum = None

    def update(self, values):
        """Adds 1 to the weight of every id in `values` (repeats count)."""
        np.add.at(self.weights, np.asarray(values, dtype=np.int64).reshape(-1), 1.0)
        self._cumsum = None

    def probability(self, values):
        values = np.asarray(values, dtype=np.int64)
        total = self.weights.sum()
        inside = (values >= 0) & (values < self.weights.size)
        safe = np.where(inside, values, 0)
        return np.where(inside, self.weights[safe] / total, 0.0)

    def draw(self, rng, n):
        if self._cumsum is None:
            self._cumsum = np.cumsum(self.weights)
        u = rng.random(n) * self._cumsum[-1]
        return np.minimum(np.searchsorted(self._cumsum, u, side="right"),
                          self.weights.size - 1)


def fixed_unigram_weights(range_max, unigrams, vocab_file, distortion, num_reserved_ids,
                          num_shards, shard):
    """The weights of FixedUnigramCandidateSampler: reserved ids weigh 0, then one weight
    per unigram (or per line of `vocab_file`, whose last comma-separated field is the
    count), raised to `distortion`; with sharding only ids with id % num_shards == shard
    are kept (and renumbered from 0).

    Raises:
      InvalidArgumentError: if the number of weights differs from range_max or the
        vocabulary file cannot be read.
    """
    counts = list(unigrams)
    if vocab_file:
        path = vocab_file.decode() if isinstance(vocab_file, bytes) else vocab_file
        try:
            with open(path, encoding="utf-8") as f:
                counts = [float(line.rsplit(",", 1)[-1]) for line in f if line.strip()]
        except (OSError, ValueError) as e:
            raise _invalid(f"Cannot read the vocabulary file {path}: {e}") from None
    weights = []
    for word_id in range(num_reserved_ids + len(counts)):
        if word_id % num_shards != shard:
            continue
        if word_id < num_reserved_ids:
            weights.append(0.0)
        else:
            weights.append(float(counts[word_id - num_reserved_ids]) ** distortion)
    if len(weights) != range_max:
        raise _invalid(f"range_max must equal the number of sampler weights: {range_max} vs "
                       f"{len(weights)}")
    return UnigramWeights(weights)


def compute_accidental_hits(true_classes, sampled_candidates, *, num_true):
    """For each true class that also appears among the sampled candidates: (row,
    position in sampled_candidates (the last one for repeats), -FLT_MAX).

    Returns:
      (indices int32, ids int64, weights float32), rows in batch order.

    Raises:
      InvalidArgumentError: for bad shapes.
    """
    if true_classes.ndim != 2:
        raise _invalid("true_classes must be a matrix")
    if sampled_candidates.ndim != 1:
        raise _invalid("sampled_candidates must be a vector")
    if true_classes.shape[1] != num_true:
        raise _invalid(f"true_classes must have num_true columns, expected: {num_true} was: "
                       f"{true_classes.shape[1]}")
    # The last position of each distinct sampled id, looked up for every true class.
    distinct, first_from_end = np.unique(sampled_candidates[::-1], return_index=True)
    last_position = sampled_candidates.size - 1 - first_from_end
    flat = true_classes.reshape(-1)
    slot = np.minimum(np.searchsorted(distinct, flat), max(distinct.size - 1, 0))
    hit = distinct[slot] == flat if distinct.size else np.zeros(flat.shape, dtype=bool)
    rows = np.repeat(np.arange(true_classes.shape[0]), num_true)[hit]
    ids = last_position[slot[hit]]
    weights = np.full(len(rows), -np.finfo(np.float32).max, dtype=np.float32)
    return np.array(rows, dtype=np.int32), np.array(ids, dtype=np.int64), weights
