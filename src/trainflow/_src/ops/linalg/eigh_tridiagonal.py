"""`tf.linalg.eigh_tridiagonal`: the eigenvalues (and eigenvectors) of a Hermitian
tridiagonal matrix given its diagonal `alpha` and first superdiagonal `beta`.

TensorFlow finds the eigenvalues by Sturm-sequence bisection and the eigenvectors by
inverse iteration from random starting vectors; this builds the dense matrix and takes
its Hermitian eigendecomposition (`SelfAdjointEigV2`), which gives the same eigenvalues
to round-off (ascending) and the same eigenvectors up to each one's sign or phase,
which TensorFlow's random starts leave unspecified too. The selections are TensorFlow's:
all ('a'), by index ('i', [lo, hi]), or by value ('v', (lo, hi]).
"""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array import identity
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.linalg import eig
from trainflow._src.ops.linalg import linalg_impl
from trainflow._src.ops.math import arith

__all__ = ["eigh_tridiagonal"]


def _dense(alpha, beta):
    main = linalg_impl.diag(alpha)
    upper = linalg_impl.diag(beta, k=1)
    lower = linalg_impl.diag(arith.conj(beta), k=-1)
    return main + upper + lower


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None):
    """Eigenvalues (ascending) and, unless `eigvals_only`, eigenvectors (as columns) of
    the Hermitian tridiagonal matrix with diagonal `alpha` and superdiagonal `beta`.

    Raises:
      ValueError: if alpha and beta differ in dtype, or for an unknown `select`.
    """
    with get_default_graph().name_scope(name or "eigh_tridiagonal"):
        alpha = convert_to_tensor(alpha, name="alpha")
        n = alpha.shape.as_list()[0] if alpha.shape.rank else None
        if n is not None and n <= 1:
            return arith.real(alpha)
        beta = convert_to_tensor(beta, name="beta")
        if alpha.dtype != beta.dtype:
            raise ValueError("'alpha' and 'beta' must have the same type.")
        if select not in ("a", "i", "v"):
            raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
        check = None
        if select == "i":
            check = check_ops.assert_less_equal(
                select_range[0], select_range[1],
                message="Got empty index range in select_range.")
        elif select == "v":
            check = check_ops.assert_less(select_range[0], select_range[1],
                                          message="Got empty interval in select_range.")
        if check is not None:
            with control_dependencies([check]):
                alpha = identity.identity(alpha)
        matrix = _dense(alpha, beta)
        if eigvals_only:
            values, vectors = eig.self_adjoint_eigvals(matrix), None
        else:
            values, vectors = eig.self_adjoint_eig(matrix)
        values = arith.real(values) if values.dtype.is_complex else values
        if select == "i":
            lo, hi = select_range[0], select_range[1] + 1
            values = values[lo:hi]
            vectors = None if vectors is None else vectors[:, lo:hi]
        elif select == "v":
            keep = arith.logical_and(arith.greater(values, select_range[0]),
                                     arith.less_equal(values, select_range[1]))
            values = gather_ops.boolean_mask(values, keep)
            if vectors is not None:
                vectors = gather_ops.boolean_mask(vectors, keep, axis=1)
        return values if eigvals_only else (values, vectors)
