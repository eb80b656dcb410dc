"""Kernels and shape functions of the Apply*/SparseApply* optimizer ops.

A kernel validates its inputs as TensorFlow's do, runs the op's update and writes the
new values into the variable and slot buffers in place (contract 5 of
docs/architecture.md). For float16, float32 and float64 the update is the rule's
in-place form (ops/state/optimizer_inplace.py: `out=` ufunc calls over cache-sized blocks,
scratch from a pool, no allocation); other dtypes, and buffers that are not contiguous,
run the pure rule (ops/state/optimizer_rules.py), which gives the same numbers:
- dense ops update the buffers block by block (kernels/blocked.py);
- sparse ops update the rows named by `indices` (gathered, updated, scattered back).
  TF's SparseApply* kernels walk the indices in order, so a repeated index is updated
  once per occurrence, each update
  seeing the previous one; here the k-th occurrences of all indices form round k, and
  the rounds run in order.
"""
import contextlib

import numpy as np

from trainflow._src.kernels.blocked import contiguous, run_blocks, update_in_place
from trainflow._src.ops.array.shape_util import (
    fmt_dims, invalid_argument, merge_dims, shape_of, with_rank)

_NO_LOCK = contextlib.nullcontext()
GRAD_NAMES = ("grad", "delta")
# The dtypes the in-place forms serve (NumPy's float ufunc loops; others take the rule).
_FORM_DTYPES = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _lock(ref, use_locking):
    return ref.lock if use_locking else _NO_LOCK


def _check_slots(ref_names, buffers):
    var = buffers[0]
    for name, buf in zip(ref_names[1:], buffers[1:]):
        if buf.shape != var.shape:
            raise invalid_argument(f"var and {name} do not have the same shape"
                                   f"{fmt_dims(var.shape)} {fmt_dims(buf.shape)}")


def _check_scalars(value_names, values, skip):
    for name, value in zip(value_names, values):
        if name not in skip and np.ndim(value) != 0:
            raise invalid_argument(f"{name} is not a scalar: {fmt_dims(np.shape(value))}")


def _use_form(form, buffers):
    return form is not None and buffers[0].dtype in _FORM_DTYPES and contiguous(*buffers)


def dense_kernel(ref_names, value_names, rule, attr_names, form=None):
    """The kernel of a dense Apply op: `form` (the rule's in-place form) where it
    serves, else `rule`."""
    grad_pos = [i for i, n in enumerate(value_names) if n in GRAD_NAMES]
    sliced = [True] * len(ref_names) + [n in GRAD_NAMES for n in value_names]
    n_refs = len(ref_names)

    def kernel(*args, ctx):
        refs, values = args[:n_refs], args[n_refs:]
        attrs = ctx.op._attrs
        kwargs = {a: attrs[a] for a in attr_names}
        with _lock(refs[0], attrs.get("use_locking")):
            buffers = [r.get() for r in refs]
            _check_slots(ref_names, buffers)
            _check_scalars(value_names, values, GRAD_NAMES)
            var = buffers[0]
            for i in grad_pos:
                if np.shape(values[i]) != var.shape:
                    raise invalid_argument(
                        f"var and {value_names[i]} do not have the same shape"
                        f"{fmt_dims(var.shape)} {fmt_dims(np.shape(values[i]))}")
            values = [np.asarray(v) for v in values]
            if _use_form(form, buffers):
                run_blocks(*form(*buffers, *values, **kwargs))
            else:
                update_in_place(rule, buffers, buffers + values, sliced, kwargs)
        return refs[0]
    return kernel


def _rounds(indices):
    """Positions of `indices` grouped so no round repeats an index: round k holds the
    k-th occurrence of each index, in order of appearance."""
    if indices.size < 2:
        return [None]
    order = np.argsort(indices, kind="stable")
    sorted_idx = indices[order]
    starts = np.r_[True, sorted_idx[1:] != sorted_idx[:-1]]
    if starts.all():
        return [None]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(indices.size), 0))
    occurrence = np.empty(indices.size, np.int64)
    occurrence[order] = np.arange(indices.size) - group_start
    return [np.flatnonzero(occurrence == k) for k in range(int(occurrence.max()) + 1)]


def sparse_kernel(ref_names, value_names, rule, attr_names, form=None):
    """The kernel of a SparseApply op (inputs: refs, then values with `indices`); the
    gathered rows go through `form` where it serves, else through `rule`."""
    n_refs = len(ref_names)
    idx_pos = value_names.index("indices")
    grad_pos = value_names.index("grad")
    rule_names = [n for n in value_names if n != "indices"]

    def kernel(*args, ctx):
        refs, values = args[:n_refs], list(args[n_refs:])
        attrs = ctx.op._attrs
        kwargs = {a: attrs[a] for a in attr_names}
        with _lock(refs[0], attrs.get("use_locking")):
            buffers = [r.get() for r in refs]
            _check_slots(ref_names, buffers)
            indices = np.asarray(values[idx_pos])
            grad = np.asarray(values[grad_pos])
            _check_sparse(buffers[0], grad, indices)
            _check_scalars(value_names, values, ("grad", "indices"))
            rule_values = [np.asarray(v) for i, v in enumerate(values) if i != idx_pos]
            g_at = rule_names.index("grad")
            for positions in _rounds(indices):
                rows = indices if positions is None else indices[positions]
                rule_values[g_at] = grad if positions is None else grad[positions]
                gathered = [b[rows] for b in buffers]
                if _use_form(form, gathered):
                    run_blocks(*form(*gathered, *rule_values, **kwargs))
                    new = gathered
                else:
                    new = rule(*gathered, *rule_values, **kwargs)
                for buf, value in zip(buffers, new):
                    buf[rows] = value
        return refs[0]
    return kernel


def _check_sparse(var, grad, indices):
    if var.ndim < 1:
        raise invalid_argument("var must be at least 1 dimensional")
    if indices.ndim != 1:
        raise invalid_argument(f"indices must be one-dimensional, got {fmt_dims(indices.shape)}")
    if grad.ndim < 1 or grad.shape[1:] != var.shape[1:]:
        raise invalid_argument(f"var and grad must match in dimension 1 and up: var "
                               f"{fmt_dims(var.shape)}, grad {fmt_dims(grad.shape)}")
    if grad.shape[0] != indices.shape[0]:
        raise invalid_argument("grad must be the same size as indices in the first dimension: "
                               f"grad {fmt_dims(grad.shape)}, indices {fmt_dims(indices.shape)}")
    bad = (indices < 0) | (indices >= var.shape[0])
    if bad.any():
        i = int(np.argmax(bad))
        raise invalid_argument(f"Index {int(indices[i])} at offset {i} in indices is out of "
                               "range")


def shape_fn(ref_names, value_names, sparse):
    """The static shape function: slots and grad merge with var, the rest are scalars."""
    names = list(ref_names) + list(value_names)

    def fn(op):
        dims = {n: t._shape._dims for n, t in zip(names, op._inputs)}
        var = dims[ref_names[0]]
        for n in ref_names[1:]:
            var = merge_dims(var, dims[n])
        for n in value_names:
            if n in ("indices", "global_step") or n in GRAD_NAMES:
                continue
            with_rank(dims[n], 0)
        if not sparse:
            var = merge_dims(var, dims[[n for n in value_names if n in GRAD_NAMES][0]])
        else:
            idx = with_rank(dims["indices"], 1)
            grad = dims["grad"]
            if grad is not None and var is not None:
                if len(grad) < 1 or len(var) < 1:
                    raise ValueError("Shape must be at least rank 1 but is rank 0")
                merge_dims(grad[1:], var[1:])
            if grad is not None and len(grad) > 0 and idx[0] is not None and \
                    grad[0] is not None and grad[0] != idx[0]:
                raise ValueError(f"Dimensions must be equal, but are {grad[0]} and {idx[0]}")
        return [shape_of(var)]
    return fn


def resource_shape_fn(value_names):
    """The static shape function of a ResourceApply op: hyperparameters are scalars; no
    outputs (the variable's shape sits behind its handle)."""
    def fn(op):
        n_refs = len(op._inputs) - len(value_names)
        for n, t in zip(value_names, op._inputs[n_refs:]):
            if n not in ("indices", "global_step") and n not in GRAD_NAMES:
                with_rank(t._shape._dims, 0)
        return []
    return fn
