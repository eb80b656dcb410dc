"""parse_example, parse_single_example, parse_sequence_example and
parse_single_sequence_example, building ParseExampleV2 / ParseSequenceExampleV2 as
TF 2's compat.v1 does."""
import numpy as np

from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import expand_dims, reshape
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.sparse.sparse_ops import sparse_reorder
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.io import example_parser
from trainflow._src.ops.io.parsing_config import ParseParams, default_array

__all__ = ["parse_example", "parse_single_example", "parse_sequence_example",
           "parse_single_sequence_example"]

_T3 = "{float, int64, string}"


def _np(t):
    return object if t == dtypes.string else t.as_numpy_dtype


def _keys(arr):
    return [k.decode() if isinstance(k, bytes) else str(k) for k in np.asarray(arr).reshape(-1)]


def _dims(shape):
    return [None if d is None or d < 0 else d for d in shape.as_list()]


# The parse configuration of recent (keys, types, shapes) objects, by identity: a
# parse op in a per-record pipeline runs with the same ones every call.
_CONFIGS = {}


def _parse_config(sparse_keys, dense_keys, sparse_types, Tdense, dense_shapes):
    objs = (sparse_keys, dense_keys, sparse_types, Tdense, dense_shapes)
    key = tuple(map(id, objs))
    hit = _CONFIGS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], objs)):
        return hit[1]
    shapes, variable = [], []
    for s in dense_shapes:
        dims = s.as_list()
        if dims and dims[0] is None:
            variable.append(True)
            shapes.append(tuple(dims[1:]))
        else:
            variable.append(False)
            shapes.append(tuple(dims))
    config = (_keys(sparse_keys), [_np(t) for t in sparse_types], _keys(dense_keys),
              [_np(t) for t in Tdense], shapes, variable)
    if len(_CONFIGS) > 256:
        _CONFIGS.clear()
    _CONFIGS[key] = (objs, config)
    return config


def _parse_example_kernel(serialized, names, sparse_keys, dense_keys, ragged_keys,
                          dense_defaults, *, sparse_types, Tdense, dense_shapes):
    sp_keys, sp_types, d_keys, d_types, shapes, variable = _parse_config(
        sparse_keys, dense_keys, sparse_types, Tdense, dense_shapes)
    sp_idx, sp_val, sp_shape, dense = example_parser.parse_example(
        np.asarray(serialized, dtype=object), np.asarray(names, dtype=object).reshape(-1),
        sp_keys, sp_types, d_keys, d_types, shapes, variable,
        [np.asarray(d, dtype=t) for d, t in zip(dense_defaults, d_types)])
    out = sp_idx + sp_val + sp_shape + dense
    return out[0] if len(out) == 1 else tuple(out)


def _parse_example_shapes(op):
    batch = op._inputs[0]._shape
    prefix = TensorShape([None]) if batch.rank is None else TensorShape(batch.as_list())
    rank = None if batch.rank is None else batch.rank + 1
    n = op._attrs["num_sparse"]
    out = [TensorShape([None, rank]) for _ in range(n)]
    out += [TensorShape([None]) for _ in range(n)]
    out += [TensorShape([rank]) for _ in range(n)]
    for s in op._attrs["dense_shapes"]:
        out.append(prefix.concatenate(TensorShape(_dims(s))))
    return out


register_op("ParseExampleV2",
            inputs=["serialized: string", "names: string", "sparse_keys: string",
                    "dense_keys: string", "ragged_keys: string", "dense_defaults: Tdense"],
            outputs=["sparse_indices: num_sparse * int64", "sparse_values: sparse_types",
                     "sparse_shapes: num_sparse * int64", "dense_values: Tdense",
                     "ragged_values: ragged_value_types",
                     "ragged_row_splits: ragged_split_types"],
            attrs=[f"Tdense: list({_T3}) >= 0", "num_sparse: int >= 0",
                   f"sparse_types: list({_T3}) >= 0", f"ragged_value_types: list({_T3}) >= 0",
                   "ragged_split_types: list({int32, int64}) >= 0",
                   "dense_shapes: list(shape) >= 0"],
            shape_fn=_parse_example_shapes, kernel=_parse_example_kernel)
NotDifferentiable("ParseExampleV2")


def _string_const(values, name):
    """A string vector; converted by apply_op inside the op's scope, as TF names it."""
    arr = np.empty(len(values), dtype=object)
    arr[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return arr


def dense_default_tensors(params):
    out = []
    for _key, dtype, shape, default, variable in zip(
            params.dense_keys, params.dense_types, params.dense_shapes,
            params.dense_defaults, params.dense_variable):
        if variable:
            value = default if default is not None else (b"" if dtype == dtypes.string else 0)
            out.append(convert_to_tensor(np.asarray(value, dtype=_np(dtype)), dtype=dtype))
        elif default is None:
            out.append(convert_to_tensor(np.zeros((0,), dtype=_np(dtype)), dtype=dtype))
        else:
            arr = default_array(dtype, default, shape.as_list())
            out.append(reshape(convert_to_tensor(arr, dtype=dtype), shape.as_list()))
    return out


def _merge_sparse_features(params, outputs):
    """Builds each SparseFeature from its index and value VarLen parts (TF's
    sparse_merge: the index values become the last coordinate)."""
    for key, f in params.sparse_features.items():
        index_keys = f.index_key if isinstance(f.index_key, (list, tuple)) else [f.index_key]
        sizes = f.size if isinstance(f.size, (list, tuple)) else [f.size]
        values = outputs[f.value_key]
        ids = [outputs[k] for k in index_keys]
        with name_scope(None, "SparseMerge"):
            prefix = slice_(ids[0].indices, [0, 0], [-1, 1])
            cols = [expand_dims(cast(i.values, dtypes.int64), 1) for i in ids]
            indices = concat([prefix] + cols, 1)
            shape = concat([slice_(ids[0].dense_shape, [0], [1]),
                            convert_to_tensor(np.asarray(sizes, np.int64))], 0)
            merged = SparseTensor(indices, values.values, shape)
            outputs[key] = merged if f.already_sorted else sparse_reorder(merged)
    for f in params.sparse_features.values():
        for k in ([f.index_key] if not isinstance(f.index_key, (list, tuple))
                  else f.index_key) + [f.value_key]:
            if k not in params.requested:
                outputs.pop(k, None)
    return outputs


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized Example protos into a dict of Tensors (dense
    features) and SparseTensors (VarLen and Sparse features)."""
    if not features:
        raise ValueError("Argument `features` cannot be None.")
    params = ParseParams(features)
    params.requested = set(features)
    with name_scope(name, "ParseExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        defaults = dense_default_tensors(params)
        names = example_names if example_names is not None else []
        op = apply_op(
            "ParseExampleV2", serialized=serialized,
            names=_string_const(names, "names") if not hasattr(names, "op") else names,
            sparse_keys=_string_const(params.sparse_keys, "sparse_keys"),
            dense_keys=_string_const(params.dense_keys, "dense_keys"),
            ragged_keys=_string_const([], "ragged_keys"), dense_defaults=defaults,
            Tdense=params.dense_types, num_sparse=len(params.sparse_keys),
            sparse_types=params.sparse_types, ragged_value_types=[], ragged_split_types=[],
            dense_shapes=params.dense_shapes_attr())
        outs = op.outputs
        n = len(params.sparse_keys)
        result = {}
        for i, key in enumerate(params.sparse_keys):
            result[key] = SparseTensor(outs[i], outs[n + i], outs[2 * n + i])
        for j, key in enumerate(params.dense_keys):
            result[key] = outs[3 * n + j]
        return _merge_sparse_features(params, result)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized Example (a scalar string) into a dict of Tensors and
    SparseTensors."""
    if not features:
        raise ValueError("Invalid argument: features cannot be None.")
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        if serialized.shape.rank not in (None, 0):
            raise ValueError(f"Input serialized must be a scalar, got shape "
                             f"{serialized.shape}")
        return parse_example(serialized, features, example_names=example_names)


from trainflow._src.ops.io.sequence_parsing import (  # noqa: E402,F401
    parse_sequence_example, parse_single_sequence_example)
