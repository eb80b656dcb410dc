"""The base class's dense defaults (TF's linear_operator_test.py): a subclass that
gives only its shape and matmul gets to_dense, determinants, solves, trace, diag_part,
add_to_tensor, adjoint and inverse operators from them; hint rules; name scopes."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from linop_checks import check_operator

LA = tf.linalg


class MatmulOnly(LA.LinearOperator):
    """A LinearOperator giving nothing but its shape and matmul."""

    def __init__(self, matrix, **hints):
        self._matrix = tf.convert_to_tensor(matrix)
        super().__init__(dtype=self._matrix.dtype, name="MatmulOnly", **hints)

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return tf.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return tf.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)


def _cond(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a + 3 * shape[-1] * np.eye(shape[-1])


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4)])
def test_dense_defaults(shape):
    m = _cond(shape)
    check_operator(lambda: (MatmulOnly(m), m), np.float64)


def test_dense_defaults_positive_definite():
    a = _cond((3, 3))
    spd = a @ a.T
    check_operator(lambda: (MatmulOnly(spd, is_self_adjoint=True, is_positive_definite=True),
                            spd), np.float64)


def test_non_square_defaults():
    m = np.arange(6.).reshape(2, 3)
    op = check_operator(lambda: (MatmulOnly(m), m), np.float64, square=False)
    assert op.is_square is False
    with tf.Graph().as_default():
        op = MatmulOnly(m)
        with pytest.raises(NotImplementedError):
            op.determinant()
        with pytest.raises(NotImplementedError):
            op.solve(np.ones([2, 1]))


def test_hint_rules():
    with tf.Graph().as_default():
        m = np.eye(2)
        assert MatmulOnly(m, is_positive_definite=True).is_non_singular is True
        assert MatmulOnly(m, is_self_adjoint=True).is_square is True
        with pytest.raises(ValueError, match="always non-singular"):
            MatmulOnly(m, is_positive_definite=True, is_non_singular=False)
        with pytest.raises(ValueError, match="always square"):
            MatmulOnly(m, is_non_singular=True, is_square=False)
        with pytest.raises(ValueError, match="but the operator was square"):
            _ = MatmulOnly(m, is_square=False).is_square
        with pytest.raises(ValueError):
            MatmulOnly(m, graph_parents=[None])


def test_scopes_and_module_tracking():
    with tf.Graph().as_default():
        op = MatmulOnly(np.eye(2))
        assert op.to_dense().name.startswith("MatmulOnly/to_dense/")
        assert op.matvec(np.array([1., 2.])).name == "MatmulOnly/matvec/Squeeze:0"
        with op.name_scope as scope:
            assert scope == "MatmulOnly/"
        v = tf.Variable(np.eye(2), name="m")
        held = MatmulOnly(v)
        held._source = v
        assert held.variables == (v,) and held.trainable_variables == (v,)
        comp = LA.LinearOperatorComposition([op, held])
        assert comp.submodules == (op, held)
