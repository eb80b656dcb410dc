"""Matrix products, QR and sums of many tensors: MatMul, BatchMatMul(V2, V3),
SparseMatMul (float32 or bfloat16 inputs, a float32 product; the sparsity flags are
hints), Qr, AddN (registrations and kernels).

Half-precision products are computed in float32 and rounded back (NumPy
promotes bfloat16 products to float32 otherwise); integer products stay in
their type. Gradients: `matmul_grad`.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.dtypes import is_half_float
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.kernels import blas_threads
from trainflow._src.ops.math.shapes import (batch_matmul_shape_fn, matmul_shape_fn,
                                       merge_all_shape_fn)

_MATMUL_TYPES = ("{bfloat16, float16, float32, float64, int32, int64, uint8, uint16, uint32, "
                 "uint64, complex64, complex128}")
_BATCH_MATMUL_TYPES = ("{bfloat16, float16, float32, float64, int16, int32, int64, uint8, "
                       "uint16, uint32, uint64, complex64, complex128}")
_V3_IN_TYPES = ("{bfloat16, float16, float32, float64, uint8, int8, int16, int32, int64, "
                 "complex64, complex128}")
_V3_OUT_TYPES = "{bfloat16, float16, float32, float64, int16, int32, int64, complex64, complex128}"
_ADD_N_TYPES = ("{float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, "
                "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, float16, "
                "uint32, uint64, variant}")


def _shape_str(x):
    return "[" + ",".join(str(d) for d in np.shape(x)) + "]"


def _product(a, b, a_in, b_in):
    """np.matmul with TF's dtype rules and error messages (a_in/b_in: the raw inputs)."""
    dt = a.dtype
    try:
        if is_half_float(dt):
            return blas_threads.matmul(a.astype(np.float32), b.astype(np.float32)).astype(dt)
        return blas_threads.matmul(a, b)
    except ValueError:
        if a.shape[-1] != b.shape[-2]:
            msg = (f"Matrix size-incompatible: In[0]: {_shape_str(a_in)}, "
                   f"In[1]: {_shape_str(b_in)}")
        else:
            msg = (f"In[0] and In[1] must have compatible batch dimensions: "
                   f"{_shape_str(a_in)} vs. {_shape_str(b_in)}")
        raise errors.InvalidArgumentError(None, None, msg) from None


def _matmul(a, b, *, transpose_a, transpose_b):
    if a.ndim != 2 or b.ndim != 2:
        i = 0 if a.ndim != 2 else 1
        raise errors.InvalidArgumentError(
            None, None, f"In[{i}] is not a matrix. Instead it has shape {_shape_str((a, b)[i])}")
    return _product(a.T if transpose_a else a, b.T if transpose_b else b, a, b)


def _sparse_matmul(a, b, *, transpose_a, transpose_b, a_is_sparse, b_is_sparse, Ta, Tb):  # noqa: N803
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    return _matmul(a32, b32, transpose_a=transpose_a, transpose_b=transpose_b)


def _adjoint(m):
    m = np.swapaxes(m, -1, -2)
    return np.conjugate(m) if m.dtype.kind == "c" else m


def _batch_matmul(x, y, *, adj_x, adj_y):
    for i, m in enumerate((x, y)):
        if np.ndim(m) < 2:
            raise errors.InvalidArgumentError(
                None, None, f"In[{i}] ndims must be >= 2: {np.ndim(m)}")
    return _product(_adjoint(x) if adj_x else x, _adjoint(y) if adj_y else y, x, y)


def _batch_matmul_v3(x, y, *, adj_x, adj_y, Tout):  # noqa: N803 - TF's attr name
    out = Tout.as_numpy_dtype
    wide = np.float32 if is_half_float(out) else out
    product = _batch_matmul(np.asarray(x).astype(wide), np.asarray(y).astype(wide),
                            adj_x=adj_x, adj_y=adj_y)
    return product.astype(out, copy=False)


def _add_n(inputs):
    first = inputs[0]
    shape = np.shape(first)
    for i, v in enumerate(inputs[1:], 1):
        if np.shape(v) != shape:
            raise errors.InvalidArgumentError(
                None, None, "Inputs to operation AddN of type AddN must have the same size and "
                            f"shape.  Input 0: {_shape_str(first)} != input {i}: "
                            f"{_shape_str(v)}")
    if len(inputs) == 1:
        return np.array(first, copy=True)
    out = np.add(first, inputs[1])
    for v in inputs[2:]:
        if isinstance(out, np.ndarray):
            np.add(out, v, out=out)
        else:
            out = np.add(out, v)
    return out


def _qr(input, *, full_matrices):  # noqa: A002 - TF's arg name
    if np.ndim(input) < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor 0 must have rank >= 2, got {np.ndim(input)}")
    dt = input.dtype
    x = input.astype(np.float32) if dt == np.float16 else input
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q.astype(dt, copy=False), r.astype(dt, copy=False)


def _qr_shape_fn(op):
    dims = op._inputs[0]._shape._dims
    if dims is None:
        return [unknown_shape(), unknown_shape()]
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
    batch, (m, n) = dims[:-2], dims[-2:]
    if op._attrs.get("full_matrices", False):
        return [TensorShape._from_values(batch + (m, m)), TensorShape._from_values(batch + (m, n))]
    k = None if m is None or n is None else min(m, n)
    return [TensorShape._from_values(batch + (m, k)), TensorShape._from_values(batch + (k, n))]


register_op("MatMul", inputs=["a: T", "b: T"], outputs=["product: T"],
            attrs=["transpose_a: bool = false", "transpose_b: bool = false",
                   f"T: {_MATMUL_TYPES}", "grad_a: bool = false", "grad_b: bool = false"],
            shape_fn=matmul_shape_fn, kernel=_matmul)
register_op("SparseMatMul", inputs=["a: Ta", "b: Tb"], outputs=["product: float"],
            attrs=["transpose_a: bool = false", "transpose_b: bool = false",
                   "a_is_sparse: bool = false", "b_is_sparse: bool = false",
                   "Ta: {float32, bfloat16} = DT_FLOAT", "Tb: {float32, bfloat16} = DT_FLOAT"],
            shape_fn=matmul_shape_fn, kernel=_sparse_matmul)
register_op("BatchMatMulV2", inputs=["x: T", "y: T"], outputs=["output: T"],
            attrs=[f"T: {_BATCH_MATMUL_TYPES}", "adj_x: bool = false", "adj_y: bool = false",
                   "grad_x: bool = false", "grad_y: bool = false"],
            shape_fn=batch_matmul_shape_fn, kernel=_batch_matmul)
# The pre-broadcasting version, kept so older GraphDefs import and run.
register_op("BatchMatMul", inputs=["x: T", "y: T"], outputs=["output: T"],
            attrs=["T: {bfloat16, float16, float32, float64, int32, int64, complex64, "
                   "complex128}", "adj_x: bool = false", "adj_y: bool = false",
                   "grad_x: bool = false", "grad_y: bool = false"],
            shape_fn=batch_matmul_shape_fn, kernel=_batch_matmul)
register_op("BatchMatMulV3", inputs=["x: Ta", "y: Tb"], outputs=["output: Tout"],
            attrs=[f"Ta: {_V3_IN_TYPES}", f"Tb: {_V3_IN_TYPES}", f"Tout: {_V3_OUT_TYPES}",
                   "adj_x: bool = false", "adj_y: bool = false", "grad_x: bool = false",
                   "grad_y: bool = false"],
            shape_fn=batch_matmul_shape_fn, kernel=_batch_matmul_v3)
register_op("Qr", inputs=["input: T"], outputs=["q: T", "r: T"],
            attrs=["full_matrices: bool = false",
                   "T: {float64, float32, float16, complex64, complex128}"],
            shape_fn=_qr_shape_fn, kernel=_qr)
register_op("AddN", inputs=["inputs: N * T"], outputs=["sum: T"],
            attrs=["N: int >= 1", f"T: {_ADD_N_TYPES}"],
            shape_fn=merge_all_shape_fn, kernel=_add_n)
