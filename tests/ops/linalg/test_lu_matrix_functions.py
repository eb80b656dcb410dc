"""The Lu, MatrixSquareRoot and MatrixLogarithm kernels and tf.linalg.expm, on the cases
of TensorFlow's lu_op_test, matrix_square_root_op_test, matrix_logarithm_op_test and
matrix_exponential_op_test: factors that rebuild the input with partial pivoting,
batches and empty matrices, square roots that square back, logarithms that invert expm,
expm against its series, and the shape and invertibility errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow.errors import InvalidArgumentError

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _run(fn):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(fn())


def _random(shape, dtype, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


LU_SHAPES = [(shape, tf.int32) for shape in [(1, 1), (2, 2), (3, 3), (5, 5), (2, 3, 4, 4),
                                            (0, 3, 3), (0, 0)]] + [((4, 4), tf.int64)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, idx_type", LU_SHAPES)
def test_lu_rebuilds_the_input(dtype, shape, idx_type):
    x = _random(shape, dtype)
    lu, perm, rebuilt = _run(lambda: (lambda f: (f.lu, f.p, tf.linalg.lu_reconstruct(*f)))(
        tf.linalg.lu(tf.constant(x), output_idx_type=idx_type)))
    assert lu.dtype == dtype and perm.dtype == idx_type.as_numpy_dtype
    assert perm.shape == shape[:-1]
    tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(rebuilt, x, atol=tol)
    if x.size:
        # Partial pivoting: every multiplier of L is at most 1 in magnitude.
        assert np.abs(np.tril(lu, -1)).max() <= 1 + 1e-6
        np.testing.assert_array_equal(np.sort(perm, axis=-1),
                                      np.broadcast_to(np.arange(shape[-1]), perm.shape))


def test_lu_reconstruct_of_a_batch_with_int64_permutations_fails_as_in_tf():
    # TensorFlow stacks its int32 batch indices with the permutation: a TypeError.
    with tf.Graph().as_default(), pytest.raises(TypeError):
        tf.linalg.lu_reconstruct(*tf.linalg.lu(tf.eye(3, batch_shape=[2]),
                                               output_idx_type=tf.int64))


def test_lu_of_a_known_matrix():
    lu, perm = _run(lambda: tf.linalg.lu(tf.constant([[1., 2.], [3., 4.]])))
    np.testing.assert_allclose(lu, [[3., 4.], [1. / 3, 2. / 3]], rtol=1e-6)
    np.testing.assert_array_equal(perm, [1, 0])


@pytest.mark.parametrize("matrix", [[[1., 2.], [2., 4.]], [[0., 0.], [0., 0.]],
                                    [[1., 2.], [1., 2.]]])
def test_lu_of_a_singular_matrix_is_an_error(matrix):
    with pytest.raises(InvalidArgumentError, match="Input is not invertible"):
        _run(lambda: tf.linalg.lu(tf.constant(matrix)))


def test_lu_shape_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.linalg.lu(tf.ones([3]))
        with pytest.raises(ValueError):
            tf.linalg.lu(tf.ones([2, 3]))
        assert tf.linalg.lu(tf.placeholder(tf.float32, [None, 4, None])).p.shape.as_list() \
            == [None, 4]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lu_solve_and_inverse(dtype):
    x = _random((2, 4, 4), dtype, seed=3) + 4 * np.eye(4, dtype=dtype)
    rhs = _random((2, 4, 3), dtype, seed=4)
    solved, inverse = _run(lambda: (lambda f: (tf.linalg.lu_solve(f.lu, f.p, tf.constant(rhs)),
                                               tf.linalg.lu_matrix_inverse(*f)))(
        tf.linalg.lu(tf.constant(x))))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(solved, np.linalg.solve(x, rhs), atol=tol)
    np.testing.assert_allclose(inverse, np.linalg.inv(x), atol=tol)


def test_lu_solve_broadcasts_rhs_over_the_factor_batch():
    x = _random((2, 3, 3), np.float64, seed=5) + 3 * np.eye(3)
    rhs = _random((3, 2), np.float64, seed=6)
    got = _run(lambda: tf.linalg.lu_solve(*tf.linalg.lu(tf.constant(x)),
                                          tf.constant(np.broadcast_to(rhs, (2, 3, 2)))))
    np.testing.assert_allclose(got, np.linalg.solve(x, np.broadcast_to(rhs, (2, 3, 2))))


def test_lu_helpers_check_ranks_when_building():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            tf.linalg.lu_reconstruct(tf.ones([3]), tf.constant([0, 1, 2]))
        with pytest.raises(ValueError, match="rank"):
            tf.linalg.lu_reconstruct(tf.ones([3, 3]), tf.constant([[0, 1, 2]]))
        with pytest.raises(ValueError, match="square"):
            tf.linalg.lu_reconstruct(tf.ones([3, 2]), tf.constant([0, 1, 2]))
        with pytest.raises(ValueError, match="rhs"):
            tf.linalg.lu_solve(tf.ones([3, 3]), tf.constant([0, 1, 2]), tf.ones([3]))


SQRT_CASES = {
    "spd": [[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]],
    "upper triangular": [[1., 2.], [0., 3.]],
    "identity": np.eye(4).tolist(),
    "complex eigenvalues": [[1., -2.], [3., 1.]],
    "defective": [[1., 1.], [0., 1.]],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(SQRT_CASES))
def test_square_root_squares_back(name, dtype):
    x = np.array(SQRT_CASES[name], dtype)
    root = _run(lambda: tf.linalg.sqrtm(tf.constant(x)))
    tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(root @ root, x, atol=tol * 10)
    # The principal root: its eigenvalues have positive real parts.
    assert (np.linalg.eigvals(root.astype(np.complex128)).real > 0).all()


def test_square_root_of_a_batch_and_of_empty_matrices():
    x = np.stack([np.array(SQRT_CASES["spd"]), 2 * np.array(SQRT_CASES["spd"])])
    root, empty = _run(lambda: (tf.matrix_square_root(tf.constant(x)),
                                tf.linalg.sqrtm(tf.zeros([2, 0, 0]))))
    np.testing.assert_allclose(root @ root, x, atol=1e-12)
    assert empty.shape == (2, 0, 0)


def test_square_root_without_a_real_principal_root_is_nan():
    assert np.isnan(_run(lambda: tf.linalg.sqrtm(tf.constant([[-1., 0.], [0., 4.]])))).all()
    assert np.isnan(_run(lambda: tf.linalg.sqrtm(tf.zeros([2, 2])))).all()


def test_square_root_shape_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.linalg.sqrtm(tf.ones([3]))
        with pytest.raises(ValueError):
            tf.linalg.sqrtm(tf.ones([2, 3]))


def test_square_root_gradient_solves_the_sylvester_equation():
    a = np.array(SQRT_CASES["spd"])
    eps = 1e-6

    def build():
        x = tf.constant(a)
        return tf.gradients(tf.reduce_sum(tf.linalg.sqrtm(x)), x)[0]
    grad = _run(build)
    # TensorFlow's gradient is the directional derivative along the incoming gradient:
    # for the all-ones upstream gradient, dR with R dR + dR R = ones.
    root = _run(lambda: tf.linalg.sqrtm(tf.constant(a)))
    np.testing.assert_allclose(root @ grad + grad @ root, np.ones((3, 3)), atol=eps)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_logarithm_inverts_the_exponential(dtype):
    x = (0.5 * _random((2, 3, 3), dtype, seed=7)).astype(dtype)
    back = _run(lambda: tf.linalg.logm(tf.linalg.expm(tf.constant(x))))
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    np.testing.assert_allclose(back, x, atol=tol)


def test_logarithm_takes_complex_matrices_only_and_is_nan_when_singular():
    with tf.Graph().as_default(), pytest.raises(TypeError):
        tf.linalg.logm(tf.ones([2, 2]))
    assert np.isnan(_run(lambda: tf.linalg.logm(tf.zeros([2, 2], tf.complex64)))).all()
    assert _run(lambda: tf.linalg.logm(tf.zeros([0, 0], tf.complex128))).shape == (0, 0)


def _expm_series(a, terms=60):
    out = np.eye(a.shape[-1], dtype=a.dtype)
    term = np.eye(a.shape[-1], dtype=a.dtype)
    for k in range(1, terms):
        term = term @ a / k
        out = out + term
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1e-3, 0.1, 1.0, 3.0])
def test_expm_matches_its_series(dtype, scale):
    x = (scale * _random((3, 3), dtype, seed=8)).astype(dtype)
    got = _run(lambda: tf.linalg.expm(tf.constant(x)))
    tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    reference = _expm_series(x.astype(np.complex128))
    reference = reference if np.dtype(dtype).kind == "c" else reference.real
    np.testing.assert_allclose(got, reference.astype(dtype),
                               rtol=tol, atol=tol)


def test_expm_of_a_batch_an_empty_matrix_and_infinities():
    x = _random((2, 2, 3, 3), np.float64, seed=9)
    got, empty, inf = _run(lambda: (tf.linalg.expm(tf.constant(x)),
                                    tf.linalg.expm(tf.zeros([0, 0])),
                                    tf.linalg.expm(tf.constant([[np.inf, 0.], [0., 1.]]))))
    np.testing.assert_allclose(got, np.vectorize(_expm_series, signature="(n,n)->(n,n)")(x),
                               rtol=1e-12)
    assert empty.shape == (0, 0)
    assert np.isnan(inf).all()


def test_expm_rejects_integer_matrices():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="does not support"):
        tf.linalg.expm(tf.ones([2, 2], tf.int32))
