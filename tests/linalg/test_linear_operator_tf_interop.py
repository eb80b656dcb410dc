"""LinearOperators against TensorFlow 2.21: values, static shapes, dtypes and errors of
each method (op types where both build the same ones)."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
LA = tf.linalg
m = tf.constant([[4., 1., 0.], [2., 5., 1.], [0., 1., 3.]])
bm = tf.constant(np.arange(18, dtype=np.float32).reshape(2, 3, 3) + 5 * np.eye(3, dtype=np.float32))
x = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
v = tf.constant([1., -1., 2.])
full = LA.LinearOperatorFullMatrix(m)
bfull = LA.LinearOperatorFullMatrix(bm)
diag = LA.LinearOperatorDiag([2., 3., 4.])
bdiag = LA.LinearOperatorDiag([[2., 3., 4.], [1., -1., 2.]])
ident = LA.LinearOperatorIdentity(3)
bident = LA.LinearOperatorIdentity(3, batch_shape=[2])
scaled = LA.LinearOperatorScaledIdentity(3, [2., -3.])
tril = LA.LinearOperatorLowerTriangular(m)
comp = LA.LinearOperatorComposition([full, tril])
pd = LA.LinearOperatorFullMatrix(tf.matmul(m, m, transpose_b=True), is_self_adjoint=True,
                                 is_positive_definite=True)
"""

EXPRESSIONS = [
    "full.matmul(x)", "full.matmul(x, adjoint=True)",
    "full.matmul(tf.transpose(x), adjoint_arg=True)",
    "full.matvec(v)", "full.solve(x)", "full.solve(x, adjoint=True)", "full.solvevec(v)",
    "full.determinant()", "full.log_abs_determinant()", "full.trace()", "full.diag_part()",
    "full.add_to_tensor(m)", "full.shape_tensor()", "full.to_dense()",
    "full.inverse().to_dense()", "full.adjoint().to_dense()",
    "bfull.solve(x)", "bfull.matmul(x)", "bfull.determinant()", "bfull.batch_shape_tensor()",
    "diag.matmul(x)", "diag.solve(x)", "diag.matvec(v)", "diag.solvevec(v)", "diag.to_dense()",
    "diag.determinant()", "diag.log_abs_determinant()", "diag.trace()", "diag.add_to_tensor(m)",
    "diag.inverse().to_dense()", "diag.cholesky().to_dense()" ,
    "bdiag.matmul(x)", "bdiag.log_abs_determinant()", "bdiag.shape_tensor()",
    "ident.matmul(x)", "ident.to_dense()", "ident.determinant()", "ident.log_abs_determinant()",
    "ident.trace()", "ident.diag_part()", "ident.add_to_tensor(m)", "ident.solve(x)",
    "bident.matmul(x)", "bident.to_dense()", "bident.determinant()", "bident.trace()",
    "bident.shape_tensor()", "bident.diag_part()",
    "scaled.matmul(x)", "scaled.solve(x)", "scaled.to_dense()", "scaled.determinant()",
    "scaled.log_abs_determinant()", "scaled.trace()", "scaled.diag_part()",
    "scaled.add_to_tensor(bm)", "scaled.matvec(v)",
    "tril.matmul(x)", "tril.solve(x)", "tril.solve(x, adjoint=True)", "tril.to_dense()",
    "tril.determinant()", "tril.log_abs_determinant()",
    "comp.matmul(x)", "comp.matmul(x, adjoint=True)", "comp.solve(x)", "comp.to_dense()",
    "comp.determinant()", "comp.log_abs_determinant()", "comp.shape_tensor()",
    "(full @ diag).to_dense()", "full.solve(diag).to_dense()",
    "pd.cholesky().to_dense()", "pd.log_abs_determinant()", "pd.solve(x)", "pd.eigvals()",
    "pd.determinant()", "full.cond()",
    "full.matmul(tf.ones([2, 2]))", "diag.matmul(tf.ones([3, 2], tf.float64))",
    "LA.LinearOperatorDiag([1, 2])", "LA.LinearOperatorFullMatrix([1., 2.])",
    "LA.LinearOperatorIdentity(3, is_non_singular=False)",
    "LA.LinearOperatorComposition([])",
    "tf.constant(full.is_square and diag.is_self_adjoint and not full.is_self_adjoint is None)",
    "tf.constant(full.name + '|' + diag.name + '|' + comp.name + '|' + full.adjoint().name)",
    "tf.constant(str(comp.shape) + str(bident.shape) + str(scaled.batch_shape))",
    "tf.constant([full.tensor_rank, bident.tensor_rank, int(diag.domain_dimension),"
    " int(full.range_dimension)])",
]

# The graphs differ in helper ops only (TF broadcasts identities with an add of zeros
# built from other ops; TF's scaled-identity determinant is a Pow through a Cast ...).
OPS_DIFFER = frozenset(e for e in EXPRESSIONS if e.startswith(("ident", "bident", "scaled",
                                                              "bfull.solve", "comp.", "pd.",
                                                              "full.cond", "(full",
                                                              "full.solve(diag")))

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS, rtol=2e-5,
                                           ops_differ=OPS_DIFFER))
