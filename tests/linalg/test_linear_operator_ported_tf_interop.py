"""Ports of the operator-specific cases of TF's linear_operator_identity_test.py,
linear_operator_diag_test.py, linear_operator_full_matrix_test.py and
linear_operator_composition_test.py (argument checks, asserts, broadcasting products
and solves, hint flags), each compared with TensorFlow 2.21 itself."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
LA = tf.linalg
x4 = tf.constant(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) / 7.)
def flags(op):
    return tf.constant(str([op.is_non_singular, op.is_self_adjoint,
                            op.is_positive_definite, op.is_square]))
"""

EXPRESSIONS = [
    # identity
    "LA.LinearOperatorIdentity(num_rows=[2])", "LA.LinearOperatorIdentity(num_rows=2.)",
    "LA.LinearOperatorIdentity(num_rows=-2)", "LA.LinearOperatorIdentity(2, batch_shape=2)",
    "LA.LinearOperatorIdentity(2, batch_shape=[2.])",
    "LA.LinearOperatorIdentity(2, batch_shape=[-2])",
    "LA.LinearOperatorIdentity(2).matmul(tf.ones([3, 3]))",
    "LA.LinearOperatorIdentity(3).matmul(x4)",
    "LA.LinearOperatorIdentity(3, batch_shape=(2, 1)).matmul(x4)",
    "LA.LinearOperatorIdentity(3, batch_shape=(2, 1)).solve(x4)",
    "LA.LinearOperatorIdentity(2, dtype=tf.float16).matmul(tf.ones([2, 3], tf.float16))",
    "LA.LinearOperatorIdentity(2, is_non_singular=None)", "flags(LA.LinearOperatorIdentity(2))",
    "LA.LinearOperatorIdentity(2).assert_non_singular()",
    "LA.LinearOperatorIdentity(2).assert_self_adjoint()",
    # scaled identity
    "LA.LinearOperatorScaledIdentity(2, 1.).assert_positive_definite()",
    "LA.LinearOperatorScaledIdentity(2, -1.).assert_positive_definite()",
    "LA.LinearOperatorScaledIdentity(2, [1., 2., 3.]).assert_non_singular()",
    "LA.LinearOperatorScaledIdentity(2, [1., 2., 0.]).assert_non_singular()",
    "LA.LinearOperatorScaledIdentity(2, [1. + 0j]).assert_self_adjoint()",
    "LA.LinearOperatorScaledIdentity(2, [1. + 1j]).assert_self_adjoint()",
    "LA.LinearOperatorScaledIdentity(2, tf.constant([1., 2., 3.], tf.float16)).matmul("
    "tf.ones([2, 3], tf.float16))",
    "LA.LinearOperatorScaledIdentity(num_rows=[2], multiplier=123.)",
    "LA.LinearOperatorScaledIdentity(2, 2.2).matmul(tf.ones([3, 3]))",
    "LA.LinearOperatorScaledIdentity(3, 2.2 * tf.ones((2, 1))).matmul(x4)",
    "LA.LinearOperatorScaledIdentity(3, 2.2 * tf.ones((2, 1))).solve(x4)",
    "LA.LinearOperatorScaledIdentity(3, 2.2).matmul(x4)",
    "LA.LinearOperatorScaledIdentity(3, 2.2).solve(x4)",
    "flags(LA.LinearOperatorScaledIdentity(2, 1., is_positive_definite=False,"
    " is_non_singular=True))",
    "flags(LA.LinearOperatorScaledIdentity(2, 1. + 1j))",
    # diag
    "LA.LinearOperatorDiag([1., 0.]).assert_non_singular()",
    "LA.LinearOperatorDiag([1., -1.]).assert_positive_definite()",
    "LA.LinearOperatorDiag([1., 2.]).assert_positive_definite()",
    "LA.LinearOperatorDiag([1. + 0j, 2.]).assert_self_adjoint()",
    "LA.LinearOperatorDiag([1. + 1j, 2.]).assert_self_adjoint()",
    "LA.LinearOperatorDiag([1. + 1j, 2.]).assert_positive_definite()",
    "LA.LinearOperatorDiag([-1. + 1j, 2.]).assert_positive_definite()",
    "flags(LA.LinearOperatorDiag([1., 2.]))", "flags(LA.LinearOperatorDiag([1j, 2.]))",
    "LA.LinearOperatorDiag(tf.constant([[1., 2., 3.]] * 2)).matmul(x4)",
    "LA.LinearOperatorDiag(tf.constant([[1., 2., 3.]] * 2)).solve(x4)",
    "LA.LinearOperatorDiag([1., 2., 3.]).matmul(tf.ones([4, 3]), adjoint_arg=True)",
    "LA.LinearOperatorDiag(tf.constant([1., 2.], tf.float16)).matmul("
    "tf.ones([2, 2], tf.float16))",
    # full matrix
    "flags(LA.LinearOperatorFullMatrix([[1., 2.], [3., 4.]]))",
    "flags(LA.LinearOperatorFullMatrix([[1., 2.]]))",
    "flags(LA.LinearOperatorFullMatrix([[1., 2.], [2., 1.]], is_positive_definite=True))",
    "LA.LinearOperatorFullMatrix([[1., 2.], [2., 4.]]).assert_non_singular()",
    "LA.LinearOperatorFullMatrix([[1., 2.], [2., 5.]], is_self_adjoint=True,"
    " is_positive_definite=True).assert_positive_definite()",
    "LA.LinearOperatorFullMatrix([[1., 2.], [2., 1.]], is_self_adjoint=True,"
    " is_positive_definite=True).assert_positive_definite()",
    "LA.LinearOperatorFullMatrix([[1., 2.], [2., 1.]]).assert_self_adjoint()",
    "LA.LinearOperatorFullMatrix([[1., 2.], [3., 1.]]).assert_self_adjoint()",
    "LA.LinearOperatorFullMatrix([[1., 2.]]).determinant()",
    "LA.LinearOperatorFullMatrix([[1., 2.]], is_square=True)",
    # composition
    "flags(LA.LinearOperatorComposition([LA.LinearOperatorDiag([1., 2.]),"
    " LA.LinearOperatorDiag([3., 4.], is_non_singular=True)]))",
    "flags(LA.LinearOperatorComposition([LA.LinearOperatorDiag([1., 2.],"
    " is_non_singular=True), LA.LinearOperatorDiag([3., 4.], is_non_singular=True)]))",
    "LA.LinearOperatorComposition([LA.LinearOperatorDiag([1., 2.], is_non_singular=True),"
    " LA.LinearOperatorDiag([3., 4.], is_non_singular=True)], is_non_singular=False)",
    "LA.LinearOperatorComposition([LA.LinearOperatorFullMatrix(tf.ones([2, 3])),"
    " LA.LinearOperatorFullMatrix(tf.ones([3, 4]))]).to_dense()",
    "LA.LinearOperatorComposition([LA.LinearOperatorFullMatrix(tf.ones([2, 3])),"
    " LA.LinearOperatorFullMatrix(tf.ones([2, 4]))]).to_dense()",
    "LA.LinearOperatorComposition([LA.LinearOperatorFullMatrix(tf.ones([2, 1, 2, 2])),"
    " LA.LinearOperatorFullMatrix(tf.ones([3, 2, 2]) * 2.)]).to_dense()",
    "LA.LinearOperatorComposition([LA.LinearOperatorDiag([2., 4.]),"
    " LA.LinearOperatorFullMatrix([[1., 2.], [3., 5.]])]).solve(tf.ones([2, 1]))",
]

# Asserts and identities build different helper ops in TF (no_op / Assert graphs).
OPS_DIFFER = frozenset(EXPRESSIONS)

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS, rtol=1e-5,
                                           ops_differ=OPS_DIFFER))
