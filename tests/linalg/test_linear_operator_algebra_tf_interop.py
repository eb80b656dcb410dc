"""Products and solves of two operators (TF's linear_operator_algebra cases): the class
of the resulting operator, its hints and its dense value, compared with TensorFlow."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
LA = tf.linalg
d = LA.LinearOperatorDiag([1., 2.])
d2 = LA.LinearOperatorDiag([3., 4.])
s = LA.LinearOperatorScaledIdentity(2, 3.)
s2 = LA.LinearOperatorScaledIdentity(2, 2.)
l = LA.LinearOperatorLowerTriangular([[1., 0.], [2., 3.]])
f = LA.LinearOperatorFullMatrix([[1., 2.], [3., 5.]])
i = LA.LinearOperatorIdentity(2)
pd = LA.LinearOperatorDiag([1., 2.], is_positive_definite=True)
a = tf.constant([[4., 1.], [2., 5.]])
bd = LA.LinearOperatorBlockDiag([LA.LinearOperatorFullMatrix(a), d])
kr = LA.LinearOperatorKronecker([LA.LinearOperatorFullMatrix(a), d])
spd = LA.LinearOperatorFullMatrix([[2., 1.], [1., 2.]], is_self_adjoint=True,
                                  is_positive_definite=True)
hh = LA.LinearOperatorHouseholder([1., 2.])
c = LA.LinearOperatorCirculant(tf.constant([3. + 1j, 1. - 2j], tf.complex64))
c2 = LA.LinearOperatorCirculant(tf.constant([2., 5. + 1j], tf.complex64))
def kind(o):
    return tf.constant(type(o).__name__ + str([o.is_non_singular, o.is_self_adjoint,
                                               o.is_positive_definite, o.is_square]))
"""

_PAIRS = ["d @ d2", "d @ s", "d @ l", "s @ s2", "s @ d", "i @ f", "f @ i", "f @ d",
          "d.solve(d2)", "d.solve(s)", "d.solve(l)", "s.solve(s2)", "s.solve(d)",
          "f.solve(i)", "f.solve(d)", "i.solve(f)", "l.solve(f)", "pd @ pd", "f.adjoint()",
          "d.adjoint()", "f.inverse()", "d.inverse()", "s.inverse()", "i.inverse()",
          "pd.cholesky()", "f.matmul(d, adjoint=True)", "f.matmul(l, adjoint_arg=True)",
          "f.solve(l, adjoint=True)", "(f @ d).adjoint()", "(f @ d).inverse()",
          "bd @ bd", "bd.solve(bd)", "bd.inverse()", "bd.adjoint()",
          "LA.LinearOperatorBlockDiag([spd, pd]).cholesky()", "kr.adjoint()", "kr.inverse()",
          "LA.LinearOperatorKronecker([spd, pd]).cholesky()", "hh.adjoint()", "hh.inverse()",
          "l @ d", "f.inverse().solve(d)", "c @ c2", "c.solve(c2)", "c.inverse()",
          "c.adjoint()"]
EXPRESSIONS = [f"kind({p})" for p in _PAIRS] + [f"({p}).to_dense()" for p in _PAIRS]

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS, rtol=1e-5,
                                           ops_differ=frozenset(EXPRESSIONS)))
