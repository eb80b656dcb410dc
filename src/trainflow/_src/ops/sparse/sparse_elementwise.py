"""Element-wise ops on SparseTensors: `tf.sparse.softmax` (SparseSoftmax, over the last
axis of each row), `tf.sparse.maximum` / `tf.sparse.minimum` (SparseSparseMaximum /
Minimum: the union of two SparseTensors' entries, a missing entry counting as zero) and the
SparseDenseCwiseAdd / Mul / Div ops (a dense tensor broadcast to a SparseTensor's entries).
The gradients are TensorFlow's: SparseSoftmax and the Mul / Div ops have one; for
SparseSparseMaximum / Minimum and SparseDenseCwiseAdd TensorFlow's gradient raises
NotImplementedError, and so does ours."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import ones, zeros_like
from trainflow._src.ops.array.gather import gather_nd
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import expand_dims, shape, size
from trainflow._src.ops.array.shape_util import dims_of, invalid_argument, shape_of
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.math import overloads  # noqa: F401 - the Tensor operators used here
from trainflow._src.ops.math.arith import square
from trainflow._src.ops.sparse.sparse_add import sparse_add
from trainflow._src.ops.sparse.sparse_reduce import sparse_reduce_sum

__all__ = ["sparse_dense_cwise_add", "sparse_maximum", "sparse_minimum", "sparse_softmax"]

_REAL = ("{float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, "
         "uint32, uint64}")
_NUMBER = ("{float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
           "qint32, bfloat16, qint16, quint16, uint16, complex128, float16, uint32, uint64}")


# --- SparseSoftmax ---

def _softmax_kernel(sp_indices, sp_values, sp_shape):
    indices = np.asarray(sp_indices, np.int64)
    values = np.asarray(sp_values)
    shape = np.asarray(sp_shape, np.int64)
    if shape.size < 2:
        raise invalid_argument(f"Input should have rank >= 2, but received shape: "
                               f"{shape.tolist()}")
    if indices.ndim != 2 or values.ndim != 1 or indices.shape[0] != values.shape[0]:
        raise invalid_argument(f"Expected sp_indices.dim_size(0) == sp_values.dim_size(0), "
                               f"got {indices.shape[0]} and {values.shape[0]}")
    out = np.empty_like(values)
    n = len(values)
    start = 0
    # Runs of consecutive entries with the same leading indices are the rows, as
    # TensorFlow groups them (the input is taken to be in row-major order).
    while start < n:
        end = start + 1
        while end < n and np.array_equal(indices[end, :-1], indices[start, :-1]):
            end += 1
        row = values[start:end]
        e = np.exp(row - row.max())
        out[start:end] = e / e.sum()
        start = end
    return out


def _softmax_shape(op):
    dims = dims_of(op.inputs[1])
    return [shape_of([dims[0] if dims else None])]


register_op("SparseSoftmax", inputs=["sp_indices: int64", "sp_values: T", "sp_shape: int64"],
            outputs=["output: T"], attrs=["T: {float16, float32, float64}"],
            shape_fn=_softmax_shape, kernel=_softmax_kernel)


@RegisterGradient("SparseSoftmax")
def _sparse_softmax_grad(op, grad):
    # softmax's gradient on the entries alone: (g - sum(g * y, last axis)) * y
    indices, dense_shape = op.inputs[0], op.inputs[2]
    out_vals = op.outputs[0]
    sp_grad = SparseTensor(indices, grad, dense_shape)
    sp_product = SparseTensor(indices, out_vals * grad, dense_shape)
    sum_reduced = -sparse_reduce_sum(sp_product, [-1], keepdims=True)
    sp_sum = sparse_dense_cwise_add(sp_grad, sum_reduced)
    return [None, sp_sum.values * out_vals, None]


# --- SparseSparseMaximum / SparseSparseMinimum ---

def _union_kernel(fn):
    def kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        a_idx, b_idx = np.asarray(a_indices, np.int64), np.asarray(b_indices, np.int64)
        a_val, b_val = np.asarray(a_values), np.asarray(b_values)
        a_shape, b_shape = np.asarray(a_shape, np.int64), np.asarray(b_shape, np.int64)
        if a_idx.ndim != 2 or b_idx.ndim != 2:
            raise invalid_argument("Inputs a_indices and b_indices should be matrices")
        if a_shape.tolist() != b_shape.tolist():
            raise invalid_argument(f"Operands' shapes do not match: got {a_shape.tolist()} "
                                   f"and {b_shape.tolist()} for lhs and rhs, respectively")
        rank = a_shape.size
        merged = {}
        for row, v in zip(map(tuple, a_idx.tolist()), a_val):
            merged[row] = [v, a_val.dtype.type(0)]
        for row, v in zip(map(tuple, b_idx.tolist()), b_val):
            merged.setdefault(row, [a_val.dtype.type(0), a_val.dtype.type(0)])[1] = v
        keys = sorted(merged)
        out_idx = np.array(keys, np.int64).reshape(-1, rank)
        out_val = np.array([fn(*merged[k]) for k in keys], a_val.dtype).reshape(-1)
        return out_idx, out_val
    return kernel


def _union_shape(op):
    return [shape_of([None, None]), shape_of([None])]


_UNION_INPUTS = ["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64",
                 "b_values: T", "b_shape: int64"]
register_op("SparseSparseMaximum", inputs=_UNION_INPUTS,
            outputs=["output_indices: int64", "output_values: T"], attrs=[f"T: {_REAL}"],
            shape_fn=_union_shape, kernel=_union_kernel(max))
register_op("SparseSparseMinimum", inputs=_UNION_INPUTS,
            outputs=["output_indices: int64", "output_values: T"], attrs=[f"T: {_NUMBER}"],
            shape_fn=_union_shape, kernel=_union_kernel(min))


def _not_implemented(op_type):
    # TensorFlow's functions take one gradient, so for the two-output ops the call itself
    # fails with a TypeError first, as it does there
    def grad(op, unused_grad):
        raise NotImplementedError(f"Gradient for {op_type} is not implemented.")
    RegisterGradient(op_type)(grad)


for _op_type in ("SparseSparseMaximum", "SparseSparseMinimum", "SparseDenseCwiseAdd"):
    _not_implemented(_op_type)


def _union(op_type, sp_a, sp_b, name):
    with name_scope(name, op_type,
                    [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]) as name:
        out_indices, out_values = apply_op(
            op_type, a_indices=sp_a.indices, a_values=sp_a.values, a_shape=sp_a.dense_shape,
            b_indices=sp_b.indices, b_values=sp_b.values, b_shape=sp_b.dense_shape,
            name=name).outputs
    return SparseTensor(out_indices, out_values, sp_a.dense_shape)


# --- SparseDenseCwiseAdd / Mul / Div ---

def _cwise_kernel(fn):
    def kernel(sp_indices, sp_values, sp_shape, dense):
        indices = np.asarray(sp_indices, np.int64)
        values, dense = np.asarray(sp_values), np.asarray(dense)
        shape = [int(d) for d in np.asarray(sp_shape).tolist()]
        if dense.ndim > len(shape) or any(
                d not in (1, s) for d, s in zip(dense.shape[::-1], shape[::-1])):
            raise invalid_argument(f"SparseDenseBinaryOpShared broadcasts dense to sparse "
                                   f"only; got incompatible shapes: [{','.join(map(str, shape))}]"
                                   f" vs. [{','.join(map(str, dense.shape))}]")
        full = np.broadcast_to(dense, shape)
        picked = full[tuple(indices.reshape(-1, len(shape)).T)] if len(shape) else \
            np.broadcast_to(full, values.shape)
        return fn(values, picked).astype(values.dtype)
    return kernel


def _cwise_shape(op):
    dims = dims_of(op.inputs[0])
    return [shape_of([dims[0] if dims else None])]


for _op_type, _fn in (("SparseDenseCwiseAdd", np.add), ("SparseDenseCwiseMul", np.multiply),
                      ("SparseDenseCwiseDiv", np.divide)):
    register_op(_op_type, inputs=["sp_indices: int64", "sp_values: T", "sp_shape: int64",
                                  "dense: T"],
                outputs=["output: T"], attrs=[f"T: {_NUMBER}"], shape_fn=_cwise_shape,
                kernel=_cwise_kernel(_fn))


def _mul_or_div_grad(op, grad, is_mul):
    x_indices, x_shape, y = op.inputs[0], op.inputs[2], op.inputs[3]
    y_shape = cast(shape(y), dtypes.int64)
    num_added_dims = expand_dims(size(x_shape) - size(y_shape), 0)
    augmented_y_shape = concat([ones(num_added_dims, dtypes.int64), y_shape], 0)
    scaling = x_shape // augmented_y_shape
    scaled_indices = slice_(x_indices // scaling, concat([[0], num_added_dims], 0), [-1, -1])
    dense_vals = gather_nd(y, scaled_indices)
    if is_mul:
        dx, dy_val = grad * dense_vals, grad * op.inputs[1]
    else:
        dx = grad / dense_vals
        dy_val = grad * (-op.inputs[1] / square(dense_vals))
    # scaled indices can repeat, so the dense gradient is a sum, not a SparseToDense
    dy = sparse_add(zeros_like(y), SparseTensor(scaled_indices, dy_val, y_shape))
    return None, dx, None, dy


RegisterGradient("SparseDenseCwiseMul")(lambda op, grad: _mul_or_div_grad(op, grad, True))
RegisterGradient("SparseDenseCwiseDiv")(lambda op, grad: _mul_or_div_grad(op, grad, False))


def sparse_dense_cwise_add(sp_t, dense_t):
    """`sp_t` with `dense_t` (broadcast to its dense shape) added to each entry."""
    result = apply_op("SparseDenseCwiseAdd", sp_indices=sp_t.indices, sp_values=sp_t.values,
                      sp_shape=sp_t.dense_shape, dense=dense_t).outputs[0]
    return SparseTensor(sp_t.indices, result, sp_t.dense_shape)


def sparse_softmax(sp_input, name=None):
    """Softmax over the last axis of an N-D SparseTensor (N >= 2), on its entries only:
    the missing ones count as -inf. Entries must be in row-major order."""
    with name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]) as name:
        out_vals = apply_op("SparseSoftmax", sp_indices=sp_input.indices,
                            sp_values=sp_input.values, sp_shape=sp_input.dense_shape
                            ).outputs[0]
        return SparseTensor(sp_input.indices, out_vals, sp_input.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The element-wise maximum of two SparseTensors of one dense shape (entries in the
    union of theirs; a missing entry counts as zero)."""
    return _union("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None):
    """The element-wise minimum of two SparseTensors of one dense shape (entries in the
    union of theirs; a missing entry counts as zero)."""
    return _union("SparseSparseMinimum", sp_a, sp_b, name)


# --- SparseTensor's `*`, `/` and the Python 2 `__div__`, as TensorFlow overloads them ---

_TRUEDIV = {dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32,
            dtypes.uint16: dtypes.float32, dtypes.int16: dtypes.float32,
            dtypes.uint32: dtypes.float64, dtypes.uint64: dtypes.float64,
            dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
            dtypes.bfloat16: None, dtypes.float16: None, dtypes.float32: None,
            dtypes.float64: None, dtypes.complex64: None, dtypes.complex128: None}


def _cwise(op_type):
    def fn(sp_indices, sp_values, sp_shape, y, name=None):
        return apply_op(op_type, sp_indices=sp_indices, sp_values=sp_values,
                        sp_shape=sp_shape, dense=y, name=name).outputs[0]
    return fn


def _sparse_dense_truediv(sp_indices, sp_values, sp_shape, y, name=None):
    with name_scope(name, "truediv", [sp_indices, sp_values, sp_shape, y]) as name:
        sp_values = convert_to_tensor(sp_values, name="sp_values")
        y = convert_to_tensor(y, name="y")
        x_dtype, y_dtype = sp_values.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != "
                            f"{y_dtype!r}.")
        if x_dtype not in _TRUEDIV:
            raise TypeError(f"Invalid dtype {x_dtype!r} in __truediv__. Expected one of "
                            f"{{{', '.join(repr(x) for x in _TRUEDIV)}}}.")
        dtype = _TRUEDIV[x_dtype]
        if dtype is not None:
            sp_values, y = cast(sp_values, dtype), cast(y, dtype)
        return apply_op("SparseDenseCwiseDiv", sp_indices=sp_indices, sp_values=sp_values,
                        sp_shape=sp_shape, dense=y, name=name).outputs[0]


def _operator(func, op_name):
    def wrapper(sp_x, y):
        with name_scope(None, op_name, [sp_x, y]) as name:
            y = convert_to_tensor(y, dtype=sp_x.dtype.base_dtype, name="y")
            return SparseTensor(sp_x.indices,
                                func(sp_x.indices, sp_x.values, sp_x.dense_shape, y,
                                     name=name),
                                sp_x.dense_shape)
    wrapper.__name__ = f"__{op_name}__"
    return wrapper


SparseTensor._override_operator("__div__", _operator(_cwise("SparseDenseCwiseDiv"), "div"))
SparseTensor._override_operator("__truediv__", _operator(_sparse_dense_truediv, "truediv"))
SparseTensor._override_operator("__mul__", _operator(_cwise("SparseDenseCwiseMul"), "mul"))
