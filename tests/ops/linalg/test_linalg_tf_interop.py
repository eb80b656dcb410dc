"""Values of the linear algebra, einsum, norm and bitwise ops, and of their
gradients, against TensorFlow 2.21 (TF1 mode) in a subprocess; skipped without
TRAINFLOW_TF_PYTHON. The same expression text is evaluated by both libraries."""
import json

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

PRELUDE = """
import numpy as np
R = np.random.RandomState(2)
SQ = (R.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)).astype(np.float32)
SPD = (SQ @ SQ.T + np.eye(3)).astype(np.float32)
TALL = R.uniform(-1, 1, (4, 3)).astype(np.float32)
WIDE = R.uniform(-1, 1, (2, 4)).astype(np.float32)
B3 = R.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
I8 = np.array([1, -3, 127, -128, 5], np.int8)
S8 = np.array([1, 2, 9, -1, 0], np.int8)
x = tf.constant(SQ); spd = tf.constant(SPD); tall = tf.constant(TALL)
wide = tf.constant(WIDE); b3 = tf.constant(B3)

def sym(a):
    return 0.5 * (a + tf.transpose(a))

def grad(y, x):
    w = tf.sin(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), tf.float32) + 0.5)
    return tf.gradients(tf.reduce_sum(y * w), x)[0]
"""

EXPRESSIONS = [
    "tf.matrix_inverse(x)", "tf.linalg.inv(x, adjoint=True)", "tf.matrix_determinant(x)",
    "tf.linalg.slogdet(x)[1]", "tf.cholesky(spd)", "tf.matrix_solve(x, tall[:3])",
    "tf.matrix_triangular_solve(x, tall[:3])",
    "tf.matrix_triangular_solve(x, tall[:3], lower=False, adjoint=True)",
    "tf.svd(tall, compute_uv=False)", "tf.matrix_band_part(b3, 1, 2)", "tf.trace(b3[:, :, :3])",
    "tf.eye(2, 3, batch_shape=[2])", "tf.cross(tall[:, :3], tall[::-1])", "tf.linalg.logdet(spd)",
    "tf.norm(tall)", "tf.norm(tall, ord=1, axis=0)", "tf.norm(tall, ord=3, axis=1)",
    "tf.norm(tall, ord='fro', axis=[0, 1])", "tf.norm(tall, ord=2, axis=[0, 1])",
    "tf.norm(b3, ord=np.inf, axis=[1, 2], keepdims=True)", "tf.norm(b3, ord=1, axis=[2, 1])",
    "tf.einsum('ij,jk->ik', wide, tall)",
    "tf.einsum('bij,bjk->bik', b3, tf.transpose(b3, [0, 2, 1]))",
    "tf.einsum('ij->j', tall)", "tf.einsum('...ij,jk->...ik', b3, tall)",
    "tf.bitwise.left_shift(I8, S8)", "tf.bitwise.right_shift(I8, S8)",
    "tf.bitwise.invert(I8)", "tf.bitwise.bitwise_xor(I8, S8)",
    "grad(tf.matrix_inverse(x), x)", "grad(tf.matrix_determinant(x), x)",
    "grad(tf.cholesky(sym(spd)), spd)", "grad(tf.matrix_solve(x, tall[:3]), x)",
    "grad(tf.matrix_triangular_solve(x, tall[:3]), x)", "grad(tf.linalg.slogdet(x)[1], x)",
    "grad(tf.qr(tall)[1] ** 2, tall)", "grad(tf.qr(wide)[1] ** 2, wide)",
    "grad(tf.svd(tall, compute_uv=False), tall)",
    "grad(tf.einsum('ij,jk->ik', wide, tall), tall)",
    "grad(tf.einsum('...ij,jk->...ik', b3, tall), tall)",
    "grad(tf.norm(tall, ord=2, axis=[0, 1]), tall)",
    "grad(tf.cross(tall[:, :3], tall[::-1]), tall)", "grad(tf.matrix_band_part(b3, 1, 0), b3)",
    "tf.matrix_solve_ls(tall, tall[:, :2] + 1.0)", "tf.linalg.lstsq(wide, wide[:, :3], 0.4)",
    "tf.matrix_solve_ls(tall, tall[:, :2] + 1.0, fast=False)",
    "grad(tf.matrix_solve_ls(tall, tf.ones([4, 2]), 0.1), tall)",
    "grad(tf.linalg.lstsq(wide, tf.ones([2, 2]), 0.4), wide)",
    "tf.self_adjoint_eigvals(spd)", "tf.abs(tf.self_adjoint_eig(spd)[1])",
    "grad(tf.self_adjoint_eigvals(spd), spd)",
    "grad(tf.matmul(tf.self_adjoint_eig(spd)[1] ** 2, spd), spd)",
]

_TF_CODE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
out = []
for expr in spec["expressions"]:
    g = tf.Graph()
    with g.as_default():
        env = {"tf": tf}
        exec(spec["prelude"], env)
        with tf.Session() as sess:
            out.append(sess.run(eval(expr, env)).tolist())
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tf_values():
    return run_json(_TF_CODE, spec={"prelude": PRELUDE, "expressions": EXPRESSIONS})


@needs_tf
@pytest.mark.parametrize("i,expr", list(enumerate(EXPRESSIONS)), ids=EXPRESSIONS)
def test_same_values_as_tensorflow(tf_values, i, expr):
    with tf.Graph().as_default():
        env = {"tf": tf}
        exec(PRELUDE, env)
        with tf.Session() as sess:
            got = sess.run(eval(expr, env))
    want = np.asarray(tf_values[i])
    assert got.shape == want.shape, expr
    if got.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=expr)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5, err_msg=expr)
