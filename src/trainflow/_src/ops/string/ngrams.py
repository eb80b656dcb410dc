"""StringNGrams (`tf.strings.ngrams`) and UnsortedSegmentJoin
(`tf.strings.unsorted_segment_join`)."""
__all__ = ["ngrams", "unsorted_segment_join"]

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import reshape, shape
from trainflow._src.ops.array.shape_util import invalid_argument
from trainflow._src.ops.ragged.ragged_ops import RaggedTensor, \
    convert_to_tensor_or_ragged_tensor
from trainflow._src.ops.string.unicode_kernels import as_bytes, string_array


def _ngrams_kernel(data, data_splits, *, separator, ngram_widths, left_pad, right_pad,
                   pad_width, preserve_short_sequences, Tsplits):  # noqa: N803
    tokens = [as_bytes(x) for x in np.asarray(data, dtype=object).reshape(-1).tolist()]
    splits = np.asarray(data_splits).tolist()
    sep, left, right = as_bytes(separator), as_bytes(left_pad), as_bytes(right_pad)
    if splits and (splits[0] != 0 or splits[-1] != len(tokens) or
                   any(b < a for a, b in zip(splits, splits[1:]))):
        raise invalid_argument("Invalid split value.")

    def pad_of(width):
        return min(width - 1 if pad_width < 0 else pad_width, width - 1)

    def make(row, width, pad, count):
        out = []
        for k in range(count):
            lpad = max(0, pad - k)
            rpad = max(0, pad - (count - (k + 1)))
            start = 0 if lpad > 0 else k - pad
            used = width - (lpad + rpad)
            out.append(sep.join([left] * lpad + row[start:start + used] + [right] * rpad))
        return out

    result, out_splits = [], [0]
    for i in range(len(splits) - 1):
        row = tokens[splits[i]:splits[i + 1]]
        before = len(result)
        for width in ngram_widths:
            pad = pad_of(width)
            count = max(0, len(row) + 2 * pad - width + 1)
            result.extend(make(row, width, pad, count))
        if preserve_short_sequences and row and len(result) == before:
            width = len(row) + 2 * pad_width
            result.extend(make(row, width, pad_of(width), 1))
        out_splits.append(len(result))
    return (string_array(result, [len(result)]),
            np.array(out_splits, dtypes.as_dtype(Tsplits).as_numpy_dtype))


register_op("StringNGrams", inputs=["data: string", "data_splits: Tsplits"],
            outputs=["ngrams: string", "ngrams_splits: Tsplits"],
            attrs=["separator: string", "ngram_widths: list(int) >= 0", "left_pad: string",
                   "right_pad: string", "pad_width: int", "preserve_short_sequences: bool",
                   "Tsplits: {int32, int64} = DT_INT64"],
            shape_fn=lambda op: [TensorShape([None]), op.inputs[1].shape],
            kernel=_ngrams_kernel)
NotDifferentiable("StringNGrams")


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The `ngram_width`-grams (an int or several widths) of the tokens along the last
    dimension of `data`, joined by `separator`, optionally padded with `pad_values`."""
    with name_scope(name, "StringNGrams", [data]):
        if pad_values is None:
            left_pad = right_pad = ""
        elif isinstance(pad_values, (list, tuple)):
            if not all(isinstance(p, (str, bytes)) for p in pad_values[:2]):
                raise TypeError("pad_values must be a string, tuple of strings, or None.")
            left_pad, right_pad = pad_values[0], pad_values[1]
        elif isinstance(pad_values, (str, bytes)):
            left_pad = right_pad = pad_values
        else:
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
        if padding_width is not None and pad_values is None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        data = convert_to_tensor_or_ragged_tensor(data, name="data", dtype=dtypes.string)
        dense_shape = None
        if isinstance(data, Tensor):
            dense_shape = concat([shape(data)[:-1], [-1]], axis=0)
            if data.shape.rank is None:
                raise ValueError("Rank of data must be known.")
            if data.shape.rank == 0:
                raise ValueError("Data must have rank>0")
            if data.shape.rank == 1:
                rt = RaggedTensor.from_row_starts(data, [0], validate=False)
                return ngrams(rt, ngram_width, separator, pad_values, padding_width,
                              preserve_short_sequences)[0]
            data = RaggedTensor.from_tensor(data, ragged_rank=data.shape.rank - 1)
        if data.ragged_rank > 1:
            out = data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                          padding_width, preserve_short_sequences))
            return reshape(out.flat_values, dense_shape) if dense_shape is not None else out
        if pad_values is None:
            padding_width = 0
        elif padding_width is None:
            padding_width = -1
        widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) \
            else [ngram_width]
        if any(w < 1 for w in widths):
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        op = apply_op("StringNGrams", data=data.flat_values, data_splits=data.row_splits,
                      separator=separator, ngram_widths=widths, left_pad=left_pad,
                      right_pad=right_pad, pad_width=padding_width,
                      preserve_short_sequences=preserve_short_sequences)
        out = RaggedTensor.from_row_splits(op.outputs[0], op.outputs[1], validate=False)
        return reshape(out.flat_values, dense_shape) if dense_shape is not None else out


def _segment_join_kernel(inputs, segment_ids, num_segments, *, separator):
    inputs = np.asarray(inputs, dtype=object)
    ids = np.asarray(segment_ids)
    n = int(num_segments)
    if inputs.shape[:ids.ndim] != ids.shape:
        raise invalid_argument(f"data.shape = {list(inputs.shape)} does not start with "
                               f"segment_ids.shape = {list(ids.shape)}")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise invalid_argument("segment_ids are not allowed to exceed num_segments or to "
                               "have negative values.")
    inner = inputs.shape[ids.ndim:]
    rows = inputs.reshape((ids.size,) + inner)
    parts = [[] for _ in range(n)]
    for i, seg in enumerate(ids.reshape(-1).tolist()):
        parts[seg].append(i)
    sep = as_bytes(separator)
    out = np.empty((n,) + inner, dtype=object)
    for s in range(n):
        for idx in np.ndindex(*inner):
            out[(s,) + idx] = sep.join(as_bytes(rows[(i,) + idx]) for i in parts[s])
    return out


def _segment_join_shape(op):
    data, ids = op.inputs[0].shape, op.inputs[1].shape
    n = constant_value(op.inputs[2])
    if data.rank is None or ids.rank is None:
        return [TensorShape(None)]
    if data.rank < ids.rank or not data[:ids.rank].is_compatible_with(ids):
        raise ValueError(f"Shapes {data} and {ids} are incompatible: the shape of inputs must "
                         "start with the shape of segment_ids")
    return [TensorShape([None if n is None else int(n)]).concatenate(data[ids.rank:])]


register_op("UnsortedSegmentJoin",
            inputs=["inputs: string", "segment_ids: Tindices",
                    "num_segments: Tnumsegments"],
            outputs=["output: string"],
            attrs=["separator: string = ''", "Tindices: {int32, int64}",
                   "Tnumsegments: {int32, int64} = DT_INT32"],
            shape_fn=_segment_join_shape, kernel=_segment_join_kernel)
NotDifferentiable("UnsortedSegmentJoin")


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of each segment joined with `separator`, in input order."""
    return apply_op("UnsortedSegmentJoin", inputs=inputs, segment_ids=segment_ids,
                    num_segments=num_segments, separator=separator, name=name).outputs[0]
