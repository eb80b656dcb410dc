"""NumPy kernels of CTCLoss and CTCGreedyDecoder, with TensorFlow's checks and messages.

CTCLoss runs Graves' forward-backward recursion in log space, vectorized over the batch
and the positions of the blank-interleaved label sequences (one NumPy step per time
step). Its rules are TensorFlow's (`ctc_loss_calculator.h`): the blank is the last
class; a label >= num_classes - 1 ends the sequence (a later real label is an error);
the "required time" is the raw label count; with `ignore_longer_outputs_than_inputs` an
entry whose labels outnumber its frames gets loss 0 and gradient 0; an entry with no
valid alignment gets loss inf and the softmax as its gradient. The gradient output is
d loss / d logits: softmax(logits) minus the label occupancies, zero past each
sequence's end.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.array.shape_util import fmt_dims, invalid_argument

_ORDER_HINT = ("Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create "
               "a correctly ordered copy.\n\n")


def _labels_invalid(message):
    return invalid_argument("label SparseTensor is not valid: " + message)


def _validate_label_indices(idx, shape):
    """SparseTensor::IndicesValid for [N, 2] indices in row-major order."""
    n = idx.shape[0]
    limits = np.asarray(shape, np.int64)
    for i in range(n):
        row = idx[i]
        text = "[" + ",".join(str(int(v)) for v in row) + "]"
        if (row < 0).any() or (row >= limits).any():
            raise _labels_invalid(f"indices[{i}] = {text} is out of bounds: need 0 <= index < "
                                  f"{fmt_dims(shape)}")
        if i and tuple(row) <= tuple(idx[i - 1]):
            if tuple(row) == tuple(idx[i - 1]):
                raise _labels_invalid(f"indices[{i}] = {text} is repeated")
            raise _labels_invalid(f"indices[{i}] = {text} is out of order. " + _ORDER_HINT)


def label_sequences(labels_indices, labels_values, batch_size):
    """The label sequence of each batch entry, from a valid [batch, time] SparseTensor."""
    max_len = int(labels_indices[:, 1].max()) + 1 if labels_indices.shape[0] else 0
    shape = (batch_size, max(max_len, 0))
    limits = np.array(shape, np.int64)
    keys = labels_indices[:, 0] * max(max_len, 1) + labels_indices[:, 1]
    if (labels_indices < 0).any() or (labels_indices >= limits).any() or \
            (np.diff(keys) <= 0).any():
        _validate_label_indices(labels_indices, shape)
    bounds = np.searchsorted(labels_indices[:, 0], np.arange(batch_size + 1))
    return [labels_values[bounds[b]:bounds[b + 1]].astype(np.int64) for b in range(batch_size)]


def _check_loss_inputs(inputs, labels_indices, labels_values, sequence_length):
    if inputs.ndim != 3:
        raise invalid_argument("inputs is not a 3-Tensor")
    if sequence_length.ndim != 1:
        raise invalid_argument("sequence_length is not a vector")
    if labels_indices.ndim != 2:
        raise invalid_argument("labels_indices is not a matrix")
    if labels_indices.shape[1] <= 1:
        raise invalid_argument(f"labels_indices second dimension must be >= 1. Received "
                               f"{labels_indices.shape[1]}")
    if labels_values.ndim != 1:
        raise invalid_argument("labels_values is not a vector")
    max_time, batch_size, _ = inputs.shape
    if max_time == 0:
        raise invalid_argument("Max time or first dimension of input cannot be 0.")
    if sequence_length.shape[0] != batch_size:
        raise invalid_argument(f"len(sequence_length) != batch_size.  len(sequence_length):  "
                               f"{sequence_length.shape[0]} batch_size: {batch_size}")
    if labels_indices.shape[0] != labels_values.shape[0]:
        raise invalid_argument(f"labels_indices and labels_values must contain the same number "
                               f"of rows, but saw shapes: {fmt_dims(labels_indices.shape)} vs. "
                               f"{fmt_dims(labels_values.shape)}")
    if batch_size == 0:
        raise invalid_argument("batch_size must not be 0")


def _target_labels(label, b, num_classes, seq_len, collapse, ignore_longer):
    """PopulateLPrimes for one entry: the labels to align, or None to skip the entry."""
    if label.size == 0:
        raise invalid_argument(f"Labels length is zero in batch {b}")
    kept, finished = [], False
    for i, v in enumerate(label.tolist()):
        if i and collapse and v == label[i - 1]:
            continue
        if v >= num_classes - 1:
            finished = True
        elif finished:
            raise invalid_argument(
                f"Saw a non-null label (index >= num_classes - 1) following a null label, "
                f"batch: {b} num_classes: {num_classes} labels: "
                f"{','.join(map(str, label.tolist()))} labels seen so far: "
                f"{','.join(map(str, kept))}")
        else:
            kept.append(v)
    if any(v < 0 for v in kept):
        raise invalid_argument(f"All labels must be nonnegative integers, batch: {b} labels: "
                               f"{','.join(map(str, kept))}")
    if label.size > seq_len:
        if ignore_longer:
            return None
        raise invalid_argument(
            f"Not enough time for target transition sequence (required: {label.size}, "
            f"available: {seq_len}){b}You can turn this error into a warning by using the "
            f"flag ignore_longer_outputs_than_inputs")
    return kept


def _lattice(targets, blank):
    """Blank-interleaved label sequences [B, S] (blank-padded) and their lengths."""
    size = 2 * max((len(t) for t in targets if t is not None), default=0) + 1
    lp = np.full((len(targets), size), blank, np.int64)
    lengths = np.zeros(len(targets), np.int64)
    for b, t in enumerate(targets):
        if t is not None:
            lp[b, 1:2 * len(t):2] = t
            lengths[b] = 2 * len(t) + 1
    return lp, lengths


def _lse3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)) elementwise, -inf where all three are -inf."""
    m = np.maximum(np.maximum(a, b), c)
    m[m == -np.inf] = 0
    total = np.exp(a - m)
    total += np.exp(b - m)
    total += np.exp(c - m)
    with np.errstate(divide="ignore"):
        return np.log(total, out=total) + m


def _mask(condition, dtype):
    """0 where `condition` holds, -inf elsewhere: added, it removes a transition."""
    return np.where(condition, 0, -np.inf).astype(dtype)


def _forward_backward(log_y, lp, lengths, seq, merge, blank):
    """(log alpha, log beta), each [T, B, S]; beta excludes the frame's own probability."""
    max_time, batch, size = log_y.shape[0], lp.shape[0], lp.shape[1]
    dtype = log_y.dtype
    neg = np.array(-np.inf, dtype)
    pos = np.arange(size)
    valid = pos[None, :] < lengths[:, None]
    is_blank = lp == blank
    same = np.zeros_like(is_blank)
    same[:, 2:] = lp[:, 2:] == lp[:, :-2]
    skip = (pos[None, :] >= 2) & ~is_blank & ~(merge & same)
    stay = _mask(merge | is_blank, dtype)
    skip_to, skip_from = _mask(skip, dtype), np.full((batch, size), neg)
    skip_from[:, :-2] = skip_to[:, 2:]
    ly = log_y[:, np.arange(batch)[:, None], lp]
    ly[:, ~valid] = neg
    alive = _mask(np.arange(max_time)[:, None] < seq[None, :], dtype)[:, :, None]
    alpha = np.full((max_time, batch, size), neg)
    alpha[0, :, :2] = ly[0, :, :2]
    one, two = np.full((batch, size), neg), np.full((batch, size), neg)
    for t in range(1, max_time):
        prev = alpha[t - 1]
        one[:, 1:] = prev[:, :-1]
        two[:, 2:] = prev[:, :-2]
        alpha[t] = _lse3(prev + stay, one, two + skip_to) + ly[t] + alive[t]
    beta = np.full((max_time, batch, size), neg)
    end = _mask(valid & (pos[None, :] >= lengths[:, None] - 2), dtype)
    last = seq - 1
    before = _mask(np.arange(max_time)[:, None] < last[None, :], dtype)[:, :, None]
    one, two = np.full((batch, size), neg), np.full((batch, size), neg)
    for t in range(max_time - 1, -1, -1):
        if t + 1 < max_time:
            nxt = beta[t + 1] + ly[t + 1]
            one[:, :-1] = nxt[:, 1:]
            two[:, :-2] = nxt[:, 2:]
            beta[t] = _lse3(nxt + stay, one, two + skip_from) + before[t]
        rows = np.flatnonzero(last == t)
        if rows.size:
            beta[t, rows] = end[rows]
    return alpha, beta


def _softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    y = np.exp(shifted)
    y /= y.sum(axis=-1, keepdims=True)
    return y


def ctc_loss(inputs, labels_indices, labels_values, sequence_length, *,
             preprocess_collapse_repeated=False, ctc_merge_repeated=True,
             ignore_longer_outputs_than_inputs=False):
    """CTCLoss: (loss [batch], gradient [max_time, batch, num_classes]) for time-major logits.

    Raises:
      InvalidArgumentError: for malformed inputs or labels, in TensorFlow's words.
    """
    _check_loss_inputs(inputs, labels_indices, labels_values, sequence_length)
    max_time, batch, num_classes = inputs.shape
    labels = label_sequences(labels_indices, labels_values, batch)
    seq = sequence_length.astype(np.int64)
    for b in range(batch):
        if seq[b] > max_time:
            raise invalid_argument(f"sequence_length({b}) <= {max_time}")
    for b in range(batch):
        if seq[b] < 0:
            raise invalid_argument(f"seq_len({b}) < 0")
    targets = [_target_labels(labels[b], b, num_classes, int(seq[b]),
                              preprocess_collapse_repeated, ignore_longer_outputs_than_inputs)
               for b in range(batch)]
    frames = (np.arange(max_time)[:, None] < seq[None, :])
    run = np.array([t is not None for t in targets])
    active = frames & run[None, :]
    x = np.where(active[:, :, None], inputs, 0).astype(inputs.dtype, copy=False)
    y = _softmax(x)
    with np.errstate(divide="ignore"):
        log_y = np.log(y)
    lp, lengths = _lattice(targets, num_classes - 1)
    alpha, beta = _forward_backward(log_y, lp, lengths, np.where(run, seq, 0),
                                     bool(ctc_merge_repeated), num_classes - 1)
    log_p = np.logaddexp.reduce(alpha[0] + beta[0], axis=-1)
    loss = np.where(run, -log_p, 0).astype(inputs.dtype)
    found = np.isfinite(log_p)
    with np.errstate(invalid="ignore", over="ignore"):
        occupancy = np.exp(alpha + beta - np.where(found, log_p, 0)[None, :, None])
    occupancy[:, ~found] = 0
    onehot = (lp[:, :, None] == np.arange(num_classes)) & (
        np.arange(lp.shape[1])[None, :] < lengths[:, None])[:, :, None]
    # The occupancy of each class: a batched matmul with the positions' one-hot labels.
    grad = y - np.matmul(occupancy.transpose(1, 0, 2),
                         onehot.astype(y.dtype)).transpose(1, 0, 2)
    grad[~active] = 0
    return loss, grad.astype(inputs.dtype, copy=False)


# -- decoders -------------------------------------------------------------------------------------
def check_decoder_inputs(inputs, sequence_length):
    """CTCDecodeHelper's checks. Returns (max_time, batch, num_classes)."""
    if inputs.ndim != 3:
        raise invalid_argument("inputs is not a 3-Tensor")
    if inputs.size == 0:
        raise invalid_argument("inputs must not be empty")
    max_time, batch, num_classes = inputs.shape
    if sequence_length.ndim != 1:
        raise invalid_argument("sequence_length is not a vector")
    if sequence_length.shape[0] != batch:
        raise errors.FailedPreconditionError(
            None, None, f"len(sequence_length) != batch_size.  len(sequence_length):  "
            f"{sequence_length.shape[0]} batch_size: {batch}")
    for b in range(batch):
        if sequence_length[b] > max_time:
            raise errors.FailedPreconditionError(None, None,
                                                 f"sequence_length({b}) <= {max_time}")
    return max_time, batch, num_classes


def sparse_paths(paths, batch):
    """(indices [N, 2], values [N], dense shape [2]) as int64 from one path per entry."""
    lengths = [len(p) for p in paths]
    rows = np.repeat(np.arange(batch, dtype=np.int64), lengths)
    cols = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]) if batch else \
        np.zeros(0, np.int64)
    values = np.fromiter((v for p in paths for v in p), np.int64, count=sum(lengths))
    shape = np.array([batch, max(lengths, default=0)], np.int64)
    return np.stack([rows, cols], axis=1).reshape(-1, 2), values, shape


def ctc_greedy_decoder(inputs, sequence_length, *, merge_repeated=False, blank_index=-1):
    """CTCGreedyDecoder: the best class per frame, repeats merged, blanks dropped.

    Returns:
      (decoded indices, values, dense shape, log_probability [batch, 1]); the log
      probability is minus the sum of each frame's largest logit.
    """
    max_time, batch, num_classes = check_decoder_inputs(inputs, sequence_length)
    blank = blank_index + num_classes if blank_index < 0 else blank_index
    x = inputs.transpose(1, 0, 2)  # [batch, time, classes]: the result's row order
    best = np.argmax(x, axis=2)
    top = np.take_along_axis(x, best[:, :, None], axis=2)[:, :, 0]
    frames = np.arange(max_time)[None, :] < sequence_length[:, None]
    log_prob = -np.where(frames, top, 0).sum(axis=1, dtype=inputs.dtype)
    keep = frames & (best != blank)
    if merge_repeated:
        keep[:, 1:] &= best[:, 1:] != best[:, :-1]
    rows, _ = np.nonzero(keep)
    counts = keep.sum(axis=1)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    cols = np.arange(rows.size) - np.repeat(starts, counts)
    indices = np.stack([rows, cols], axis=1).astype(np.int64).reshape(-1, 2)
    values = best[keep].astype(np.int64)
    shape = np.array([batch, counts.max(initial=0)], np.int64)
    return indices, values, shape, log_prob.reshape(batch, 1).astype(inputs.dtype)
