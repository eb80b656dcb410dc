"""UnicodeDecode(WithOffsets), UnicodeEncode, UnicodeTranscode, UnicodeScript and the
`tf.strings.unicode_*` functions built on them (ragged results)."""
__all__ = ["unicode_decode", "unicode_decode_with_offsets", "unicode_encode",
           "unicode_script", "unicode_split", "unicode_split_with_offsets",
           "unicode_transcode"]

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.join import stack
from trainflow._src.ops.array.shape import expand_dims, reshape, shape
from trainflow._src.ops.ragged.ragged_ops import RaggedTensor, \
    convert_to_tensor_or_ragged_tensor
from trainflow._src.ops.string import unicode_kernels as uk

_ERRORS = "errors: {'strict', 'replace', 'ignore'} = 'replace'"
_DECODE_ATTRS = ["input_encoding: string", _ERRORS, "replacement_char: int = 65533",
                 "replace_control_characters: bool = false",
                 "Tsplits: {int32, int64} = DT_INT64"]


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _decode_all(input, *, input_encoding, errors, replacement_char,  # noqa: A002
                replace_control_characters, Tsplits):  # noqa: N803 - TF's attr name
    decode = uk.decoder(input_encoding)
    splits, chars, starts = [0], [], []
    for data in np.asarray(input, dtype=object).reshape(-1).tolist():
        c, s = uk.decode(uk.as_bytes(data), decode, _text(errors), replacement_char,
                         replace_control_characters)
        chars.extend(c)
        starts.extend(s)
        splits.append(len(chars))
    return (np.array(splits, dtypes.as_dtype(Tsplits).as_numpy_dtype),
            np.array(chars, np.int32), np.array(starts, np.int64))


def _decode_kernel(input, *, input_encoding, errors, replacement_char,  # noqa: A002
                   replace_control_characters, Tsplits):  # noqa: N803
    return _decode_all(input, input_encoding=input_encoding, errors=errors,
                       replacement_char=replacement_char,
                       replace_control_characters=replace_control_characters,
                       Tsplits=Tsplits)[:2]


def _decode_shape(op):
    n = op.inputs[0].shape.num_elements() if op.inputs[0].shape.is_fully_defined() else None
    out = [TensorShape([None if n is None else n + 1]), TensorShape([None])]
    return out + [TensorShape([None])] * (len(op.outputs) - 2)


register_op("UnicodeDecode", inputs=["input: string"],
            outputs=["row_splits: Tsplits", "char_values: int32"], attrs=_DECODE_ATTRS,
            shape_fn=_decode_shape, kernel=_decode_kernel)
register_op("UnicodeDecodeWithOffsets", inputs=["input: string"],
            outputs=["row_splits: Tsplits", "char_values: int32",
                     "char_to_byte_starts: int64"], attrs=_DECODE_ATTRS,
            shape_fn=_decode_shape, kernel=_decode_all)


def _encode_kernel(input_values, input_splits, *, errors, output_encoding,
                   replacement_char):
    splits = np.asarray(input_splits)
    values = np.asarray(input_values)
    out = [uk.encode(values[splits[i]:splits[i + 1]], output_encoding, _text(errors),
                     replacement_char) for i in range(len(splits) - 1)]
    return uk.string_array(out, [len(out)])


register_op("UnicodeEncode", inputs=["input_values: int32", "input_splits: Tsplits"],
            outputs=["output: string"],
            attrs=["errors: {'ignore', 'replace', 'strict'} = 'replace'",
                   "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}",
                   "replacement_char: int = 65533", "Tsplits: {int32, int64} = DT_INT64"],
            shape_fn=lambda op: [TensorShape([None if op.inputs[1].shape.dims is None or
                                              op.inputs[1].shape.dims[0].value is None else
                                              op.inputs[1].shape.dims[0].value - 1])],
            kernel=_encode_kernel)


def _transcode_kernel(input, *, input_encoding, output_encoding, errors,  # noqa: A002
                      replacement_char, replace_control_characters):
    arr = np.asarray(input, dtype=object)
    decode = uk.decoder(input_encoding)
    out = []
    for data in arr.reshape(-1).tolist():
        chars, _ = uk.decode(uk.as_bytes(data), decode, _text(errors), replacement_char,
                             replace_control_characters)
        out.append(uk.encode(chars, output_encoding, "replace", replacement_char))
    return uk.string_array(out, arr.shape)


register_op("UnicodeTranscode", inputs=["input: string"], outputs=["output: string"],
            attrs=["input_encoding: string",
                   "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}", _ERRORS,
                   "replacement_char: int = 65533",
                   "replace_control_characters: bool = false"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_transcode_kernel)


def _script_kernel(input):  # noqa: A002
    arr = np.asarray(input)
    return np.array([uk.script(int(c)) for c in arr.reshape(-1).tolist()],
                    np.int32).reshape(arr.shape)


register_op("UnicodeScript", inputs=["input: int32"], outputs=["output: int32"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_script_kernel)
for _op in ("UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeTranscode",
            "UnicodeScript"):
    NotDifferentiable(_op)


def _unicode_decode(input, input_encoding, errors, replacement_char,  # noqa: A002
                    replace_control_characters, with_offsets):
    input = convert_to_tensor_or_ragged_tensor(input, dtype=dtypes.string)
    ndims = input.shape.rank
    if ndims is None:
        raise ValueError("Rank of `input` must be statically known.")
    if ndims > 1:
        if not isinstance(input, RaggedTensor):
            input = RaggedTensor.from_tensor(input, ragged_rank=ndims - 1)
        elif input.ragged_rank < ndims - 1:
            input = input.with_flat_values(RaggedTensor.from_tensor(
                input.flat_values, ragged_rank=ndims - input.ragged_rank - 1))
    flat = reshape(input.flat_values if isinstance(input, RaggedTensor) else input, [-1])
    op = apply_op("UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode",
                  input=flat, input_encoding=input_encoding, errors=errors,
                  replacement_char=replacement_char,
                  replace_control_characters=replace_control_characters)
    results = op.outputs[1:]
    if ndims != 0:
        results = [RaggedTensor.from_row_splits(r, op.outputs[0], validate=False)
                   for r in results]
        if ndims > 1:
            results = [input.with_flat_values(r) for r in results]
    return tuple(results) if with_offsets else results[0]


def unicode_decode(input, input_encoding, errors="replace",  # noqa: A002 - TF's name
                   replacement_char=0xFFFD, replace_control_characters=False, name=None):
    """The code points of each string (a RaggedTensor of int32, one more dimension)."""
    with name_scope(name, "UnicodeDecode", [input]):
        return _unicode_decode(input, input_encoding, errors, replacement_char,
                               replace_control_characters, with_offsets=False)


def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=0xFFFD, replace_control_characters=False,
                                name=None):
    """(code points, byte offset where each starts) of each string."""
    with name_scope(name, "UnicodeDecodeWithOffsets", [input]):
        return _unicode_decode(input, input_encoding, errors, replacement_char,
                               replace_control_characters, with_offsets=True)


def unicode_encode(input, output_encoding, errors="replace",  # noqa: A002 - TF's name
                   replacement_char=65533, name=None):
    """The strings whose code points are the rows of `input` (the last dimension goes)."""
    with name_scope(name, "UnicodeEncode", [input]):
        return _encode(input, output_encoding, errors, replacement_char)


def _encode(input, output_encoding, errors, replacement_char):  # noqa: A002
    tensor = convert_to_tensor_or_ragged_tensor(input)
    ndims = tensor.shape.rank
    if ndims is None:
        raise ValueError("Rank of input_tensor must be statically known.")
    if isinstance(tensor, RaggedTensor):
        if tensor.flat_values.shape.rank > 1:
            return tensor.with_flat_values(_encode(tensor.flat_values, output_encoding,
                                                   errors, replacement_char))
        if tensor.ragged_rank > 1:
            return tensor.with_values(_encode(tensor.values, output_encoding, errors,
                                              replacement_char))
        return apply_op("UnicodeEncode", input_values=tensor.values,
                        input_splits=tensor.row_splits, output_encoding=output_encoding,
                        errors=errors, replacement_char=replacement_char).outputs[0]
    if ndims == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    if ndims == 2:
        return _encode(RaggedTensor.from_tensor(tensor), output_encoding, errors,
                       replacement_char)
    if ndims > 2:
        flat = reshape(tensor, stack([-1, shape(tensor)[-1]]))
        return reshape(_encode(flat, output_encoding, errors, replacement_char),
                       tensor.shape[:-1])
    rt = RaggedTensor.from_row_splits(
        tensor, stack([0, shape(tensor, out_type=dtypes.int32)[0]]), validate=False)
    return reshape(_encode(rt, output_encoding, errors, replacement_char), [])


def _expand_last(rt):
    return rt.with_flat_values(expand_dims(rt.flat_values, 1))


def unicode_split(input, input_encoding, errors="replace",  # noqa: A002 - TF's name
                  replacement_char=0xFFFD, name=None):
    """Each string cut into its characters (each re-encoded in `input_encoding`)."""
    with name_scope(name, "UnicodeSplit", [input]):
        chars = _unicode_decode(input, input_encoding, errors, replacement_char, False,
                                with_offsets=False)
        return unicode_encode(_expand_last(chars) if isinstance(chars, RaggedTensor) else
                              expand_dims(chars, -1), output_encoding=input_encoding,
                              errors=errors, replacement_char=replacement_char)


def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=0xFFFD, name=None):
    """(the characters of each string, the byte offset where each starts)."""
    with name_scope(name, "UnicodeSplitWithOffsets", [input]):
        chars, offsets = _unicode_decode(input, input_encoding, errors, replacement_char,
                                         False, with_offsets=True)
        encoded = unicode_encode(_expand_last(chars) if isinstance(chars, RaggedTensor) else
                                 expand_dims(chars, -1), output_encoding=input_encoding,
                                 errors=errors, replacement_char=replacement_char)
        return encoded, offsets


def unicode_transcode(input, input_encoding, output_encoding,  # noqa: A002 - TF's name
                      errors="replace", replacement_char=65533,
                      replace_control_characters=False, name=None):
    """Each string decoded from `input_encoding` and encoded in `output_encoding`."""
    return apply_op("UnicodeTranscode", input=input, input_encoding=input_encoding,
                    output_encoding=output_encoding, errors=errors,
                    replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters,
                    name=name).outputs[0]


def unicode_script(input, name=None):  # noqa: A002 - TF's name
    """ICU's script code (UScriptCode) of each int32 code point (-1 for none)."""
    return apply_op("UnicodeScript", input=input, name=name).outputs[0]
