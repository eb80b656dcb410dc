"""`tf.sparse_add` / `tf.sparse.add` (TF1's signature): SparseAdd for two SparseTensors
(entries merged in row-major order, summed where both have one, a sum dropped when its
magnitude is below the threshold) with its SparseAddGrad, and SparseTensorDenseAdd for a
SparseTensor and a dense tensor, with TensorFlow's gradients."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.gather import gather_nd
from trainflow._src.ops.array.shape import broadcast_static_shape
from trainflow._src.ops.array.shape_util import invalid_argument, shape_of
from trainflow._src.ops.math.reductions import _NUMBER, _REAL
from trainflow._src.ops.sparse.sparse_ops import _as_sparse

__all__ = ["sparse_add"]


def _check_shapes(a_shape, b_shape):
    a, b = np.asarray(a_shape).tolist(), np.asarray(b_shape).tolist()
    if len(a) != len(b):
        raise invalid_argument(f"Operands do not have the same ranks; got ranks: {len(a)} "
                               f"and {len(b)}")
    if a != b:
        raise invalid_argument(f"Operands' shapes do not match: got {a} and {b} for "
                               "tensors with shapes")
    return a


def _sparse_add(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    shape = _check_shapes(a_shape, b_shape)
    ai, bi = np.asarray(a_indices, np.int64), np.asarray(b_indices, np.int64)
    av, bv = np.asarray(a_values), np.asarray(b_values)
    sums, summed = {}, set()
    for idx, vals in ((ai, av), (bi, bv)):
        for row, v in zip(idx.reshape(-1, len(shape)).tolist(), vals.tolist()):
            key = tuple(row)
            if key in sums:
                sums[key] += v
                summed.add(key)
            else:
                sums[key] = v
    # TF's kernel: an entry of one operand is copied; a sum stays if thresh <= |sum|.
    keep = sorted(k for k, v in sums.items() if k not in summed or abs(v) >= thresh)
    return (np.array(keep, np.int64).reshape(-1, len(shape)),
            np.array([sums[k] for k in keep], av.dtype).reshape(-1),
            np.array(shape, np.int64))


def _sparse_add_shape(op):
    rank = op.inputs[2].shape.as_list()[0] if op.inputs[2].shape.rank else None
    return [shape_of([None, rank]), shape_of([None]), op.inputs[2].shape]


register_op("SparseAdd",
            inputs=["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64",
                    "b_values: T", "b_shape: int64", "thresh: Treal"],
            outputs=["sum_indices: int64", "sum_values: T", "sum_shape: int64"],
            attrs=[f"T: {_NUMBER}", f"Treal: {_REAL}"], shape_fn=_sparse_add_shape,
            kernel=_sparse_add)


def _sparse_add_grad_kernel(backprop_val_grad, a_indices, b_indices, sum_indices):
    grad = np.asarray(backprop_val_grad)
    position = {tuple(r): i for i, r in enumerate(np.asarray(sum_indices).tolist())}

    def take(indices):
        return np.array([grad[position[tuple(r)]] if tuple(r) in position else 0
                         for r in np.asarray(indices).tolist()], grad.dtype).reshape(-1)
    return take(a_indices), take(b_indices)


register_op("SparseAddGrad",
            inputs=["backprop_val_grad: T", "a_indices: int64", "b_indices: int64",
                    "sum_indices: int64"],
            outputs=["a_val_grad: T", "b_val_grad: T"], attrs=[f"T: {_NUMBER}"],
            shape_fn=lambda op: [TensorShape([op.inputs[1].shape.dims[0]
                                              if op.inputs[1].shape.rank else None]),
                                 TensorShape([op.inputs[2].shape.dims[0]
                                              if op.inputs[2].shape.rank else None])],
            kernel=_sparse_add_grad_kernel)
NotDifferentiable("SparseAddGrad")


@RegisterGradient("SparseAdd")
def _sparse_add_grad(op, *grads):
    a_val_grad, b_val_grad = apply_op(
        "SparseAddGrad", backprop_val_grad=grads[1], a_indices=op.inputs[0],
        b_indices=op.inputs[3], sum_indices=op.outputs[0]).outputs
    a_val_grad.set_shape(op.inputs[1].shape)
    b_val_grad.set_shape(op.inputs[4].shape)
    return (None, a_val_grad, None, None, b_val_grad, None, None)


def _sparse_dense_add(a_indices, a_values, a_shape, b):
    b = np.asarray(b)
    shape = np.asarray(a_shape).tolist()
    if list(b.shape) != shape:
        raise invalid_argument(f"Dimension mismatch: expected a_shape and b.shape to match; "
                               f"got {shape} and {list(b.shape)}")
    if not 1 <= len(shape) <= 5:
        raise invalid_argument(f"Only tensors with ranks between 1 and 5 are currently "
                               f"supported.  Tensor rank: {len(shape)}")
    out = np.array(b, copy=True)
    idx = np.asarray(a_indices).reshape(-1, len(shape))
    np.add.at(out, tuple(idx.T), np.asarray(a_values))
    return out


register_op("SparseTensorDenseAdd",
            inputs=["a_indices: Tindices", "a_values: T", "a_shape: Tindices", "b: T"],
            outputs=["output: T"], attrs=[f"T: {_NUMBER}", "Tindices: {int32, int64}"],
            shape_fn=lambda op: [op.inputs[3].shape], kernel=_sparse_dense_add)


@RegisterGradient("SparseTensorDenseAdd")
def _sparse_tensor_dense_add_grad(op, out_grad):
    return (None, gather_nd(out_grad, op.inputs[0]), None, out_grad)


def sparse_add(a, b, threshold=None, thresh=None):
    """`a + b` where at least one is a SparseTensor: a SparseTensor for two (a sum of two
    entries dropped when its magnitude is below `threshold`), a dense tensor for one.

    Raises:
      TypeError: if neither is a SparseTensor.
      ValueError: if both `threshold` and its older name `thresh` are given.
    """
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'threshold' and 'thresh'.")
    threshold = thresh if threshold is None else threshold
    if threshold is None:
        threshold = 0
    sparse = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if all(isinstance(x, sparse) for x in (a, b)):
        a, b = _as_sparse(a), _as_sparse(b)
        threshold = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype.base_dtype,
                                      name="threshold")
        ind, val, shape = apply_op(
            "SparseAdd", a_indices=a.indices, a_values=a.values, a_shape=a.dense_shape,
            b_indices=b.indices, b_values=b.values, b_shape=b.dense_shape,
            thresh=threshold).outputs
        a.shape.assert_is_compatible_with(b.shape)
        static_shape = broadcast_static_shape(a.shape, b.shape)
        if static_shape.is_fully_defined():
            shape = static_shape.as_list()
        return SparseTensor(ind, val, shape)
    if isinstance(b, sparse):
        a, b = b, a
    a = _as_sparse(a)
    return apply_op("SparseTensorDenseAdd", a_indices=a.indices, a_values=a.values,
                    a_shape=a.dense_shape, b=b).outputs[0]

