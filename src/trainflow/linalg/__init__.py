"""`tf.linalg`: matrix products and decompositions, solves, determinants, norms, band
parts, diagonals, trace, eye and einsum, with TensorFlow's `tf.linalg.*` names."""
import importlib as _importlib

from trainflow._src.ops.array.diag import diag as tensor_diag  # noqa: F401
from trainflow._src.ops.array.diag import diag_part as tensor_diag_part  # noqa: F401
from trainflow._src.ops.linalg.linalg_api import (  # noqa: F401
    adjoint, band_part, cholesky, cholesky_solve, cross, diag, diag_part, eye, logdet,
    matrix_transpose, matvec, set_diag, svd, trace)
from trainflow._src.ops.linalg.linalg_api import log_matrix_determinant as slogdet  # noqa: F401
from trainflow._src.ops.linalg.linalg_api import matrix_determinant as det  # noqa: F401
from trainflow._src.ops.linalg.linalg_api import matrix_inverse as inv  # noqa: F401
from trainflow._src.ops.linalg.linalg_api import matrix_solve as solve  # noqa: F401
from trainflow._src.ops.linalg.linalg_api import matrix_transpose as transpose  # noqa: F401
from trainflow._src.ops.linalg.linalg_api import (  # noqa: F401
    matrix_triangular_solve as triangular_solve)
from trainflow._src.ops.linalg.eig import self_adjoint_eig as eigh  # noqa: F401
from trainflow._src.ops.linalg.eig import self_adjoint_eigvals as eigvalsh  # noqa: F401
from trainflow._src.ops.linalg.least_squares import matrix_solve_ls as lstsq  # noqa: F401
from trainflow._src.ops.linalg.norm import norm  # noqa: F401
from trainflow._src.ops.math.math_ops import matmul, qr, tensordot  # noqa: F401


# Names whose module loads on first use: name -> the module that defines it.
_LAZY = {
    "einsum": "trainflow._src.ops.math.einsum",
    "l2_normalize": "trainflow._src.ops.nn.norm",
    "eigh_tridiagonal": "trainflow._src.ops.linalg.eigh_tridiagonal",
    "global_norm": "trainflow._src.ops.math.clip_ops",
    "normalize": "trainflow._src.ops.linalg.norm",
    "lu": "trainflow._src.ops.linalg.lu",
    "lu_matrix_inverse": "trainflow._src.ops.linalg.lu",
    "lu_reconstruct": "trainflow._src.ops.linalg.lu",
    "lu_solve": "trainflow._src.ops.linalg.lu",
    "expm": "trainflow._src.ops.linalg.matrix_functions",
    "logm": "trainflow._src.ops.linalg.matrix_functions",
    "sqrtm": "trainflow._src.ops.linalg.matrix_functions",
    "matrix_rank": "trainflow._src.ops.linalg.rank_pinv",
    "pinv": "trainflow._src.ops.linalg.rank_pinv",
    "tridiagonal_matmul": "trainflow._src.ops.linalg.tridiagonal",
    "tridiagonal_solve": "trainflow._src.ops.linalg.tridiagonal",
    **{"LinearOperator" + cls: "trainflow._src.linalg.linear_operator." + mod for cls, mod in (
        ("", "base"), ("Adjoint", "adjoint"), ("Composition", "composition"),
        ("Diag", "diag"), ("FullMatrix", "full_matrix"), ("Identity", "identity"),
        ("Inversion", "inversion"), ("LowerTriangular", "lower_triangular"),
        ("ScaledIdentity", "scaled_identity"), ("Zeros", "zeros"),
        ("Householder", "householder"), ("Permutation", "permutation"),
        ("Toeplitz", "toeplitz"), ("Tridiag", "tridiag"),
        ("LowRankUpdate", "low_rank_update"), ("Kronecker", "kronecker"),
        ("BlockDiag", "block_diag"), ("BlockLowerTriangular", "block_lower_triangular"),
        ("Circulant", "circulant"), ("Circulant2D", "circulant"),
        ("Circulant3D", "circulant"))},
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'trainflow.linalg' has no attribute '{name}'")
    return getattr(_importlib.import_module(_LAZY[name]), name)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
