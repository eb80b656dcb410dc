"""AddSparseToTensorsMap, AddManySparseToTensorsMap and TakeManySparseFromTensorsMap:
SparseTensors parked in a session resource under int64 handles, which is how TF's
batching functions pass SparseTensors through queues."""
import itertools
import threading

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_shape import TensorShape


class SparseTensorsMap:
    """Handle -> (indices, values, shape) of stored SparseTensors."""

    def __init__(self, name):
        self.name = name
        self._lock = threading.Lock()
        self._next = itertools.count(1)
        self._items = {}

    def add(self, item):
        with self._lock:
            h = next(self._next)
            self._items[h] = item
            return h

    def take(self, handle):
        with self._lock:
            item = self._items.pop(int(handle), None)
        if item is None:
            raise errors.InvalidArgumentError(
                None, None, f"Unable to find SparseTensor: {int(handle)} in map: {self.name}")
        return item


def _map(ctx):
    name = ctx.resource_name
    return ctx.resources.lookup_or_create("sparse_tensors_map", name,
                                          lambda: SparseTensorsMap(name))


def _add_kernel(sparse_indices, sparse_values, sparse_shape, *, ctx):
    return np.int64(_map(ctx).add((np.array(sparse_indices), np.array(sparse_values),
                                   np.array(sparse_shape))))


def _add_many_kernel(sparse_indices, sparse_values, sparse_shape, *, ctx):
    shape = np.asarray(sparse_shape, np.int64)
    if shape.size < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Rank of input SparseTensor should be > 1, but saw rank: {shape.size}")
    m = _map(ctx)
    n = int(shape[0])
    rows = sparse_indices[:, 0] if sparse_indices.size else np.zeros((0,), np.int64)
    handles = np.empty(n, np.int64)
    for b in range(n):
        sel = rows == b
        handles[b] = m.add((np.array(sparse_indices[sel, 1:]), np.array(sparse_values[sel]),
                            shape[1:].copy()))
    return handles


def _take_many_kernel(sparse_handles, *, dtype, ctx):
    m = _map(ctx)
    items = [m.take(h) for h in np.asarray(sparse_handles).reshape(-1)]
    if not items:
        return (np.zeros((0, 1), np.int64), np.zeros((0,), dtype.as_numpy_dtype),
                np.zeros((1,), np.int64))
    rank = items[0][2].size
    for i, (_, _, s) in enumerate(items):
        if s.size != rank:
            raise errors.InvalidArgumentError(
                None, None, f"Inconsistent rank across SparseTensors: rank prior to "
                            f"SparseTensor[{i}] was: {rank} but rank of SparseTensor[{i}] is: "
                            f"{s.size}")
    idx = [np.concatenate([np.full((len(ind), 1), b, np.int64), ind.reshape(len(ind), rank)],
                          axis=1) for b, (ind, _, _) in enumerate(items)]
    shape = np.max(np.stack([s for _, _, s in items]), axis=0)
    values = np.concatenate([v for _, v, _ in items])
    np_dtype = object if dtype.name == "string" else dtype.as_numpy_dtype
    return (np.concatenate(idx).astype(np.int64), values.astype(np_dtype, copy=False),
            np.concatenate([[len(items)], shape]).astype(np.int64))


_MAP_ATTRS = ["T: type", "container: string = ''", "shared_name: string = ''"]
_INPUTS = ["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"]
register_op("AddSparseToTensorsMap", inputs=_INPUTS, outputs=["sparse_handle: int64"],
            attrs=_MAP_ATTRS, shape_fn=lambda op: [TensorShape(())], kernel=_add_kernel,
            stateful=True, host_only=True)
register_op("AddManySparseToTensorsMap", inputs=_INPUTS, outputs=["sparse_handles: int64"],
            attrs=_MAP_ATTRS, shape_fn=lambda op: [TensorShape([None])],
            kernel=_add_many_kernel, stateful=True, host_only=True)
register_op("TakeManySparseFromTensorsMap", inputs=["sparse_handles: int64"],
            outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
            attrs=["dtype: type", "container: string = ''", "shared_name: string = ''"],
            shape_fn=lambda op: [TensorShape([None, None]), TensorShape([None]),
                                 TensorShape([None])],
            kernel=_take_many_kernel, stateful=True, host_only=True)
for _t in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap",
           "TakeManySparseFromTensorsMap"):
    NotDifferentiable(_t)


def add_sparse_to_tensors_map(sp, shared_name=None, name=None):
    """Stores SparseTensor `sp`; returns its int64 scalar handle."""
    return apply_op("AddSparseToTensorsMap", sparse_indices=sp.indices,
                    sparse_values=sp.values, sparse_shape=sp.dense_shape,
                    shared_name=shared_name or "", name=name).outputs[0]


def add_many_sparse_to_tensors_map(sp, shared_name=None, name=None):
    """Stores each row of minibatch SparseTensor `sp`; returns the [N] handles."""
    return apply_op("AddManySparseToTensorsMap", sparse_indices=sp.indices,
                    sparse_values=sp.values, sparse_shape=sp.dense_shape,
                    shared_name=shared_name or "", name=name).outputs[0]


def take_many_sparse_from_tensors_map(sparse_map_op, sparse_handles, rank=None, name=None):
    """The minibatch SparseTensor of the handles' SparseTensors (from the map of
    `sparse_map_op`), batch rows first."""
    shared = sparse_map_op.get_attr("shared_name")
    shared = shared.decode() if isinstance(shared, bytes) else shared
    op = apply_op("TakeManySparseFromTensorsMap", sparse_handles=sparse_handles,
                  dtype=sparse_map_op.get_attr("T"), shared_name=shared or sparse_map_op.name,
                  name=name)
    indices, values, shape = op.outputs
    if rank is not None:
        indices.set_shape([None, rank])
        shape.set_shape([rank])
    return SparseTensor(indices, values, shape)
