"""tf.linalg's lu / lu_reconstruct / lu_solve / lu_matrix_inverse, sqrtm, logm, expm,
matrix_rank, pinv, normalize, global_norm, eigh_tridiagonal and the tridiagonal solve and
product against TensorFlow: values, gradients, op types, static shapes and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
a = tf.constant([[2., 1., 0.], [-2., 3., 1.], [1., 1., 1.]])
b = tf.constant(np.random.RandomState(1).randn(2, 4, 4), tf.float64)
c = tf.constant([[1 + 1j, 2j], [0.5, 3 - 1j]], tf.complex64)
spd = tf.constant([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]])
rect = tf.constant([[1., 2., 3.], [2., -1., 0.5], [0., 1., 1.], [1., 0., 1.]])
low = tf.constant([[1., 2.], [2., 4.]])
diags = tf.constant([[1., 2., 3., 0.], [4., 5., 6., 7.], [0., 8., 9., 10.]])
bdiags = tf.constant(np.random.RandomState(2).randn(2, 3, 5), tf.float64)
rhs = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
brhs = tf.constant(np.random.RandomState(3).randn(2, 5, 3), tf.float64)
ta = tf.constant([1., 2., 3., 4., -1.])
tb = tf.constant([0.5, -1., 2., 0.25])
def signed(pair):
    # Eigenvectors are defined up to sign (phase): fix each column's first entry's.
    values, vectors = pair
    first = vectors[:1]
    return values, vectors * tf.math.conj(first) / tf.cast(tf.abs(first), first.dtype)
def grad(f, *v):
    return tf.gradients(tf.reduce_sum(f(*v)), list(v))
"""

VALUES = [
    "tf.linalg.lu(a)", "tf.linalg.lu(b)", "tf.linalg.lu(c)",
    "tf.linalg.lu(a, output_idx_type=tf.int64)",
    "tf.linalg.lu(tf.zeros([2, 3]))",
    "tf.linalg.lu_reconstruct(*tf.linalg.lu(a))", "tf.linalg.lu_reconstruct(*tf.linalg.lu(b))",
    "tf.linalg.lu_solve(*tf.linalg.lu(a), rhs[:3])",
    "tf.linalg.lu_solve(*tf.linalg.lu(b), tf.ones([2, 4, 1], tf.float64))",
    "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(a))",
    "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(b))",
    "tf.linalg.sqrtm(spd)", "tf.matrix_square_root(tf.cast(spd, tf.float64))",
    "tf.linalg.sqrtm(tf.constant([[4., 1.], [0., 9.]]))",
    "tf.linalg.sqrtm(tf.constant([[1., -2.], [3., 1.]], tf.float64))",
    "tf.linalg.sqrtm(tf.constant([[-1., 0.], [0., 4.]]))",
    "tf.linalg.sqrtm(tf.stack([spd, 2. * spd]))",
    "tf.linalg.logm(c)", "tf.linalg.logm(tf.cast(spd, tf.complex128))",
    "tf.linalg.logm(tf.constant([[1., 2.], [0., 3.]], tf.complex64))",
    "tf.linalg.logm(spd)",
    "tf.linalg.expm(a)", "tf.linalg.expm(b)", "tf.linalg.expm(5. * a)",
    "tf.linalg.expm(tf.zeros([2, 2]))", "tf.linalg.expm(tf.cast(c, tf.complex128))",
    "tf.linalg.expm(tf.constant([[0.01, 0.], [0., 0.02]], tf.float64))",
    "tf.linalg.matrix_rank(a)", "tf.linalg.matrix_rank(rect)", "tf.linalg.matrix_rank(low)",
    "tf.linalg.matrix_rank(rect, tol=0.5)", "tf.linalg.matrix_rank(b)",
    "tf.linalg.pinv(rect)", "tf.linalg.pinv(low)", "tf.linalg.pinv(b)",
    "tf.linalg.pinv(rect, rcond=0.1)", "tf.linalg.pinv(tf.constant([1., 2.]))",
    "tf.linalg.normalize(rect)", "tf.linalg.normalize(rect, axis=1)",
    "tf.linalg.normalize(rect, ord=1, axis=0)", "tf.linalg.normalize(rect, ord='fro', axis=[0, 1])",
    "tf.linalg.global_norm([a, rect])",
    "tf.linalg.tridiagonal_solve(diags, rhs)",
    "tf.linalg.tridiagonal_solve(diags, rhs, partial_pivoting=False)",
    "tf.linalg.tridiagonal_solve(diags, rhs[:, 0])",
    "tf.linalg.tridiagonal_solve(bdiags, brhs)",
    "tf.linalg.tridiagonal_solve(bdiags, brhs, perturb_singular=True)",
    "tf.linalg.tridiagonal_solve(diags, tf.transpose(rhs), transpose_rhs=True)",
    "tf.linalg.tridiagonal_solve((diags[0, :3], diags[1], diags[2, 1:]), rhs, "
    "diagonals_format='sequence')",
    "tf.linalg.tridiagonal_solve(tf.linalg.diag(diags[1]) + tf.linalg.diag(diags[0, :3], k=1)"
    " + tf.linalg.diag(diags[2, 1:], k=-1), rhs, diagonals_format='matrix')",
    "tf.linalg.tridiagonal_solve(tf.constant([[1., 1.], [0., 0.], [1., 1.]]), rhs[:2])",
    "tf.linalg.tridiagonal_solve(tf.constant([[1., 1.], [0., 0.], [1., 1.]]), rhs[:2], "
    "partial_pivoting=False)",
    "tf.linalg.tridiagonal_solve(tf.constant([[1., 1.], [1., 1.], [1., 1.]]), rhs[:2], "
    "perturb_singular=True)",
    "tf.linalg.tridiagonal_solve(diags, rhs, partial_pivoting=False, perturb_singular=True)",
    "tf.linalg.tridiagonal_solve(diags, rhs[:3])",
    "tf.linalg.tridiagonal_solve(diags, rhs, diagonals_format='bad')",
    "tf.linalg.tridiagonal_matmul(diags, rhs)",
    "tf.linalg.tridiagonal_matmul(bdiags, brhs)",
    "tf.linalg.tridiagonal_matmul((diags[0], diags[1], diags[2]), rhs, "
    "diagonals_format='sequence')",
    "tf.linalg.tridiagonal_matmul(tf.linalg.diag(diags[1]), rhs, diagonals_format='matrix')",
    "tf.linalg.eigh_tridiagonal(ta, tb)",
    "tf.linalg.eigh_tridiagonal(tf.cast(ta, tf.float64), tf.cast(tb, tf.float64))",
    "signed(tf.linalg.eigh_tridiagonal(ta, tb, eigvals_only=False))",
    "tf.linalg.eigh_tridiagonal(ta, tb, select='i', select_range=[1, 3])",
    "tf.linalg.eigh_tridiagonal(ta, tb, select='v', select_range=[0., 3.])",
    "signed(tf.linalg.eigh_tridiagonal(ta, tb, eigvals_only=False, select='i', "
    "select_range=[0, 1]))",
    "tf.linalg.eigh_tridiagonal(tf.complex(ta, 0.), tf.complex(tb, tb))",
    "signed(tf.linalg.eigh_tridiagonal(tf.complex(ta, 0.), tf.complex(tb, -tb), "
    "eigvals_only=False))",
    "tf.linalg.eigh_tridiagonal(tf.constant([5.]), tf.constant([], tf.float32), "
    "eigvals_only=False)",
    "tf.linalg.eigh_tridiagonal(ta, tf.cast(tb, tf.float64))",
    "tf.linalg.eigh_tridiagonal(ta, tb, select='x')",
    "tf.linalg.eigh_tridiagonal(ta, tb, select='i', select_range=[3, 1])",
]

GRADS = [
    "grad(tf.linalg.sqrtm, spd)", "grad(tf.linalg.sqrtm, tf.stack([spd, 2. * spd]))",
    "grad(tf.linalg.expm, a)", "grad(tf.linalg.expm, b)",
    "grad(tf.linalg.tridiagonal_solve, diags, rhs)",
    "grad(tf.linalg.tridiagonal_solve, bdiags, brhs)",
    "grad(lambda d, r: tf.linalg.tridiagonal_solve(d, r, partial_pivoting=False), diags, rhs)",
    "grad(tf.linalg.tridiagonal_matmul, diags, rhs)",
    "grad(tf.linalg.tridiagonal_matmul, bdiags, brhs)",
    "grad(tf.linalg.pinv, tf.cast(rect, tf.float64))",
    "grad(lambda x: tf.linalg.normalize(x)[0], rect)",
    "grad(lambda x: tf.linalg.lu_solve(*tf.linalg.lu(a), x), rhs[:3])",
    "grad(lambda x: tf.linalg.lu_reconstruct(x, tf.constant([1, 0, 2])), a)",
]

EXPRESSIONS = VALUES + GRADS

# expm's while loop and cond build TF's control-flow ops by other types.
# lu_reconstruct of a batch maps invert_permutation with map_fn (trainflow's is a
# functional While), eye of a dynamic size packs its shape differently.
# eigh_tridiagonal: TensorFlow bisects and iterates, trainflow decomposes the dense matrix.
OPS_DIFFER = frozenset([e for e in EXPRESSIONS if "expm" in e or "eigh_" in e] + GRADS + [
    "tf.linalg.lu_reconstruct(*tf.linalg.lu(b))", "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(a))",
    "tf.linalg.lu_matrix_inverse(*tf.linalg.lu(b))",
    "tf.linalg.lu_solve(*tf.linalg.lu(b), tf.ones([2, 4, 1], tf.float64))"])

test_linalg_extras_match_tf = comparison_test(PRELUDE, EXPRESSIONS, rtol=2e-5,
                                              ops_differ=OPS_DIFFER)

# A singular input is an error at run time; TensorFlow's Lu kernel failing beside other Lu
# runs upsets the interop fork server, so it runs on its own.
test_lu_of_a_singular_matrix_fails_as_in_tf = comparison_test(
    PRELUDE, ["tf.linalg.lu(tf.zeros([2, 2], tf.float64))"])
