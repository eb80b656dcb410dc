"""The most used operators (FullMatrix, Diag, Identity, ScaledIdentity, LowerTriangular,
Composition, Adjoint, Inversion) against dense NumPy math, over the shapes and dtypes of
TF's linear_operator_*_test.py, and their hint and argument errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from linop_checks import check_operator

LA = tf.linalg
SHAPES = [(0, 0), (1, 1), (1, 3, 3), (3, 4, 4), (2, 1, 4, 4)]
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _rand(shape, dtype, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _well_conditioned(shape, dtype):
    a = _rand(shape, dtype)
    return a + 3 * np.eye(shape[-1], dtype=dtype) * max(shape[-1], 1)


def _pd(shape, dtype):
    a = _rand(shape, dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + np.eye(shape[-1]) * shape[-1]).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_full_matrix(shape, dtype):
    m = _well_conditioned(shape, dtype)
    check_operator(lambda: (LA.LinearOperatorFullMatrix(m), m), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_full_matrix_positive_definite(shape, dtype):
    m = _pd(shape, dtype)
    check_operator(lambda: (LA.LinearOperatorFullMatrix(
        m, is_self_adjoint=True, is_positive_definite=True), m), dtype)


@pytest.mark.parametrize("shape", [(2, 3), (2, 4, 3)])
def test_full_matrix_non_square(shape):
    m = _rand(shape, np.float64)
    op = check_operator(lambda: (LA.LinearOperatorFullMatrix(m), m), np.float64, square=False)
    assert op.is_square is False


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_diag(shape, dtype):
    d = _rand(shape[:-1], dtype) + 3
    dense = np.zeros(shape, dtype)
    idx = np.arange(shape[-1])
    dense[..., idx, idx] = d
    check_operator(lambda: (LA.LinearOperatorDiag(d), dense), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_lower_triangular(shape, dtype):
    m = _well_conditioned(shape, dtype)
    check_operator(lambda: (LA.LinearOperatorLowerTriangular(m), np.tril(m)), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_identity(shape, dtype):
    dense = np.broadcast_to(np.eye(shape[-1], dtype=dtype), shape).copy()
    batch = list(shape[:-2]) or None
    check_operator(lambda: (LA.LinearOperatorIdentity(shape[-1], batch_shape=batch,
                                                      dtype=dtype), dense), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_scaled_identity(shape, dtype):
    c = _rand(shape[:-2], dtype) + 2
    dense = np.asarray(c)[..., None, None] * np.eye(shape[-1], dtype=dtype)
    check_operator(lambda: (LA.LinearOperatorScaledIdentity(shape[-1], c), dense), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3, 3)])
def test_composition(shape, dtype):
    a, b = _well_conditioned(shape, dtype), _well_conditioned(shape, dtype) * 2
    check_operator(lambda: (LA.LinearOperatorComposition(
        [LA.LinearOperatorFullMatrix(a), LA.LinearOperatorLowerTriangular(b)]),
        a @ np.tril(b)), dtype)


def test_composition_non_square_and_batch_broadcast():
    a, b = _rand((2, 3, 4), np.float64), _rand((4, 5), np.float64)
    check_operator(lambda: (LA.LinearOperatorComposition(
        [LA.LinearOperatorFullMatrix(a), LA.LinearOperatorFullMatrix(b)]), a @ b),
        np.float64, square=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_adjoint_and_inversion(dtype):
    m = _well_conditioned((2, 3, 3), dtype)
    check_operator(lambda: (LA.LinearOperatorAdjoint(LA.LinearOperatorFullMatrix(m)),
                            np.conj(np.swapaxes(m, -1, -2))), dtype)
    check_operator(lambda: (LA.LinearOperatorInversion(LA.LinearOperatorFullMatrix(m)),
                            np.linalg.inv(m)), dtype)


def test_names_follow_tensorflow():
    with tf.Graph().as_default():
        m = tf.constant([[1., 2.], [3., 4.]])
        op = LA.LinearOperatorFullMatrix(m)
        assert op.name == "LinearOperatorFullMatrix"
        assert op.matmul(m).name == "LinearOperatorFullMatrix/matmul/MatMul:0"
        assert op.matmul(m).name == "LinearOperatorFullMatrix/matmul_1/MatMul:0"
        assert op.solve(m).name == ("LinearOperatorFullMatrix/solve/MatrixSolveWithBroadcast/"
                                    "MatrixSolve:0")
        assert op.log_abs_determinant().name == (
            "LinearOperatorFullMatrix/log_abs_det/LogMatrixDeterminant:1")
        assert op.trace().name == "LinearOperatorFullMatrix/trace/Sum:0"
        d = LA.LinearOperatorDiag([1., 2.])
        assert d.diag.name == "LinearOperatorDiag/diag:0"
        assert d.solve(m).name == "LinearOperatorDiag/solve/mul:0"
        with tf.name_scope("outer"):
            d2 = LA.LinearOperatorDiag([1., 2.], name="D")
            assert d2.matmul(m).name == "outer/D/matmul/mul:0"
        assert d2.matmul(m).name == "D/matmul/mul:0"
        assert op.parameters == dict(matrix=m, is_non_singular=None, is_self_adjoint=None,
                                     is_positive_definite=None, is_square=None,
                                     name="LinearOperatorFullMatrix")
        comp = LA.LinearOperatorComposition([op, d])
        assert comp.name == "LinearOperatorFullMatrix_o_LinearOperatorDiag"
        assert LA.LinearOperatorAdjoint(op).name == "LinearOperatorFullMatrix_adjoint"
        assert LA.LinearOperatorInversion(op).name == "LinearOperatorFullMatrix_inv"


HINT_ERRORS = [
    lambda: LA.LinearOperatorFullMatrix([[1.]], is_positive_definite=True,
                                        is_non_singular=False),
    lambda: LA.LinearOperatorFullMatrix([[1.]], is_non_singular=True, is_square=False),
    lambda: LA.LinearOperatorFullMatrix([[1.]], is_self_adjoint=True, is_square=False),
    lambda: LA.LinearOperatorFullMatrix([1.]),
    lambda: LA.LinearOperatorDiag(1.),
    lambda: LA.LinearOperatorDiag([1.], is_self_adjoint=False),
    lambda: LA.LinearOperatorDiag([1.], is_square=False),
    lambda: LA.LinearOperatorIdentity(2, is_self_adjoint=False),
    lambda: LA.LinearOperatorIdentity(-2),
    lambda: LA.LinearOperatorIdentity(2, batch_shape=[-1]),
    lambda: LA.LinearOperatorScaledIdentity(2, 1., is_self_adjoint=False),
    lambda: LA.LinearOperatorLowerTriangular([[1.]], is_square=False),
    lambda: LA.LinearOperatorComposition([]),
    lambda: LA.LinearOperatorInversion(LA.LinearOperatorFullMatrix([[1.]],
                                                                   is_non_singular=False)),
    lambda: LA.LinearOperatorFullMatrix([[1., 2.]]).inverse(),
    lambda: LA.LinearOperatorFullMatrix([[1.]]).cholesky(),
]


@pytest.mark.parametrize("i", range(len(HINT_ERRORS)))
def test_hint_and_argument_errors(i):
    with tf.Graph().as_default(), pytest.raises(ValueError):
        HINT_ERRORS[i]()


def test_type_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            LA.LinearOperatorFullMatrix([[1, 2], [3, 4]])
        with pytest.raises(TypeError):
            LA.LinearOperatorDiag([1, 2])
        with pytest.raises(TypeError):
            LA.LinearOperatorComposition([LA.LinearOperatorDiag([1.]),
                                          LA.LinearOperatorDiag(np.array([1.]))])
        with pytest.raises(TypeError):
            LA.LinearOperatorDiag([1.]).matmul(np.ones([1, 1]))


def test_operator_algebra():
    with tf.Graph().as_default():
        a = LA.LinearOperatorFullMatrix(_well_conditioned((3, 3), np.float64))
        d = LA.LinearOperatorDiag(np.array([1., 2., 3.]))
        ident = LA.LinearOperatorIdentity(3, dtype=tf.float64)
        assert isinstance(a @ d, LA.LinearOperatorComposition)
        assert (a @ ident) is a and (ident @ a) is a
        assert d.adjoint() is d and ident.inverse() is ident
        assert isinstance(a.adjoint(), LA.LinearOperatorAdjoint)
        assert a.adjoint().adjoint() is a
        assert isinstance(a.inverse(), LA.LinearOperatorInversion)
        assert a.inverse().inverse() is a
        pd = LA.LinearOperatorFullMatrix(_pd((3, 3), np.float64), is_self_adjoint=True,
                                         is_positive_definite=True)
        chol = pd.cholesky()
        assert isinstance(chol, LA.LinearOperatorLowerTriangular)
        assert isinstance(LA.LinearOperatorDiag(np.array([1., 2.]), is_positive_definite=True)
                          .cholesky(), LA.LinearOperatorDiag)
        with tf.Session() as sess:
            got = sess.run([(a @ d).to_dense(), chol.to_dense(), pd.to_dense(),
                            a.solve(d).to_dense(), a.to_dense(), pd.eigvals(),
                            a.cond()])
        ad, l_, p, sol, dense, eig, cond = got
        np.testing.assert_allclose(ad, dense @ np.diag([1., 2., 3.]))
        np.testing.assert_allclose(l_ @ l_.T, p)
        np.testing.assert_allclose(sol, np.linalg.solve(dense, np.diag([1., 2., 3.])))
        np.testing.assert_allclose(eig, np.linalg.eigvalsh(p))
        np.testing.assert_allclose(cond, np.linalg.cond(dense))


def test_asserts():
    with tf.Graph().as_default():
        sing = LA.LinearOperatorDiag([1., 0.])
        nonpd = LA.LinearOperatorDiag([1., -1.])
        ok = LA.LinearOperatorFullMatrix([[2., 1.], [1., 2.]], is_self_adjoint=True)
        with tf.Session() as sess:
            sess.run([ok.assert_non_singular(), ok.assert_positive_definite(),
                      ok.assert_self_adjoint()])
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(sing.assert_non_singular())
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(nonpd.assert_positive_definite())
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(LA.LinearOperatorFullMatrix([[1., 2.], [0., 1.]])
                         .assert_self_adjoint())
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(LA.LinearOperatorFullMatrix([[1., 2.], [2., 4.]])
                         .assert_non_singular())
