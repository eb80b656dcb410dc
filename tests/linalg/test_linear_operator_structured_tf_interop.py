"""The structured LinearOperators against TensorFlow 2.21: values, static shapes,
dtypes and errors of each method (TF's fast paths build other ops, so op types are
not compared)."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
LA = tf.linalg
x = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
a = tf.constant([[4., 1.], [2., 5.]])
b = tf.constant([[3., 1.], [1., 2.]])
zeros = LA.LinearOperatorZeros(4)
bzeros = LA.LinearOperatorZeros(4, 2, batch_shape=[2], is_square=False, is_self_adjoint=False)
house = LA.LinearOperatorHouseholder([1., 2., -1., 0.5])
perm = LA.LinearOperatorPermutation([2, 0, 3, 1])
toep = LA.LinearOperatorToeplitz(col=[5., 1., 2., 0.5], row=[5., -1., 3., 2.])
tri = LA.LinearOperatorTridiag([[1., 2., 3., 0.], [6., 7., 8., 9.], [0., -1., -2., -3.]])
triseq = LA.LinearOperatorTridiag([[1., 2., 3., 0.], [6., 7., 8., 9.], [0., -1., -2., -3.]],
                                  diagonals_format='sequence')
lru = LA.LinearOperatorLowRankUpdate(LA.LinearOperatorDiag([2., 3., 4., 5.]),
                                     u=[[1., 0.], [2., 1.], [0., 1.], [1., 1.]],
                                     diag_update=[2., 0.5])
kron = LA.LinearOperatorKronecker([LA.LinearOperatorFullMatrix(a),
                                   LA.LinearOperatorFullMatrix(b)])
bdiag = LA.LinearOperatorBlockDiag([LA.LinearOperatorFullMatrix(a),
                                    LA.LinearOperatorFullMatrix(b)])
blt = LA.LinearOperatorBlockLowerTriangular(
    [[LA.LinearOperatorFullMatrix(a)],
     [LA.LinearOperatorFullMatrix(b), LA.LinearOperatorFullMatrix(a + 1.)]])
circ = LA.LinearOperatorCirculant(tf.constant([4. + 1j, 1., 2. - 1j, 3.], tf.complex64))
circ_real = LA.LinearOperatorCirculant(tf.signal.fft(tf.constant([3., 1., 0., 2.], tf.complex64)),
                                       input_output_dtype=tf.float32)
circ2 = LA.LinearOperatorCirculant2D(tf.constant([[4. + 1j, 1.], [2., 3. - 1j]], tf.complex64))
circ3 = LA.LinearOperatorCirculant3D(tf.complex(tf.reshape(tf.range(1., 5.), [2, 2, 1]) + 1.,
                                                tf.ones([2, 2, 1])))
cx = tf.complex(x, -x)
"""

_METHODS = ["to_dense()", "matmul(x)", "matmul(x, adjoint=True)", "determinant()",
            "log_abs_determinant()", "trace()", "diag_part()", "solve(x)",
            "solve(x, adjoint=True)", "shape_tensor()"]
_OPS = ["house", "perm", "toep", "tri", "triseq", "lru", "kron", "bdiag", "blt"]

EXPRESSIONS = [f"{op}.{m}" for op in _OPS for m in _METHODS] + [
    "zeros.matmul(x)", "zeros.to_dense()", "zeros.determinant()", "zeros.trace()",
    "zeros.diag_part()", "zeros.add_to_tensor(tf.ones([4, 4]))", "zeros.log_abs_determinant()",
    "bzeros.matmul(x[:2])", "bzeros.to_dense()", "bzeros.shape_tensor()",
    "bzeros.diag_part()",
    "circ.matmul(cx)", "circ.solve(cx)", "circ.to_dense()", "circ.determinant()",
    "circ.log_abs_determinant()", "circ.trace()", "circ.diag_part()",
    "circ.convolution_kernel()", "circ.matmul(cx, adjoint=True)",
    "circ_real.matmul(x)", "circ_real.to_dense()", "circ_real.convolution_kernel()",
    "circ_real.determinant()",
    "circ2.matmul(cx)", "circ2.to_dense()", "circ2.solve(cx)", "circ2.log_abs_determinant()",
    "circ3.matmul(cx)", "circ3.to_dense()", "circ3.determinant()",
    # The comparison reads complex values as their real parts: the imaginary parts too.
    "tf.imag(circ.matmul(cx))", "tf.imag(circ.solve(cx))", "tf.imag(circ.to_dense())",
    "tf.imag(circ.determinant())", "tf.imag(circ.matmul(cx, adjoint=True))",
    "tf.imag(circ2.matmul(cx))", "tf.imag(circ2.solve(cx))", "tf.imag(circ3.matmul(cx))",
    "tf.imag(circ.convolution_kernel())", "tf.imag(circ.diag_part())",
    "tf.constant(str(kron.shape) + str(bdiag.shape) + str(circ3.shape) + kron.name + bdiag.name)",
    "LA.LinearOperatorZeros(2, 3)", "LA.LinearOperatorHouseholder([1.], is_self_adjoint=False)",
    "LA.LinearOperatorPermutation([1., 0.])", "LA.LinearOperatorTridiag(x, 'bad')",
    "LA.LinearOperatorBlockLowerTriangular([[bdiag], [bdiag]])",
    "LA.LinearOperatorCirculant([1, 2])",
]

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS, rtol=2e-5,
                                           ops_differ=frozenset(EXPRESSIONS)))
