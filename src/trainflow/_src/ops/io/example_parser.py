"""The kernels of ParseExampleV2 and ParseSequenceExampleV2: serialized Example /
SequenceExample protos to dense arrays and sparse (indices, values, shape) triples.

Errors are InvalidArgumentError naming the example (its name or index), the feature
and what was found, in TF's words.
"""
import math

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.io import example_columns, example_fast
from trainflow._src.protos.example_pb2 import Example, SequenceExample

_KIND = {np.dtype(np.float32): "float_list", np.dtype(np.int64): "int64_list",
         np.dtype(object): "bytes_list"}
_FAST_MIN_RECORDS = 16
_OBJECT = np.dtype(object)
_TYPE_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _name(names, i):
    if names is not None and len(names) > i:
        n = names[i]
        return n.decode("utf-8", "replace") if isinstance(n, bytes) else str(n)
    return "<unknown>"


def _values(feature, kind, np_dtype, where, key):
    """The values of one Feature as an array of `np_dtype` (None if it has no kind)."""
    which = feature.WhichOneof("kind")
    if which is None:
        return np.zeros((0,), dtype=np_dtype)
    if which != kind:
        raise _invalid(f"Name: {where}, Feature: {key}.  Data types don't match. Data type: "
                       f"{_TYPE_NAME[which]} but expected type: {_TYPE_NAME[kind]}")
    vals = getattr(feature, kind).value
    if np_dtype == np.dtype(object):
        out = np.empty(len(vals), dtype=object)
        out[:] = list(vals)
        return out
    return np.array(vals, dtype=np_dtype)


def _sparse_out(per_example, np_dtype, batched):
    """(indices, values, shape) of a VarLen feature from one value array per example."""
    counts = [len(v) for v in per_example]
    total = sum(counts)
    max_len = max(counts, default=0)
    values = np.concatenate(per_example) if total else np.zeros((0,), dtype=np_dtype)
    values = values.astype(np_dtype, copy=False)
    if batched:
        rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        cols = np.concatenate([np.arange(c, dtype=np.int64) for c in counts]) if total \
            else np.zeros((0,), np.int64)
        indices = np.stack([rows, cols], axis=1)
        shape = np.array([len(counts), max_len], dtype=np.int64)
    else:
        indices = np.arange(total, dtype=np.int64).reshape(-1, 1)
        shape = np.array([max_len], dtype=np.int64)
    return indices, values, shape


def _dense_fixed(examples_values, key, shape, np_dtype, default, names):
    size = int(np.prod(shape, dtype=np.int64))
    out = np.empty((len(examples_values),) + tuple(shape), dtype=np_dtype)
    for i, vals in enumerate(examples_values):
        if vals is None:
            if default.size == 0:
                raise _invalid(f"Name: {_name(names, i)}, Feature: {key} (data type: "
                               f"{_TYPE_NAME[_KIND[np.dtype(np_dtype)]]}) is required but "
                               "could not be found.")
            out[i, ...] = default.reshape(shape)
            continue
        if vals.size != size:
            raise _invalid(f"Name: {_name(names, i)}, Key: {key}, Index: {i}.  Number of "
                           f"{_TYPE_NAME[_KIND[np.dtype(np_dtype)]]} values != expected.  "
                           f"Values size: {vals.size} but output shape: "
                           f"[{','.join(str(d) for d in shape)}]")
        out[i, ...] = vals.reshape(shape)
    return out


def _dense_variable(examples_values, key, inner, np_dtype, default, names):
    stride = int(np.prod(inner, dtype=np.int64))
    lengths = []
    for i, vals in enumerate(examples_values):
        n = 0 if vals is None else vals.size
        if stride == 0 or n % stride:
            if n or stride == 0:
                raise _invalid(f"Name: {_name(names, i)}, Key: {key}, Index: {i}.  Number of "
                               f"values is not a multiple of stride. Values size: {n}, stride: "
                               f"{stride}")
        lengths.append(n // stride if stride else 0)
    fill = default.reshape(-1)[0] if default.size else (b"" if np_dtype == np.dtype(object) else 0)
    out = np.full((len(examples_values), max(lengths, default=0)) + tuple(inner), fill,
                  dtype=np_dtype)
    for i, vals in enumerate(examples_values):
        if lengths[i]:
            out[i, :lengths[i]] = vals.reshape((lengths[i],) + tuple(inner))
    return out


def _column(examples, key, kind, np_dtype, names):
    """(flat list of values, per-example counts or None where missing) of one key."""
    flat = []
    counts = []
    extend = flat.extend
    append = counts.append
    for i, fmap in enumerate(examples):
        f = fmap.get(key)
        if f is None:
            append(None)
            continue
        vals = getattr(f, kind).value
        n = len(vals)
        if not n:
            # Empty, or a list of another kind: only then is the kind looked at.
            which = f.WhichOneof("kind")
            if which is not None and which != kind:
                _values(f, kind, np_dtype, _name(names, i), key)  # raises the type error
        append(n)
        extend(vals)
    return flat, counts


def _array(flat, np_dtype):
    if np_dtype == np.dtype(object):
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out
    return np.array(flat, dtype=np_dtype)


def _dense_fast(flat, counts, key, shape, np_dtype, default, names):
    """The [batch] + shape array of a fixed-length feature from its flat values."""
    size = int(np.prod(shape, dtype=np.int64))
    if all(c == size for c in counts):
        return _array(flat, np_dtype).reshape((len(counts),) + tuple(shape))
    pieces, pos = [], 0
    for c in counts:
        if c is None:
            pieces.append(None)
            continue
        pieces.append(_array(flat[pos:pos + c], np_dtype))
        pos += c
    return _dense_fixed(pieces, key, shape, np_dtype, default, names)


_SINGLE_PLANS = {}


def _single_plan(dense_keys, dense_dtypes, dense_shapes, dense_variable):
    """(key, kind, dtype, is_object, size, shape) per dense feature, or None if one is
    variable; kept by the identity of the (cached, reused) key list."""
    hit = _SINGLE_PLANS.get(id(dense_keys))
    if hit is not None and hit[0] is dense_keys and hit[1] is dense_dtypes:
        return hit[2]
    plan = None if any(dense_variable) else [
        (key, _KIND[np.dtype(t)], np.dtype(t), np.dtype(t) == _OBJECT, math.prod(shape),
         tuple(shape))
        for key, t, shape in zip(dense_keys, dense_dtypes, dense_shapes)]
    if len(_SINGLE_PLANS) > 256:
        _SINGLE_PLANS.clear()
    _SINGLE_PLANS[id(dense_keys)] = (dense_keys, dense_dtypes, plan)
    return plan


def _single_dense(record, dense_keys, dense_dtypes, dense_shapes, dense_variable):
    """The dense features of one record when each is present with its full size (None
    otherwise: the general path fills defaults and words the errors)."""
    plan = _single_plan(dense_keys, dense_dtypes, dense_shapes, dense_variable)
    if plan is None:
        return None
    try:
        fmap = Example.FromString(record).features.feature
    except Exception:  # noqa: BLE001 - the general path reports it
        return None
    out = []
    for key, kind, np_dtype, is_object, size, shape in plan:
        f = fmap.get(key)
        if f is None:
            return None
        # (a list of another kind reads as empty here: the size check sends it on)
        vals = getattr(f, kind).value
        if len(vals) != size or size == 0:
            return None
        if size == 1 and not shape:
            if is_object:
                arr = np.empty((), dtype=object)
                arr[()] = vals[0]
            else:
                arr = np.array(vals[0], dtype=np_dtype)
        elif is_object:
            arr = np.empty(shape, dtype=object)
            arr.reshape(-1)[:] = list(vals)
        else:
            arr = np.array(vals, dtype=np_dtype).reshape(shape)
        out.append(arr)
    return out


def _fast_dense(flat_in, dense_keys, dense_dtypes, dense_shapes, dense_variable):
    """{key: [records] + shape array} of the fixed-length features the column paths
    decode (the vectorized scan, else protobuf's per-record maps)."""
    fast = {}
    # (the column-wise path pays per feature what a few records don't amortize)
    if not dense_keys or all(dense_variable) or flat_in.size < _FAST_MIN_RECORDS:
        return fast
    fixed = [k for k, v in zip(dense_keys, dense_variable) if not v]
    columns = example_columns.feature_columns(flat_in, fixed)
    if columns is not None:
        for key, np_dtype, shape, variable in zip(dense_keys, dense_dtypes, dense_shapes,
                                                  dense_variable):
            if not variable:
                column = example_columns.fast_column(columns, key, np_dtype, shape)
                if column is None:
                    column = example_fast.column_from_parts(columns.parts(key), np_dtype,
                                                            shape)
                if column is not None:
                    fast[key] = column
    maps = example_fast.raw_maps(flat_in) if len(fast) < len(fixed) else None
    if maps is not None:
        for key, np_dtype, shape, variable in zip(dense_keys, dense_dtypes, dense_shapes,
                                                  dense_variable):
            if not variable and key not in fast:
                column = example_fast.dense_column(maps, key, np_dtype, shape)
                if column is not None:
                    fast[key] = column
    return fast


def parse_example(serialized, names, sparse_keys, sparse_dtypes, dense_keys, dense_dtypes,
                  dense_shapes, dense_variable, dense_defaults):
    """Returns (sparse_indices, sparse_values, sparse_shapes, dense_values) lists.

    `serialized` is a string array of rank 0 or 1; rank 0 drops the batch dimension.
    """
    batched = serialized.ndim > 0
    flat_in = serialized.reshape(-1)
    if flat_in.size == 1 and not sparse_keys:
        dense = _single_dense(flat_in[0], dense_keys, dense_dtypes, dense_shapes,
                              dense_variable)
        if dense is not None:
            return [], [], [], [d[None] for d in dense] if batched else dense
    fast = _fast_dense(flat_in, dense_keys, dense_dtypes, dense_shapes, dense_variable)
    if not sparse_keys and len(fast) == len(dense_keys):
        dense = [fast[k] if batched else fast[k][0] for k in dense_keys]
        return [], [], [], dense
    examples = []
    parse = Example.FromString
    for i, s in enumerate(flat_in):
        try:
            examples.append(parse(s).features.feature)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
            raise _invalid(f"Could not parse example input, value: '{bytes(s)[:64]!r}' "
                           f"(record {i}, name {_name(names, i)})") from None
    sp_idx, sp_val, sp_shape = [], [], []
    for key, np_dtype in zip(sparse_keys, sparse_dtypes):
        flat, counts = _column(examples, key, _KIND[np.dtype(np_dtype)], np_dtype, names)
        counts = [c or 0 for c in counts]
        values = _array(flat, np_dtype)
        total, max_len = len(flat), max(counts, default=0)
        if batched:
            rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
            starts = np.repeat(np.cumsum([0] + counts[:-1]), counts)
            cols = np.arange(total, dtype=np.int64) - starts
            indices = np.stack([rows, cols], axis=1).astype(np.int64)
            shape = np.array([len(counts), max_len], dtype=np.int64)
        else:
            indices = np.arange(total, dtype=np.int64).reshape(-1, 1)
            shape = np.array([max_len], dtype=np.int64)
        sp_idx.append(indices)
        sp_val.append(values)
        sp_shape.append(shape)
    dense = []
    for key, np_dtype, shape, variable, default in zip(dense_keys, dense_dtypes, dense_shapes,
                                                      dense_variable, dense_defaults):
        if key in fast:
            dense.append(fast[key] if batched else fast[key][0])
            continue
        flat, counts = _column(examples, key, _KIND[np.dtype(np_dtype)], np_dtype, names)
        if variable:
            pieces, pos = [], 0
            for c in counts:
                if c is None:
                    pieces.append(None)
                    continue
                pieces.append(_array(flat[pos:pos + c], np_dtype))
                pos += c
            out = _dense_variable(pieces, key, shape, np_dtype, default, names)
        else:
            out = _dense_fast(flat, counts, key, shape, np_dtype, default, names)
        dense.append(out if batched else out[0])
    return sp_idx, sp_val, sp_shape, dense


def parse_sequence_example(serialized, names, ctx, fl, missing_ok):
    """Parses SequenceExamples.

    Args:
      ctx: (sparse_keys, sparse_dtypes, dense_keys, dense_dtypes, dense_shapes,
        dense_defaults) of the context.
      fl: (sparse_keys, sparse_dtypes, dense_keys, dense_dtypes, dense_shapes) of the
        feature lists.
      missing_ok: per dense feature-list key, whether a missing list counts as empty.

    Returns:
      context (sparse idx, values, shapes, dense) and feature-list (sparse idx, values,
      shapes, dense, lengths) lists.
    """
    batched = serialized.ndim > 0
    flat = serialized.reshape(-1)
    parsed = []
    for i, s in enumerate(flat):
        ex = SequenceExample()
        try:
            ex.ParseFromString(s)
        except Exception:  # noqa: BLE001
            raise _invalid(f"Could not parse example input, value: '{bytes(s)[:64]!r}' "
                           f"(record {i}, name {_name(names, i)})") from None
        parsed.append(ex)
    # Context features: as parse_example over the context Features.
    c_sk, c_st, c_dk, c_dt, c_ds, c_dd = ctx
    c_idx, c_val, c_shape, c_dense = [], [], [], []
    for key, np_dtype in zip(c_sk, c_st):
        kind = _KIND[np.dtype(np_dtype)]
        per = [np.zeros((0,), np_dtype) if key not in ex.context.feature else
               _values(ex.context.feature[key], kind, np_dtype, _name(names, i), key)
               for i, ex in enumerate(parsed)]
        ind, val, shp = _sparse_out(per, np_dtype, batched)
        c_idx.append(ind)
        c_val.append(val)
        c_shape.append(shp)
    for key, np_dtype, shape, default in zip(c_dk, c_dt, c_ds, c_dd):
        kind = _KIND[np.dtype(np_dtype)]
        vals = [None if key not in ex.context.feature else
                _values(ex.context.feature[key], kind, np_dtype, _name(names, i), key)
                for i, ex in enumerate(parsed)]
        out = _dense_fixed(vals, key, shape, np_dtype, default, names)
        c_dense.append(out if batched else out[0])
    f_sk, f_st, f_dk, f_dt, f_ds = fl
    f_idx, f_val, f_shape, f_dense, f_len = [], [], [], [], []
    for key, np_dtype in zip(f_sk, f_st):
        kind = _KIND[np.dtype(np_dtype)]
        rows, vals = [], []
        max_t = max_v = 0
        for i, ex in enumerate(parsed):
            lists = ex.feature_lists.feature_list
            steps = lists[key].feature if key in lists else []
            max_t = max(max_t, len(steps))
            for t, feat in enumerate(steps):
                v = _values(feat, kind, np_dtype, _name(names, i), key)
                max_v = max(max_v, len(v))
                for j in range(len(v)):
                    rows.append((i, t, j) if batched else (t, j))
                vals.append(v)
        width = 3 if batched else 2
        f_idx.append(np.array(rows, dtype=np.int64).reshape(-1, width))
        f_val.append(np.concatenate(vals).astype(np_dtype, copy=False) if vals
                     else np.zeros((0,), np_dtype))
        f_shape.append(np.array(([len(parsed)] if batched else []) + [max_t, max_v], np.int64))
    for key, np_dtype, shape, ok in zip(f_dk, f_dt, f_ds, missing_ok):
        kind = _KIND[np.dtype(np_dtype)]
        size = int(np.prod(shape, dtype=np.int64))
        per = []
        for i, ex in enumerate(parsed):
            lists = ex.feature_lists.feature_list
            if key not in lists:
                if not ok:
                    raise _invalid(f"Name: {_name(names, i)}, Feature list '{key}' is required "
                                   "but could not be found.  Did you mean to include it in "
                                   "feature_list_dense_missing_assumed_empty or "
                                   "feature_list_dense_defaults?")
                per.append([])
                continue
            steps = []
            for t, feat in enumerate(lists[key].feature):
                v = _values(feat, kind, np_dtype, _name(names, i), key)
                if v.size != size:
                    raise _invalid(f"Name: {_name(names, i)}, Key: {key}, Index: {t}.  Number "
                                   f"of {_TYPE_NAME[kind]} values != expected.  values size: "
                                   f"{v.size} but output shape: "
                                   f"[{','.join(str(d) for d in shape)}]")
                steps.append(v.reshape(shape))
            per.append(steps)
        lengths = np.array([len(p) for p in per], dtype=np.int64)
        fill = b"" if np_dtype == np.dtype(object) else 0
        out = np.full((len(per), int(lengths.max(initial=0))) + tuple(shape), fill,
                      dtype=np_dtype)
        for i, steps in enumerate(per):
            if steps:
                out[i, :len(steps)] = np.stack(steps)
        f_dense.append(out if batched else out[0])
        f_len.append(lengths if batched else lengths[0])
    return (c_idx, c_val, c_shape, c_dense), (f_idx, f_val, f_shape, f_dense, f_len)
