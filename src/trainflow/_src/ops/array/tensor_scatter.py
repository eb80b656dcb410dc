"""Scatters into a copy of a tensor: TensorScatterUpdate, TensorScatterAdd,
TensorScatterSub, TensorScatterMin and TensorScatterMax (`tf.tensor_scatter_nd_*`, with
TF's `tf.tensor_scatter_*` aliases), and their gradients as TensorFlow defines them."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import zeros_like
from trainflow._src.ops.array.gather import gather_nd, scatter_nd
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.shape import shape
from trainflow._src.ops.array.shape_util import (
    dims_of, fmt_dims, invalid_argument, merge_dims)
from trainflow._src.ops.math import arith

__all__ = ["tensor_scatter_add", "tensor_scatter_nd_add", "tensor_scatter_nd_max",
           "tensor_scatter_nd_min", "tensor_scatter_nd_sub", "tensor_scatter_nd_update",
           "tensor_scatter_sub", "tensor_scatter_update"]

_UPDATES = {
    "TensorScatterUpdate": None, "TensorScatterAdd": np.add, "TensorScatterSub": np.subtract,
    "TensorScatterMin": np.minimum, "TensorScatterMax": np.maximum,
}


def _kernel(op_type):
    ufunc = _UPDATES[op_type]

    def kernel(tensor, indices, updates):
        out = np.array(tensor, copy=True)
        idx, upd = np.asarray(indices), np.asarray(updates)
        if idx.ndim == 0:
            raise invalid_argument("Indices shape must have rank at least one.")
        depth = idx.shape[-1]
        if depth > out.ndim:
            raise invalid_argument(f"Index innermost dimension length must be <= tensor rank; "
                                   f"saw: {depth} vs. {out.ndim}")
        rows = idx.reshape(-1, depth)
        want = idx.shape[:-1] + out.shape[depth:]
        if upd.shape != want:
            raise invalid_argument(f"updates must have shape {fmt_dims(want)}, got "
                                   f"{fmt_dims(upd.shape)}")
        upd = upd.reshape((rows.shape[0],) + out.shape[depth:])
        for i, row in enumerate(rows.tolist()):
            if any(not 0 <= v < d for v, d in zip(row, out.shape)):
                raise invalid_argument(f"indices[{i}] = [{', '.join(map(str, row))}] does "
                                       f"not index into shape {fmt_dims(out.shape)}")
        where = tuple(rows.T)
        if ufunc is None:
            out[where] = upd
        else:
            ufunc.at(out, where, upd)
        return out
    return kernel


def _shape(op):
    tensor, indices, updates = (dims_of(t) for t in op.inputs)
    if tensor is not None and indices is not None and updates is not None \
            and indices and indices[-1] is not None:
        want = tuple(indices[:-1]) + tuple(tensor[indices[-1]:])
        try:
            merge_dims(tuple(updates), want)
        except ValueError as e:
            raise ValueError(f"Dimensions of updates {fmt_dims(updates)} do not match "
                             f"indices {fmt_dims(indices)} and tensor {fmt_dims(tensor)} for "
                             f"'{op.name}'") from e
    return [op.inputs[0].shape]


for _op_type in _UPDATES:
    register_op(_op_type, inputs=["tensor: T", "indices: Tindices", "updates: T"],
                outputs=["output: T"], attrs=["T: type", "Tindices: {int32, int64}"],
                shape_fn=_shape, kernel=_kernel(_op_type))


@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op, grad):
    indices = op.inputs[1]
    updates_grad = gather_nd(grad, indices)
    tensor_grad = tensor_scatter_nd_update(identity(grad), indices,
                                           zeros_like(op.inputs[2], dtype=grad.dtype))
    return [tensor_grad, None, updates_grad]


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op, grad):
    return [identity(grad), None, gather_nd(grad, op.inputs[1])]


@RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op, grad):
    return [identity(grad), None, arith.negative(gather_nd(grad, op.inputs[1]))]


def _tensor_scatter_min_or_max_grad(op, grad):
    """The gradient goes to the elements that gave the result, split among ties."""
    indices, x, y, z = op.inputs[1], op.inputs[0], op.inputs[2], op.outputs[0]
    x_indicators = cast(arith.equal(x, z), grad.dtype)
    y_output = gather_nd(z, indices)
    y_indicators = cast(arith.equal(y, y_output), grad.dtype)
    ys_indicators = scatter_nd(indices, y_indicators, shape(x, out_type=indices.dtype))
    indicators = arith.add(x_indicators, ys_indicators)
    x_grad = arith.truediv(arith.multiply(grad, x_indicators), indicators)
    y_grad = arith.multiply(gather_nd(arith.truediv(grad, indicators), indices), y_indicators)
    return [x_grad, None, y_grad]


RegisterGradient("TensorScatterMin")(_tensor_scatter_min_or_max_grad)
RegisterGradient("TensorScatterMax")(_tensor_scatter_min_or_max_grad)


def _scatter(op_type, doc):
    def fn(tensor, indices, updates, name=None):
        return apply_op(op_type, tensor=tensor, indices=indices, updates=updates,
                        name=name).outputs[0]
    fn.__doc__ = (f"A copy of `tensor` with `updates` {doc} at `indices` ({op_type}); "
                  "the last dimension of `indices` indexes the leading dimensions of "
                  "`tensor`.")
    return fn


tensor_scatter_nd_update = _scatter("TensorScatterUpdate", "written")
tensor_scatter_nd_add = _scatter("TensorScatterAdd", "added")
tensor_scatter_nd_sub = _scatter("TensorScatterSub", "subtracted")
tensor_scatter_nd_min = _scatter("TensorScatterMin", "taken where smaller")
tensor_scatter_nd_max = _scatter("TensorScatterMax", "taken where larger")
for _fn, _name in ((tensor_scatter_nd_update, "tensor_scatter_nd_update"),
                   (tensor_scatter_nd_add, "tensor_scatter_nd_add"),
                   (tensor_scatter_nd_sub, "tensor_scatter_nd_sub"),
                   (tensor_scatter_nd_min, "tensor_scatter_nd_min"),
                   (tensor_scatter_nd_max, "tensor_scatter_nd_max")):
    _fn.__name__ = _fn.__qualname__ = _name
tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub
