"""String ops input pipelines use: StringSplit / StringSplitV2, StringJoin, ReduceJoin,
Substr, (Static)RegexReplace, StringLength, StringLower / StringUpper."""
import re
import numpy as np

from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.shape import rank as rank_of
from trainflow._src.framework import dtypes
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.shape import expand_dims
from trainflow._src.ops.ragged.ragged_ops import RaggedTensor, \
    convert_to_tensor_or_ragged_tensor

__all__ = ["string_split", "string_split_v2", "string_join", "reduce_join", "substr",
           "regex_replace", "string_length", "string_lower", "string_upper"]


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _b(x):
    return x if isinstance(x, bytes) else str(x).encode()


def _strings(items, shape=None):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out if shape is None else out.reshape(shape)


def _sparse_result(tokens):
    indices = [(i, j) for i, toks in enumerate(tokens) for j in range(len(toks))]
    values = [t for toks in tokens for t in toks]
    return (np.array(indices, dtype=np.int64).reshape(-1, 2), _strings(values),
            np.array([len(tokens), max((len(t) for t in tokens), default=0)], np.int64))


def _check_vector(input):  # noqa: A002
    arr = np.asarray(input, dtype=object)
    if arr.ndim != 1:
        raise _invalid(f"input must be a vector, got shape: [{','.join(map(str, arr.shape))}]")
    return arr


# -- StringSplit (v1: every delimiter byte splits) ------------------------------------------
def _split_v1_kernel(input, delimiter, *, skip_empty):  # noqa: A002
    arr = _check_vector(input)
    delim = _b(np.asarray(delimiter, dtype=object)[()])
    tokens = []
    for s in arr:
        s = _b(s)
        if not delim:
            toks = [s[i:i + 1] for i in range(len(s))]
        else:
            toks = re.split(b"[" + re.escape(delim) + b"]", s)
        if skip_empty:
            toks = [t for t in toks if t]
        tokens.append(toks)
    return _sparse_result(tokens)


def _split_v2_kernel(input, sep, *, maxsplit):  # noqa: A002
    arr = _check_vector(input)
    sep = _b(np.asarray(sep, dtype=object)[()])
    tokens = []
    for s in arr:
        s = _b(s)
        if sep:
            tokens.append(s.split(sep, maxsplit))
        else:
            parts = s.split(None, maxsplit)
            if 0 < maxsplit == len(parts):
                parts.append(b"")  # TF's kernel keeps the (empty) rest after maxsplit splits
            tokens.append(parts)
    return _sparse_result(tokens)


_SPLIT_SHAPES = lambda op: [TensorShape([None, 2]), TensorShape([None]),  # noqa: E731
                            TensorShape([2])]
register_op("StringSplit", inputs=["input: string", "delimiter: string"],
            outputs=["indices: int64", "values: string", "shape: int64"],
            attrs=["skip_empty: bool = true"], shape_fn=_SPLIT_SHAPES, kernel=_split_v1_kernel)
register_op("StringSplitV2", inputs=["input: string", "sep: string"],
            outputs=["indices: int64", "values: string", "shape: int64"],
            attrs=["maxsplit: int = -1"], shape_fn=_SPLIT_SHAPES, kernel=_split_v2_kernel)


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor",
                 name=None):
    """Splits each string of vector `source` at any of the characters of `delimiter`
    (default " "; "" splits into bytes). Returns a SparseTensor, or a RaggedTensor for
    result_type="RaggedTensor"."""
    delimiter = sep if sep is not None else delimiter
    if delimiter is None:
        delimiter = " "
    with name_scope(name, "StringSplit", [source]):
        delim = convert_to_tensor(delimiter, dtype=dtypes.string)
        source = convert_to_tensor(source, dtype=dtypes.string)
        op = apply_op("StringSplit", input=source, delimiter=delim, skip_empty=skip_empty)
        return _split_result(op, result_type)


def _split_result(op, result_type):
    if result_type == "SparseTensor":
        return SparseTensor(*op.outputs)
    if result_type == "RaggedTensor":
        indices, values, shape = op.outputs
        known = op.inputs[0].shape.dims[0].value if op.inputs[0].shape.rank == 1 else None
        nrows = shape[0] if known is None else np.int64(known)
        return RaggedTensor.from_value_rowids(values, indices[:, 0], nrows=nrows,
                                              validate=False)
    raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def _split_v2_ragged(input, sep, maxsplit):  # noqa: A002 - TF's name
    """tf.strings.split's RaggedTensor: one more ragged dimension, at any rank."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(_split_v2_ragged(input.flat_values, sep, maxsplit))
    rank = input.shape.rank
    if rank is None:
        raise ValueError("input must have a statically-known rank.")
    if rank == 0:
        return _split_v2_ragged(expand_dims(input, 0), sep, maxsplit)[0]
    if rank > 1:
        return _split_v2_ragged(RaggedTensor.from_tensor(input, ragged_rank=rank - 1), sep,
                                maxsplit)
    with name_scope(None, "StringSplit", [input]):
        sep = convert_to_tensor(sep if sep is not None else "", dtype=dtypes.string)
        op = apply_op("StringSplitV2", input=input, sep=sep, maxsplit=maxsplit)
        return _split_result(op, "RaggedTensor")


def string_split_v2(input=None, sep=None, maxsplit=-1, result_type="SparseTensor",  # noqa: A002
                    source=None, name=None):
    """Splits each string at `sep` (Python str.split rules; None splits at runs of
    whitespace). Returns a SparseTensor, or a RaggedTensor for result_type="RaggedTensor"
    (`tf.strings.split` in TF1)."""
    if input is None:
        input = source  # noqa: A001
    with name_scope(name, "StringSplit", [input]):
        input = convert_to_tensor_or_ragged_tensor(input, dtype=dtypes.string,  # noqa: A001
                                                   name="input")
        if not isinstance(input, RaggedTensor) and input.shape.rank == 0:
            input = expand_dims(input, 0)  # noqa: A001
        if result_type == "SparseTensor" and not isinstance(input, RaggedTensor) and \
                input.shape.rank == 1:
            sep = convert_to_tensor(sep if sep is not None else "", dtype=dtypes.string)
            op = apply_op("StringSplitV2", input=input, sep=sep, maxsplit=maxsplit)
            return SparseTensor(*op.outputs)
        if result_type == "SparseTensor":
            return _split_v2_ragged(input, sep, maxsplit).to_sparse()
        if result_type == "RaggedTensor":
            return _split_v2_ragged(input, sep, maxsplit)
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


# -- StringJoin / ReduceJoin ---------------------------------------------------------------
def _join_kernel(inputs, *, separator):
    sep = _b(separator)
    arrays = [np.asarray(x, dtype=object) for x in inputs]
    shape = ()
    for a in arrays:
        if a.ndim:
            if shape and a.shape != shape:
                raise _invalid("Input shapes do not match: "
                               f"[{','.join(map(str, shape))}] vs. "
                               f"[{','.join(map(str, a.shape))}]")
            shape = a.shape
    full = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    n = int(np.prod(shape, dtype=np.int64))
    return _strings([sep.join(_b(f[i]) for f in full) for i in range(n)], shape)


def _join_shape(op):
    for t in op._inputs:
        if t._shape.rank != 0:
            return [t._shape]
    return [TensorShape(())]


register_op("StringJoin", inputs=["inputs: N * string"], outputs=["output: string"],
            attrs=["N: int >= 1", "separator: string = ''"], shape_fn=_join_shape,
            kernel=_join_kernel)


def string_join(inputs, separator="", name=None):
    """Joins the strings of `inputs` element-wise (scalars broadcast)."""
    return apply_op("StringJoin", inputs=list(inputs), separator=separator,
                    name=name).outputs[0]


def _reduce_join_kernel(inputs, reduction_indices, *, keep_dims, separator):
    arr = np.asarray(inputs, dtype=object)
    sep = _b(separator)
    axes = []
    for a in np.asarray(reduction_indices).reshape(-1):
        if arr.ndim and not -arr.ndim <= int(a) < arr.ndim:
            raise _invalid(f"Invalid reduction dimension {int(a)} for input with "
                           f"{arr.ndim} dimension(s)")
        a = int(a) % arr.ndim if arr.ndim else 0
        if a not in axes:
            axes.append(a)
    keep = [d for d in range(arr.ndim) if d not in axes]
    # The first listed axis varies fastest in the joined order (TF's rule).
    moved = np.transpose(arr, keep + axes[::-1])
    out_shape = tuple(arr.shape[d] for d in keep)
    flat = moved.reshape(out_shape + (-1,))
    result = _strings([sep.join(_b(x) for x in row) for row in flat.reshape(-1, flat.shape[-1])],
                      out_shape)
    if keep_dims:
        result = result.reshape(tuple(1 if d in axes else arr.shape[d]
                                      for d in range(arr.ndim)))
    return result


def _reduce_join_shape(op):
    shape = op._inputs[0]._shape
    axes = constant_value(op._inputs[1])
    if shape.rank is None or axes is None:
        return [unknown_shape()]
    axes = {int(a) % shape.rank for a in np.asarray(axes).reshape(-1)} if shape.rank else set()
    dims = shape.as_list()
    if op._attrs["keep_dims"]:
        return [TensorShape([1 if i in axes else d for i, d in enumerate(dims)])]
    return [TensorShape([d for i, d in enumerate(dims) if i not in axes])]


register_op("ReduceJoin", inputs=["inputs: string", "reduction_indices: int32"],
            outputs=["output: string"],
            attrs=["keep_dims: bool = false", "separator: string = ''"],
            shape_fn=_reduce_join_shape, kernel=_reduce_join_kernel)


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None):
    """Joins strings across the dimensions `axis` (all of them if None)."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    if axis is None:
        axis = reduction_indices
    with name_scope(name, "ReduceJoin", [inputs]):
        inputs = convert_to_tensor(inputs, dtype=dtypes.string)
        if axis is None:
            rank = inputs.shape.rank
            if rank is None:
                axis = range_(rank_of(inputs) - 1, -1, -1)
            else:
                axis = list(range(rank - 1, -1, -1))
        axis = convert_to_tensor(axis, dtype=dtypes.int32)
        return apply_op("ReduceJoin", inputs=inputs, reduction_indices=axis, keep_dims=keep,
                        separator=separator).outputs[0]


# -- Substr --------------------------------------------------------------------------------
def _substr_kernel(input, pos, len, *, unit):  # noqa: A002
    unit = unit.decode() if isinstance(unit, bytes) else unit
    arr = np.asarray(input, dtype=object)
    shape = np.broadcast_shapes(arr.shape, np.shape(pos), np.shape(len))
    a = np.broadcast_to(arr, shape).reshape(-1)
    p = np.broadcast_to(pos, shape).reshape(-1)
    n = np.broadcast_to(len, shape).reshape(-1)
    out = []
    for i, (s, start, length) in enumerate(zip(a, p, n)):
        s = _b(s)
        seq = s.decode("utf-8") if unit == "UTF8_CHAR" else s
        size = seq.__len__()
        start = int(start)
        if start < -size or start > size:
            raise _invalid(f"pos {start} out of range for string b'{s.decode('utf-8', 'replace')}'"
                           f" at index {i}")
        if start < 0:
            start += size
        piece = seq[start:start + max(int(length), 0)]
        out.append(piece.encode("utf-8") if unit == "UTF8_CHAR" else piece)
    return _strings(out, shape)


register_op("Substr", inputs=["input: string", "pos: T", "len: T"],
            outputs=["output: string"],
            attrs=["T: {int32, int64}", "unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"],
            shape_fn=lambda op: [op._inputs[0]._shape], kernel=_substr_kernel)


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002
    """The substrings of `len` bytes (or UTF-8 characters) starting at `pos` (negative
    `pos` counts from the end)."""
    return apply_op("Substr", input=input, pos=pos, len=len, unit=unit,
                    name=name).outputs[0]


# -- regex_replace -------------------------------------------------------------------------
def _rewrite(rewrite):
    # RE2's \0 is the whole match; Python spells it \g<0>.
    return re.sub(rb"\\0", rb"\\g<0>", rewrite)


def _regex(pattern):
    try:
        return re.compile(pattern)
    except re.error as e:
        raise _invalid(f"Invalid pattern: {pattern.decode('utf-8', 'replace')}, error: {e}") \
            from None


def _static_regex_kernel(input, *, pattern, rewrite, replace_global):  # noqa: A002
    rx, rw = _regex(_b(pattern)), _rewrite(_b(rewrite))
    count = 0 if replace_global else 1
    arr = np.asarray(input, dtype=object)
    return _strings([rx.sub(rw, _b(s), count=count) for s in arr.reshape(-1)], arr.shape)


def _regex_kernel(input, pattern, rewrite, *, replace_global):  # noqa: A002
    return _static_regex_kernel(input, pattern=np.asarray(pattern, dtype=object)[()],
                                rewrite=np.asarray(rewrite, dtype=object)[()],
                                replace_global=replace_global)


register_op("StaticRegexReplace", inputs=["input: string"], outputs=["output: string"],
            attrs=["pattern: string", "rewrite: string", "replace_global: bool = true"],
            shape_fn=lambda op: [op._inputs[0]._shape], kernel=_static_regex_kernel)
register_op("RegexReplace", inputs=["input: string", "pattern: string", "rewrite: string"],
            outputs=["output: string"], attrs=["replace_global: bool = true"],
            shape_fn=lambda op: [op._inputs[0]._shape], kernel=_regex_kernel)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces matches of the regular expression `pattern` with `rewrite` (`\\1`
    references groups)."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return apply_op("StaticRegexReplace", input=input, pattern=pattern, rewrite=rewrite,
                        replace_global=replace_global, name=name).outputs[0]
    return apply_op("RegexReplace", input=input, pattern=pattern, rewrite=rewrite,
                    replace_global=replace_global, name=name).outputs[0]


# -- length, lower, upper ------------------------------------------------------------------
def _length_kernel(input, *, unit):  # noqa: A002
    unit = unit.decode() if isinstance(unit, bytes) else unit
    arr = np.asarray(input, dtype=object)
    count = (lambda s: len(_b(s).decode("utf-8"))) if unit == "UTF8_CHAR" else \
        (lambda s: len(_b(s)))
    out = np.array([count(s) for s in arr.reshape(-1)], dtype=np.int32)
    return out.reshape(arr.shape)


def _case_kernel(upper):
    def kernel(input, *, encoding):  # noqa: A002
        enc = encoding.decode() if isinstance(encoding, bytes) else encoding
        arr = np.asarray(input, dtype=object)
        out = []
        for s in arr.reshape(-1):
            s = _b(s)
            if enc:
                t = s.decode("utf-8")
                out.append((t.upper() if upper else t.lower()).encode("utf-8"))
            else:
                out.append(s.upper() if upper else s.lower())
        return _strings(out, arr.shape)
    return kernel


register_op("StringLength", inputs=["input: string"], outputs=["output: int32"],
            attrs=["unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"],
            shape_fn=lambda op: [op._inputs[0]._shape], kernel=_length_kernel)
register_op("StringLower", inputs=["input: string"], outputs=["output: string"],
            attrs=["encoding: string = ''"], shape_fn=lambda op: [op._inputs[0]._shape],
            kernel=_case_kernel(False))
register_op("StringUpper", inputs=["input: string"], outputs=["output: string"],
            attrs=["encoding: string = ''"], shape_fn=lambda op: [op._inputs[0]._shape],
            kernel=_case_kernel(True))
for _t in ("StringSplit", "StringSplitV2", "StringJoin", "ReduceJoin", "Substr",
           "StaticRegexReplace", "RegexReplace", "StringLength", "StringLower", "StringUpper"):
    NotDifferentiable(_t)


def string_length(input, name=None, unit="BYTE"):  # noqa: A002
    """The length of each string in bytes (or UTF-8 characters)."""
    return apply_op("StringLength", input=input, unit=unit, name=name).outputs[0]


def string_lower(input, encoding="", name=None):  # noqa: A002
    """Lower-cases each string (ASCII, or Unicode with encoding "utf-8")."""
    return apply_op("StringLower", input=input, encoding=encoding, name=name).outputs[0]


def string_upper(input, encoding="", name=None):  # noqa: A002
    """Upper-cases each string (ASCII, or Unicode with encoding "utf-8")."""
    return apply_op("StringUpper", input=input, encoding=encoding, name=name).outputs[0]
