"""Connectionist temporal classification: the CTCLoss, CTCGreedyDecoder and
CTCBeamSearchDecoder ops (TF's signatures, shape functions, NumPy kernels, CTCLoss's
gradient) and the `tf.nn` functions that build them, as TensorFlow 1.15 builds them:
`ctc_loss`, `ctc_loss_v2`, `ctc_greedy_decoder`, `ctc_beam_search_decoder(_v2)`,
`ctc_unique_labels` and `collapse_repeated`.

The blank is the last class for the ops; `ctc_loss_v2` moves another blank index there.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array import cast, create, gather, join, layout, shape
from trainflow._src.ops.array.shape_util import dims_of, merge_dim, with_rank
from trainflow._src.ops.control_flow.functional_ops import map_fn
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.nn import ctc_beam_kernels, ctc_kernels
from trainflow._src.ops.nn.math_util import broadcast_mul

__all__ = ["collapse_repeated", "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2",
           "ctc_greedy_decoder", "ctc_loss", "ctc_loss_v2", "ctc_unique_labels"]

_T = "T: {float, double} = DT_FLOAT"


def _batch_dim(op):
    inputs = with_rank(dims_of(op.inputs[0]), 3)
    seq = with_rank(dims_of(op.inputs[-1] if op.type == "CTCLoss" else op.inputs[1]), 1)
    return inputs, merge_dim(inputs[1], seq[0])


def _ctc_loss_shape(op):
    inputs, batch = _batch_dim(op)
    indices = with_rank(dims_of(op.inputs[1]), 2)
    values = with_rank(dims_of(op.inputs[2]), 1)
    merge_dim(indices[0], values[0])
    merge_dim(indices[1], 2)
    return [TensorShape([batch]), TensorShape([inputs[0], batch, inputs[2]])]


def _greedy_shape(op):
    _, batch = _batch_dim(op)
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2]),
            TensorShape([batch, 1])]


def _beam_shape(op):
    _, batch = _batch_dim(op)
    n = op.get_attr("top_paths")
    return ([TensorShape([None, 2])] * n + [TensorShape([None])] * n + [TensorShape([2])] * n
            + [TensorShape([batch, n])])


register_op("CTCLoss", inputs=["inputs: T", "labels_indices: int64", "labels_values: int32",
                               "sequence_length: int32"],
            outputs=["loss: T", "gradient: T"],
            attrs=["preprocess_collapse_repeated: bool = false",
                   "ctc_merge_repeated: bool = true",
                   "ignore_longer_outputs_than_inputs: bool = false", _T],
            shape_fn=_ctc_loss_shape, kernel=ctc_kernels.ctc_loss)
register_op("CTCGreedyDecoder", inputs=["inputs: T", "sequence_length: int32"],
            outputs=["decoded_indices: int64", "decoded_values: int64",
                     "decoded_shape: int64", "log_probability: T"],
            attrs=["merge_repeated: bool = false", "blank_index: int = -1", _T],
            shape_fn=_greedy_shape, kernel=ctc_kernels.ctc_greedy_decoder)
register_op("CTCBeamSearchDecoder", inputs=["inputs: T", "sequence_length: int32"],
            outputs=["decoded_indices: top_paths * int64", "decoded_values: top_paths * int64",
                     "decoded_shape: top_paths * int64", "log_probability: T"],
            attrs=["beam_width: int >= 1", "top_paths: int >= 1",
                   "merge_repeated: bool = true", _T],
            shape_fn=_beam_shape, kernel=ctc_beam_kernels.ctc_beam_search_decoder)
NotDifferentiable("CTCGreedyDecoder")
NotDifferentiable("CTCBeamSearchDecoder")


@RegisterGradient("CTCLoss")
def _ctc_loss_grad(op, grad_loss, _):
    # The fused gradient output, scaled per batch entry; no second derivative.
    grad = cast.prevent_gradient(
        op.outputs[1], message="Currently there is no way to take the second  derivative of "
        "ctc_loss due to the fused implementation's interaction  with tf.gradients()")
    return [broadcast_mul(grad_loss, grad), None, None, None]


# -- tf.nn functions ------------------------------------------------------------------------------
def _low_precision(dtype):
    return dtype.base_dtype in (dtypes.float16, dtypes.bfloat16)


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False,
             time_major=True, logits=None):
    """The CTC loss (`tf.compat.v1.nn.ctc_loss`): minus the log probability of `labels`
    given the logits, one value per batch entry; the blank is the last class.

    Args:
      labels: an int32 SparseTensor [batch, max_label_length] of labels < num_classes - 1.
      inputs: float logits [max_time, batch, num_classes] ([batch, max_time, ...] when not
        `time_major`); `logits` is its other spelling.
      sequence_length: int32 [batch], the frames of each entry.
      preprocess_collapse_repeated: merge repeated labels before the loss.
      ctc_merge_repeated: repeated non-blank outputs stand for one label.
      ignore_longer_outputs_than_inputs: loss 0 (instead of an error) for entries with
        more labels than frames.

    Raises:
      TypeError: if `labels` is not a SparseTensor.
    """
    if not isinstance(labels, SparseTensor):
        raise TypeError(f"Expected argument `labels` to be a SparseTensor. Received "
                        f"labels={labels} of type: {type(labels).__name__}")
    if logits is not None and inputs is not None:
        raise ValueError("Cannot specify both 'logits' and 'inputs'")
    inputs = convert_to_tensor(logits if inputs is None else inputs, name="logits")
    if not time_major:
        inputs = layout.transpose(inputs, [1, 0, 2])
    orig = inputs.dtype.base_dtype
    if _low_precision(orig):
        inputs = cast.cast(inputs, dtypes.float32)
    loss = apply_op("CTCLoss", inputs=inputs, labels_indices=labels.indices,
                    labels_values=labels.values, sequence_length=sequence_length,
                    preprocess_collapse_repeated=preprocess_collapse_repeated,
                    ctc_merge_repeated=ctc_merge_repeated,
                    ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs
                    ).outputs[0]
    return cast.cast(loss, orig) if _low_precision(orig) else loss


def _num_classes(logits):
    dim = dims_of(logits)[2] if dims_of(logits) is not None else None
    return dim if dim is not None else shape.shape(logits)[2]


def _blank_last(logits, labels_values, blank_index):
    """Moves class `blank_index` of the logits last and renumbers the labels above it."""
    logits = join.concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                          logits[:, :, blank_index:blank_index + 1]], axis=2)
    values = gather.where(arith.less(labels_values, blank_index), labels_values,
                          arith.subtract(labels_values, 1))
    return logits, values


def _dense_to_sparse(dense, length):
    """int32 SparseTensor of the first length[b] labels of each row of `dense`."""
    mask = create.sequence_mask(length, maxlen=shape.shape(dense)[1])
    indices = gather.where(mask)
    values = cast.cast(gather.boolean_mask(dense, mask), dtypes.int32)
    max_length = cast.cast(reductions.reduce_max(length), dtypes.int64)
    batch = cast.cast(shape.shape(dense)[0], dtypes.int64)
    return SparseTensor(indices, values, join.stack([batch, max_length]))


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True,
                unique=None, blank_index=None, name=None):
    """The CTC loss with dense or sparse labels and a chosen blank
    (`tf.compat.v1.nn.ctc_loss_v2`).

    Args:
      labels: int [batch, max_label_length] padded labels, or a SparseTensor.
      logits: float [frames, batch, num_labels] (batch first unless `logits_time_major`).
      label_length: int [batch], the labels of each row (None for sparse labels).
      logit_length: int [batch], the frames of each entry.
      unique: the result of `ctc_unique_labels(labels)` (a speed-up in TensorFlow; the
        value is the same without it).
      blank_index: the blank class (default 0 for dense labels; required for sparse).

    Raises:
      ValueError: for sparse labels without `blank_index`.
    """
    del unique  # only a speed-up: the loss is the same
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when labels is a "
                             "SparseTensor.")
        return _ctc_loss_blank(labels, logits, logit_length, logits_time_major, blank_index)
    with name_scope(name, "ctc_loss_dense", [logits, labels, label_length, logit_length]):
        labels = convert_to_tensor(labels, name="labels")
        label_length = convert_to_tensor(label_length, name="label_length")
        return _ctc_loss_blank(_dense_to_sparse(labels, label_length), logits, logit_length,
                               logits_time_major, 0 if blank_index is None else blank_index)


def _ctc_loss_blank(labels, logits, logit_length, time_major, blank_index):
    """`ctc_loss` of SparseTensor labels whose blank is class `blank_index`."""
    logits = convert_to_tensor(logits, name="logits")
    num_classes = _num_classes(logits)
    if blank_index < 0:
        blank_index += num_classes
    if not isinstance(num_classes, int) or blank_index != num_classes - 1:
        logits, values = _blank_last(logits, labels.values, blank_index)
        labels = SparseTensor(labels.indices, values, labels.dense_shape)
    return ctc_loss(labels, inputs=logits, sequence_length=logit_length,
                    time_major=time_major)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding (`tf.nn.ctc_greedy_decoder`).

    Returns:
      ([decoded SparseTensor [batch, max_decoded_length] int64], neg_sum_logits
      [batch, 1]).
    """
    kwargs = {} if blank_index is None else {"blank_index": blank_index}
    ix, val, dense_shape, log_probs = apply_op(
        "CTCGreedyDecoder", inputs=inputs, sequence_length=sequence_length,
        merge_repeated=merge_repeated, **kwargs).outputs
    return [SparseTensor(ix, val, dense_shape)], log_probs


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1,
                            merge_repeated=True):
    """Prefix beam search (`tf.compat.v1.nn.ctc_beam_search_decoder`).

    Returns:
      ([top_paths decoded SparseTensors], log_probability [batch, top_paths]).
    """
    outputs = apply_op("CTCBeamSearchDecoder", inputs=inputs, sequence_length=sequence_length,
                       beam_width=beam_width, top_paths=top_paths,
                       merge_repeated=merge_repeated).outputs
    n = top_paths
    return ([SparseTensor(outputs[i], outputs[n + i], outputs[2 * n + i]) for i in range(n)],
            outputs[3 * n])


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """`ctc_beam_search_decoder` without merging repeated labels (TF2's decoder)."""
    return ctc_beam_search_decoder(inputs, sequence_length=sequence_length,
                                   beam_width=beam_width, top_paths=top_paths,
                                   merge_repeated=False)


def ctc_unique_labels(labels, name=None):
    """The unique labels of each row (zero-padded, int64) and each label's index among
    them (int32), as `tf.nn.ctc_unique_labels`."""
    with name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def _unique(x):
            u = gather.unique(x)
            y = layout.pad(u.y, [[0, arith.subtract(shape.shape(u.idx)[0],
                                                    shape.shape(u.y)[0])]])
            return [cast.cast(y, dtypes.int64), u.idx]

        return map_fn(_unique, labels, dtype=[dtypes.int64, dtypes.int32])


def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of equal labels in each row (`tf.nn.collapse_repeated`).

    Returns:
      (collapsed labels [batch, new max length], zero-padded; the new lengths).
    """
    with name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        label_mask = join.concat([create.ones_like(labels[:, :1], dtypes.bool),
                                  arith.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
        maxlen = dims_of(labels)[1] if dims_of(labels) is not None else None
        seq_mask = create.sequence_mask(
            seq_length, maxlen=maxlen if maxlen is not None else shape.shape(labels)[1])
        label_mask = arith.logical_and(label_mask, seq_mask)
        new_seq_len = reductions.reduce_sum(cast.cast(label_mask, dtypes.int32), axis=1)
        new_maxlen = reductions.reduce_max(new_seq_len)
        idx_mask = create.sequence_mask(new_seq_len, maxlen=new_maxlen)
        flat = gather.scatter_nd(gather.where(idx_mask), gather.boolean_mask(labels, label_mask),
                                 cast.cast(shape.shape(idx_mask), dtypes.int64))
        return flat, cast.cast(new_seq_len, seq_length.dtype)
