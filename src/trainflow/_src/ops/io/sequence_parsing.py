"""parse_sequence_example and parse_single_sequence_example (ParseSequenceExampleV2)."""
import numpy as np

from trainflow._src.ops.array.shape import reshape
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.io import example_parser
from trainflow._src.ops.io.parsing_config import (
    FixedLenFeature, FixedLenSequenceFeature, ParseParams, VarLenFeature)

__all__ = ["parse_sequence_example", "parse_single_sequence_example"]

_T3 = "{float, int64, string}"


def _np(t):
    return object if t == dtypes.string else t.as_numpy_dtype


def _keys(arr):
    return [k.decode() if isinstance(k, bytes) else str(k) for k in np.asarray(arr).reshape(-1)]


def _kernel(serialized, debug_name, context_sparse_keys, context_dense_keys,
            context_ragged_keys, feature_list_sparse_keys, feature_list_dense_keys,
            feature_list_ragged_keys, feature_list_dense_missing_assumed_empty,
            context_dense_defaults, *, context_sparse_types, Tcontext_dense,
            context_dense_shapes, feature_list_sparse_types, feature_list_dense_types,
            feature_list_dense_shapes):
    ctx = (_keys(context_sparse_keys), [_np(t) for t in context_sparse_types],
           _keys(context_dense_keys), [_np(t) for t in Tcontext_dense],
           [tuple(s.as_list()) for s in context_dense_shapes],
           [np.asarray(d, dtype=_np(t)) for d, t in zip(context_dense_defaults, Tcontext_dense)])
    fl = (_keys(feature_list_sparse_keys), [_np(t) for t in feature_list_sparse_types],
          _keys(feature_list_dense_keys), [_np(t) for t in feature_list_dense_types],
          [tuple(s.as_list()) for s in feature_list_dense_shapes])
    (ci, cv, cs, cd), (fi, fv, fs, fd, flen) = example_parser.parse_sequence_example(
        np.asarray(serialized, dtype=object), np.asarray(debug_name, dtype=object).reshape(-1),
        ctx, fl, [bool(b) for b in np.asarray(feature_list_dense_missing_assumed_empty)
                  .reshape(-1)])
    out = ci + cv + cs + cd + fi + fv + fs + fd + flen
    return out[0] if len(out) == 1 else tuple(out)


def _shapes(op):
    a = op._attrs
    batch = op._inputs[0]._shape
    prefix = [] if batch.rank == 0 else [None]
    r = len(prefix)
    nc, nf = a["Ncontext_sparse"], a["Nfeature_list_sparse"]
    out = [TensorShape([None, r + 1])] * nc + [TensorShape([None])] * nc + \
        [TensorShape([r + 1])] * nc
    out += [TensorShape(prefix + s.as_list()) for s in a["context_dense_shapes"]]
    out += [TensorShape([None, r + 2])] * nf + [TensorShape([None])] * nf + \
        [TensorShape([r + 2])] * nf
    out += [TensorShape(prefix + [None] + s.as_list()) for s in a["feature_list_dense_shapes"]]
    out += [TensorShape(prefix)] * a["Nfeature_list_dense"]
    return out


register_op(
    "ParseSequenceExampleV2",
    inputs=["serialized: string", "debug_name: string", "context_sparse_keys: string",
            "context_dense_keys: string", "context_ragged_keys: string",
            "feature_list_sparse_keys: string", "feature_list_dense_keys: string",
            "feature_list_ragged_keys: string", "feature_list_dense_missing_assumed_empty: bool",
            "context_dense_defaults: Tcontext_dense"],
    outputs=["context_sparse_indices: Ncontext_sparse * int64",
             "context_sparse_values: context_sparse_types",
             "context_sparse_shapes: Ncontext_sparse * int64",
             "context_dense_values: Tcontext_dense",
             "context_ragged_values: context_ragged_value_types",
             "context_ragged_row_splits: context_ragged_split_types",
             "feature_list_sparse_indices: Nfeature_list_sparse * int64",
             "feature_list_sparse_values: feature_list_sparse_types",
             "feature_list_sparse_shapes: Nfeature_list_sparse * int64",
             "feature_list_dense_values: feature_list_dense_types",
             "feature_list_dense_lengths: Nfeature_list_dense * int64",
             "feature_list_ragged_values: feature_list_ragged_value_types",
             "feature_list_ragged_outer_splits: feature_list_ragged_split_types",
             "feature_list_ragged_inner_splits: feature_list_ragged_split_types"],
    attrs=["Ncontext_sparse: int >= 0 = 0", f"Tcontext_dense: list({_T3}) >= 0 = []",
           f"context_sparse_types: list({_T3}) >= 0 = []",
           f"context_ragged_value_types: list({_T3}) >= 0 = []",
           "context_ragged_split_types: list({int32, int64}) >= 0 = []",
           "context_dense_shapes: list(shape) >= 0 = []",
           "Nfeature_list_sparse: int >= 0 = 0", "Nfeature_list_dense: int >= 0 = 0",
           f"feature_list_dense_types: list({_T3}) >= 0 = []",
           f"feature_list_sparse_types: list({_T3}) >= 0 = []",
           f"feature_list_ragged_value_types: list({_T3}) >= 0 = []",
           "feature_list_ragged_split_types: list({int32, int64}) >= 0 = []",
           "feature_list_dense_shapes: list(shape) >= 0 = []"],
    shape_fn=_shapes, kernel=_kernel)
NotDifferentiable("ParseSequenceExampleV2")


def _strings(values, name):
    arr = np.empty(len(values), dtype=object)
    arr[:] = [v.encode() for v in values]
    return arr


def _check(context_features, sequence_features):
    for k, f in (context_features or {}).items():
        if not isinstance(f, (FixedLenFeature, VarLenFeature)):
            raise ValueError(f"Unsupported context feature {k}: {type(f).__name__}")
    for k, f in (sequence_features or {}).items():
        if not isinstance(f, (FixedLenSequenceFeature, VarLenFeature)):
            raise ValueError(f"Unsupported sequence feature {k}: {type(f).__name__}")
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")


def _parse(serialized, context_features, sequence_features, names):
    ctx = ParseParams(context_features, prefix="context_")
    fl = ParseParams(sequence_features, sequence=True, prefix="feature_list_")
    serialized = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
    defaults = []
    for dtype, shape, default in zip(ctx.dense_types, ctx.dense_shapes, ctx.dense_defaults):
        if default is None:
            defaults.append(convert_to_tensor(np.zeros((0,), _np(dtype)), dtype=dtype))
        else:
            defaults.append(reshape(convert_to_tensor(default, dtype=dtype), shape.as_list()))
    debug = names if names is not None else []
    op = apply_op(
        "ParseSequenceExampleV2", serialized=serialized,
        debug_name=_strings([n.decode() if isinstance(n, bytes) else n for n in debug],
                            "debug_name") if not hasattr(debug, "op") else debug,
        context_sparse_keys=_strings(ctx.sparse_keys, "context_sparse_keys"),
        context_dense_keys=_strings(ctx.dense_keys, "context_dense_keys"),
        context_ragged_keys=_strings([], "context_ragged_keys"),
        feature_list_sparse_keys=_strings(fl.sparse_keys, "feature_list_sparse_keys"),
        feature_list_dense_keys=_strings(fl.dense_keys, "feature_list_dense_keys"),
        feature_list_ragged_keys=_strings([], "feature_list_ragged_keys"),
        feature_list_dense_missing_assumed_empty=np.asarray(
            fl.dense_allow_missing, dtype=bool).reshape(-1),
        context_dense_defaults=defaults, Tcontext_dense=ctx.dense_types,
        Ncontext_sparse=len(ctx.sparse_keys), context_sparse_types=ctx.sparse_types,
        context_dense_shapes=ctx.dense_shapes, Nfeature_list_sparse=len(fl.sparse_keys),
        Nfeature_list_dense=len(fl.dense_keys), feature_list_dense_types=fl.dense_types,
        feature_list_sparse_types=fl.sparse_types, feature_list_dense_shapes=fl.dense_shapes)
    outs = list(op.outputs)
    nc, nd = len(ctx.sparse_keys), len(ctx.dense_keys)
    context = {}
    for i, k in enumerate(ctx.sparse_keys):
        context[k] = SparseTensor(outs[i], outs[nc + i], outs[2 * nc + i])
    for j, k in enumerate(ctx.dense_keys):
        context[k] = outs[3 * nc + j]
    rest = outs[3 * nc + nd:]
    nf, nfd = len(fl.sparse_keys), len(fl.dense_keys)
    lists, lengths = {}, {}
    for i, k in enumerate(fl.sparse_keys):
        lists[k] = SparseTensor(rest[i], rest[nf + i], rest[2 * nf + i])
    for j, k in enumerate(fl.dense_keys):
        lists[k] = rest[3 * nf + j]
        lengths[k] = rest[3 * nf + nfd + j]
    return context, lists, lengths


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parses a batch of SequenceExamples: (context dict, feature-list dict, lengths of
    the dense feature lists)."""
    _check(context_features, sequence_features)
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        return _parse(serialized, context_features, sequence_features, example_names)


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parses one SequenceExample: (context dict, feature-list dict)."""
    _check(context_features, sequence_features)
    with name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        with name_scope(None, "ParseSequenceExample"):
            ctx, lists, _ = _parse(serialized, context_features, sequence_features,
                                   None if example_name is None else [example_name])
        return ctx, lists
