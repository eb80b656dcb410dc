"""Gradients of the matrix products (MatMul, BatchMatMul, BatchMatMulV2/V3) and AddN.

For C = A @ B: dA = dC @ B^H and dB = A^H @ dC, arranged for the transpose and
adjoint flags so no explicit transpose is built (`gradients/<op>_grad/MatMul`
and `.../MatMul_1`, as in TensorFlow). Batched products whose batch dimensions
were broadcast sum the gradients over those dimensions. Qr has no gradient here
(it needs triangular solves), so differentiating through it raises LookupError.

Imported at the end of `math_ops`.
"""
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.ops.array import layout, shape
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math.grad_util import broadcast_gradient_args


def _mat_mul(a, b, transpose_a=False, transpose_b=False, grad_a=False, grad_b=False):
    """The raw MatMul op (TF's gen_math_ops.mat_mul)."""
    return arith._out("MatMul", None, a=a, b=b, transpose_a=transpose_a,
                         transpose_b=transpose_b, grad_a=grad_a, grad_b=grad_b)


@RegisterGradient("MatMul")
def _mat_mul_grad(op, grad):
    t_a = op.get_attr("transpose_a")
    t_b = op.get_attr("transpose_b")
    a = arith.conj(op.inputs[0])
    b = arith.conj(op.inputs[1])
    if not t_a and not t_b:
        grad_a = _mat_mul(grad, b, transpose_b=True, grad_a=True)
        grad_b = _mat_mul(a, grad, transpose_a=True, grad_b=True)
    elif not t_a and t_b:
        grad_a = _mat_mul(grad, b, grad_a=True)
        grad_b = _mat_mul(grad, a, transpose_a=True, grad_b=True)
    elif t_a and not t_b:
        grad_a = _mat_mul(b, grad, transpose_b=True, grad_a=True)
        grad_b = _mat_mul(a, grad, grad_b=True)
    else:
        grad_a = _mat_mul(b, grad, transpose_a=True, transpose_b=True, grad_a=True)
        grad_b = _mat_mul(grad, a, transpose_a=True, transpose_b=True, grad_b=True)
    return grad_a, grad_b


def _batch_products(op, grad, marks):
    """(dx, dy) of x @ y with the adjoint flags of `op`; `marks` adds grad_a/grad_b."""
    x, y = op.inputs
    adj_x = op.get_attr("adj_x")
    adj_y = op.get_attr("adj_y")
    ka = {"grad_a": True} if marks else {}
    kb = {"grad_b": True} if marks else {}
    if not adj_x:
        if not adj_y:
            grad_x = arith.matmul(grad, y, adjoint_a=False, adjoint_b=True, **ka)
            grad_y = arith.matmul(x, grad, adjoint_a=True, adjoint_b=False, **kb)
        else:
            grad_x = arith.matmul(grad, y, adjoint_a=False, adjoint_b=False, **ka)
            grad_y = arith.matmul(grad, x, adjoint_a=True, adjoint_b=False, **kb)
    elif not adj_y:
        grad_x = arith.matmul(y, grad, adjoint_a=False, adjoint_b=True, **ka)
        grad_y = arith.matmul(x, grad, adjoint_a=False, adjoint_b=False, **kb)
    else:
        grad_x = arith.matmul(y, grad, adjoint_a=True, adjoint_b=True, **ka)
        grad_y = arith.matmul(grad, x, adjoint_a=True, adjoint_b=True, **kb)
    return grad_x, grad_y


@RegisterGradient("BatchMatMul")
def _batch_mat_mul_grad(op, grad):
    # The pre-broadcasting op: both inputs have the same batch dimensions.
    return _batch_products(op, grad, marks=False)


def _batch_mat_mul_v2_grad(op, grad):
    grad_x, grad_y = _batch_products(op, grad, marks=True)
    x, y = op.inputs
    sx_static, sy_static = x.shape, y.shape
    may_have_batch = (sx_static.rank is None or sx_static.rank > 2 or
                      sy_static.rank is None or sy_static.rank > 2)
    batch_match = (sx_static[:-2].is_fully_defined() and sy_static[:-2].is_fully_defined()
                   and sx_static[:-2] == sy_static[:-2])
    if not may_have_batch or batch_match:
        return grad_x, grad_y
    # Batch dimensions were broadcast: sum each gradient over the ones its input lacked.
    sx = shape.shape(x)
    sy = shape.shape(y)
    rx, ry = broadcast_gradient_args(sx[:-2], sy[:-2])
    grad_x = shape.reshape(reductions.reduce_sum(grad_x, rx), sx)
    grad_y = shape.reshape(reductions.reduce_sum(grad_y, ry), sy)
    return grad_x, grad_y


RegisterGradient("BatchMatMulV2")(_batch_mat_mul_v2_grad)
RegisterGradient("BatchMatMulV3")(_batch_mat_mul_v2_grad)


@RegisterGradient("AddN")
def _add_n_grad(op, grad):
    # Every input gets the incoming gradient (AddN does not broadcast).
    return [grad] * len(op.inputs)


@RegisterGradient("SparseMatMul")
def _sparse_mat_mul_grad(op, grad):
    """TensorFlow's: the products keep the sparsity hints of their operands (the incoming
    gradient counts as sparse when a ReluGrad made it), cast back to each input's dtype."""
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    a, b = op.inputs[0], op.inputs[1]
    hints = {id(a): op.get_attr("a_is_sparse"), id(b): op.get_attr("b_is_sparse"),
             id(grad): grad.op.type == "ReluGrad"}

    def product(t1, t2, out_dtype, transpose_a=False, transpose_b=False):
        sparse1, sparse2 = hints[id(t1)], hints[id(t2)]
        if transpose_b:
            t2, transpose_b = layout.transpose(t2), False
        prod = arith.matmul(t1, t2, transpose_a=transpose_a, transpose_b=transpose_b,
                            a_is_sparse=sparse1, b_is_sparse=sparse2)
        return prod if prod.dtype == out_dtype else arith._cast(prod, out_dtype)

    da, db = a.dtype, b.dtype
    if not t_a and not t_b:
        return (product(grad, b, da, transpose_b=True), product(a, grad, db, transpose_a=True))
    if not t_a and t_b:
        return product(grad, b, da), product(grad, a, db, transpose_a=True)
    if t_a and not t_b:
        return product(b, grad, da, transpose_b=True), product(a, grad, db)
    return (product(b, grad, da, transpose_a=True, transpose_b=True),
            product(grad, a, db, transpose_a=True, transpose_b=True))
