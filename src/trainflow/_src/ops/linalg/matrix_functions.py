"""Matrix functions: the `MatrixSquareRoot` op (`tf.linalg.sqrtm`,
`tf.matrix_square_root`, with TensorFlow's Sylvester-equation gradient), the
`MatrixLogarithm` op (`tf.linalg.logm`, complex only, no gradient, as in TensorFlow)
and `tf.linalg.expm`, TensorFlow's composite of Pade approximants with scaling and
squaring.

The square root is the principal one (the Denman-Beavers iteration); a real matrix
with an eigenvalue on the closed negative real axis has none, and gives NaN as
TensorFlow's does. The logarithm is the principal one, from the eigendecomposition.
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.array import slicing
from trainflow._src.ops.array import cast
from trainflow._src.ops.array.shape_util import invalid_argument
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.control_flow.while_loop import while_loop
from trainflow._src.ops.linalg import linalg_impl
from trainflow._src.ops.linalg.linalg_ops import _square_shape
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions

__all__ = ["matrix_exponential", "matrix_logarithm", "matrix_square_root"]


def _check_square(x):
    if x.ndim < 2:
        raise invalid_argument(f"Input must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise invalid_argument(f"Input matrices must be squares, got{x.shape[-2]} != "
                               f"{x.shape[-1]}")


def _sqrtm_one(a):
    n = a.shape[-1]
    if n == 0:
        return a
    eig = np.linalg.eigvals(a)
    if a.dtype.kind != "c" and np.any((eig.real <= 0) & (np.abs(eig.imag) <= 1e-12 *
                                                          max(1.0, np.abs(eig).max()))):
        return np.full_like(a, np.nan)
    y, z = a.copy(), np.eye(n, dtype=a.dtype)
    for _ in range(100):
        try:
            y_inv, z_inv = np.linalg.inv(y), np.linalg.inv(z)
        except np.linalg.LinAlgError:
            return np.full_like(a, np.nan)
        y_next = 0.5 * (y + z_inv)
        z = 0.5 * (z + y_inv)
        done = np.abs(y_next - y).max() <= 1e-15 * np.abs(y_next).max()
        y = y_next
        if done:
            break
    return y


def _matrix_square_root(input):  # noqa: A002 - TF's name
    x = np.asarray(input)
    _check_square(x)
    if x.size == 0:
        return x.copy()
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    n = x.shape[-1]
    flat = wide.reshape((-1, n, n))
    with np.errstate(all="ignore"):
        out = np.stack([_sqrtm_one(m) for m in flat]) if flat.shape[0] else flat
    return out.reshape(x.shape).astype(x.dtype)


def _logm_one(a):
    if a.shape[-1] == 0:
        return a
    w, v = np.linalg.eig(a)
    if np.any(w == 0):
        return np.full_like(a, np.nan)
    try:
        return v @ np.diag(np.log(w)) @ np.linalg.inv(v)
    except np.linalg.LinAlgError:
        return np.full_like(a, np.nan)


def _matrix_logarithm(input):  # noqa: A002
    x = np.asarray(input)
    _check_square(x)
    if x.size == 0:
        return x.copy()
    n = x.shape[-1]
    flat = x.astype(np.complex128).reshape((-1, n, n))
    with np.errstate(all="ignore"):
        out = np.stack([_logm_one(m) for m in flat]) if flat.shape[0] else flat
    return out.reshape(x.shape).astype(x.dtype)


register_op("MatrixSquareRoot", inputs=["input: T"], outputs=["output: T"],
            attrs=["T: {double, float, half, complex64, complex128}"],
            shape_fn=_square_shape, kernel=_matrix_square_root)
register_op("MatrixLogarithm", inputs=["input: T"], outputs=["output: T"],
            attrs=["T: {complex64, complex128}"],
            shape_fn=_square_shape, kernel=_matrix_logarithm)


def matrix_square_root(input, name=None):  # noqa: A002
    """The principal square roots of square matrices (`MatrixSquareRoot`)."""
    return apply_op("MatrixSquareRoot", input=input, name=name).outputs[0]


def matrix_logarithm(input, name=None):  # noqa: A002
    """The principal logarithms of complex square matrices (`MatrixLogarithm`)."""
    return apply_op("MatrixLogarithm", input=input, name=name).outputs[0]


def _kronecker(b1, b2):
    """Kronecker products of two batches of square matrices."""
    s1, s2 = shape_lib.shape(b1), shape_lib.shape(b2)
    n1, n2 = s1[-1], s2[-1]
    batch = slicing.slice(s1, [0], [arith.subtract(shape_lib.size(s1), 2)])
    r1 = shape_lib.reshape(b1, join.concat([batch, [n1], [1], [n1], [1]], 0))
    r2 = shape_lib.reshape(b2, join.concat([batch, [1], [n2], [1], [n2]], 0))
    return shape_lib.reshape(r1 * r2, join.concat([batch, [n1 * n2], [n1 * n2]], 0))


@RegisterGradient("MatrixSquareRoot")
def _matrix_square_root_grad(op, grad):
    # A = R R gives dA = R dR + dR R, a Sylvester equation solved in vectorized form
    # with Kronecker products (TensorFlow's formulation).
    sqrtm = op.outputs[0]
    shape = shape_lib.shape(sqrtm)
    order = shape[-1]
    count = reductions.reduce_prod(shape[0:-2])
    eye = linalg_impl.eye(order, dtype=sqrtm.dtype)
    eye_batch = shape_lib.reshape(
        layout.tile(shape_lib.reshape(eye, [-1]), [count]), shape)
    ksum = arith.add(_kronecker(eye_batch, linalg_impl.matrix_transpose(sqrtm)),
                     _kronecker(sqrtm, eye_batch))
    batch = slicing.slice(shape, [0], [arith.subtract(shape_lib.size(shape), 2)])
    vec_da = shape_lib.reshape(linalg_impl.matrix_transpose(grad),
                               join.concat([batch, [order * order], [1]], 0))
    vec_dr = linalg_impl.matrix_solve(ksum, vec_da)
    return linalg_impl.matrix_transpose(shape_lib.reshape(vec_dr, shape))


# -- expm: Pade approximants of degree 3 ... 13 (Higham 2005) -----------------------------
_PADE = {
    3: (120.0, 60.0, 12.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
         1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
         33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0),
}


def _pade(matrix, degree):
    """(U, V) of the degree-`degree` Pade approximant: exp(A) ~ (V - U)^-1 (V + U)."""
    b = [constant(x, matrix.dtype) for x in _PADE[degree]]
    shape = shape_lib.shape(matrix)
    ident = linalg_impl.eye(shape[-2], batch_shape=shape[:-2], dtype=matrix.dtype)
    m2 = arith.matmul(matrix, matrix)
    if degree == 3:
        return (arith.matmul(matrix, m2 + b[1] * ident), b[2] * m2 + b[0] * ident)
    m4 = arith.matmul(m2, m2)
    if degree == 5:
        tmp = m4 + b[3] * m2 + b[1] * ident
        return arith.matmul(matrix, tmp), b[4] * m4 + b[2] * m2 + b[0] * ident
    m6 = arith.matmul(m4, m2)
    if degree == 7:
        tmp = m6 + b[5] * m4 + b[3] * m2 + b[1] * ident
        return (arith.matmul(matrix, tmp),
                b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident)
    if degree == 9:
        m8 = arith.matmul(m6, m2)
        tmp = m8 + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident
        return (arith.matmul(matrix, tmp),
                b[8] * m8 + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident)
    tmp_u = (arith.matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4
             + b[3] * m2 + b[1] * ident)
    tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
    return (arith.matmul(matrix, tmp_u),
            arith.matmul(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident)


# dtype family -> (largest norm of the top approximant, norm bounds of the lower ones,
# their degrees).
_EXPM_PLAN = {
    "single": (3.925724783138660, (4.258730016922831e-001, 1.880152677804762e000),
               (3, 5, 7)),
    "double": (5.371920351148152, (1.495585217958292e-002, 2.539398330063230e-001,
                                   9.504178996162932e-001, 2.097847961257068e000),
               (3, 5, 7, 9, 13)),
}


def matrix_exponential(input, name=None):  # noqa: A002
    """The matrix exponentials of square matrices (`tf.linalg.expm`), by scaling and
    squaring with Pade approximants.

    Raises:
      ValueError: for an unsupported dtype.
    """
    with get_default_graph().name_scope(name or "matrix_exponential"):
        matrix = convert_to_tensor(input, name="input")
        dims = matrix.shape.as_list() if matrix.shape.rank is not None else None
        if dims is not None and dims[-2:] == [0, 0]:
            return matrix
        batch_shape = matrix.shape[:-2]
        if not batch_shape.is_fully_defined():
            batch_shape = shape_lib.shape(matrix)[:-2]
        matrix = shape_lib.reshape(
            matrix, join.concat(([-1], shape_lib.shape(matrix)[-2:]), axis=0))
        l1_norm = reductions.reduce_max(
            reductions.reduce_sum(arith.abs(matrix),
                                  axis=shape_lib.size(shape_lib.shape(matrix)) - 2),
            axis=-1)[..., None, None]

        def const(x):
            return constant(x, l1_norm.dtype)

        def nest_where(bounds, cases):
            if len(bounds) == 1:
                return gather_ops.where_v2(arith.less(l1_norm, const(bounds[0])),
                                           cases[0], cases[1])
            return gather_ops.where_v2(arith.less(l1_norm, const(bounds[0])), cases[0],
                                       nest_where(bounds[1:], cases[1:]))

        base = matrix.dtype.base_dtype
        if base in (dtypes.float16, dtypes.float32, dtypes.complex64):
            maxnorm, bounds, degrees = _EXPM_PLAN["single"]
        elif base in (dtypes.float64, dtypes.complex128):
            maxnorm, bounds, degrees = _EXPM_PLAN["double"]
        else:
            raise ValueError(f"tf.linalg.expm does not support matrices of type "
                             f"{matrix.dtype}")
        squarings = arith.maximum(
            arith.floor(arith.log(l1_norm / const(maxnorm)) / arith.log(const(2.0))), 0)
        pairs = [_pade(matrix, d) for d in degrees[:-1]]
        scaled = matrix / cast.cast(arith.pow(const(2.0), squarings), matrix.dtype)
        pairs.append(_pade(scaled, degrees[-1]))
        u = nest_where(bounds, [p[0] for p in pairs])
        v = nest_where(bounds, [p[1] for p in pairs])
        is_finite = arith.is_finite(reductions.reduce_max(l1_norm))
        nan = constant(np.nan, matrix.dtype)
        result = cond(is_finite, lambda: linalg_impl.matrix_solve(-u + v, u + v),
                      lambda: create.fill(shape_lib.shape(matrix), nan))
        max_squarings = reductions.reduce_max(squarings)

        def keep_going(i, _):
            return cond(is_finite, lambda: arith.less(i, max_squarings),
                        lambda: constant(False))

        def square(i, r):
            return i + 1, gather_ops.where_v2(arith.less(i, squarings),
                                              arith.matmul(r, r), r)

        _, result = while_loop(keep_going, square, [const(0.0), result])
        if not matrix.shape.is_fully_defined():
            return shape_lib.reshape(
                result, join.concat((batch_shape, shape_lib.shape(result)[-2:]), axis=0))
        return shape_lib.reshape(result, batch_shape.concatenate(result.shape[-2:]))


# tf.linalg's names.
expm = matrix_exponential
logm = matrix_logarithm
sqrtm = matrix_square_root
