"""tf.linalg.diag / diag_part / set_diag with bands (MatrixDiagV3 family): values
against TensorFlow 2.21 (skipped without TRAINFLOW_TF_PYTHON), static shapes, errors
and gradients against finite differences."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

PRELUDE = """
import numpy as np
D = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
M = np.arange(1, 21, dtype=np.float32).reshape(4, 5)
B = np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4)
"""

EXPRESSIONS = [
    "tf.linalg.diag([1., 2., 3.])", "tf.linalg.diag([1., 2.], k=1)",
    "tf.linalg.diag([1., 2.], k=-2)", "tf.linalg.diag(D, k=(-1, 1))",
    "tf.linalg.diag(D, k=(-1, 1), align='LEFT_RIGHT')",
    "tf.linalg.diag(D, k=(-1, 1), num_rows=4, num_cols=5, padding_value=9)",
    "tf.linalg.diag(D[:2], k=(1, 2))", "tf.linalg.diag([1., 2.], k=1, num_rows=3)",
    "tf.linalg.diag(B)", "tf.linalg.diag_part(M)", "tf.linalg.diag_part(M, k=2)",
    "tf.linalg.diag_part(M, k=(-2, 1))", "tf.linalg.diag_part(B, k=(-2, 3))",
    "tf.linalg.diag_part(M, k=(-2, 1), align='LEFT_LEFT', padding_value=-1)",
    "tf.linalg.diag_part(M, k=(1, 3), align='RIGHT_RIGHT')",
    "tf.linalg.set_diag(M, tf.ones([3, 4]), k=(-1, 1))", "tf.linalg.set_diag(M, [7., 7.], k=3)",
    "tf.linalg.set_diag(M, tf.ones([4, 4]), k=(-2, 1), align='LEFT_RIGHT')",
    "tf.linalg.set_diag(B, B[:, 0, :3])",
]

_TF_CODE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
out = []
for expr in spec["expressions"]:
    with tf.Graph().as_default():
        env = {"tf": tf}
        exec(spec["prelude"], env)
        t = eval(expr, env)
        with tf.Session() as sess:
            out.append([t.shape.as_list(), sess.run(t).tolist()])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tf_values():
    return run_json(_TF_CODE, spec={"prelude": PRELUDE, "expressions": EXPRESSIONS})


def _ours(expr):
    with tf.Graph().as_default():
        env = {"tf": tf}
        exec(PRELUDE, env)
        t = eval(expr, env)
        with tf.Session() as sess:
            return t.shape.as_list(), sess.run(t)


@needs_tf
@pytest.mark.parametrize("i,expr", list(enumerate(EXPRESSIONS)), ids=EXPRESSIONS)
def test_same_values_and_shapes_as_tensorflow(tf_values, i, expr):
    shape, got = _ours(expr)
    want_shape, want = tf_values[i]
    assert shape == want_shape, expr
    np.testing.assert_array_equal(got, np.asarray(want, np.float32), err_msg=expr)


def test_values_without_tensorflow():
    _, got = _ours("tf.linalg.diag(D, k=(-1, 1))")
    assert got.tolist() == [[5, 2, 0, 0], [9, 6, 3, 0], [0, 10, 7, 4], [0, 0, 11, 8]]
    _, got = _ours("tf.linalg.diag_part(M, k=(1, 3), align='RIGHT_RIGHT')")
    assert got.tolist() == [[0, 0, 4, 10], [0, 3, 9, 15], [2, 8, 14, 20]]


def test_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="lower_diag_index must be"):
            k = tf.placeholder(tf.int32, [2])
            sess.run(tf.linalg.diag_part(tf.ones([3, 3]), k=k), {k: [2, 1]})
        with pytest.raises(ValueError, match="lower_diag_index is out of bound"):
            tf.linalg.diag_part(tf.ones([2, 3, 4]), k=(-3, 3))
        with pytest.raises(tf.errors.InvalidArgumentError, match="upper_diag_index is out"):
            k = tf.placeholder(tf.int32, [2])
            sess.run(tf.linalg.diag_part(tf.ones([3, 4]), k=k), {k: [0, 4]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="number of diagonals"):
            sess.run(tf.linalg.diag(tf.ones([3, 4]), k=(0, 1)))


@pytest.mark.parametrize("fn,shape", [
    (lambda x: tf.linalg.diag(x, k=(-1, 1)), (3, 4)),
    (lambda x: tf.linalg.diag_part(x, k=(-2, 1)), (4, 5)),
    (lambda x: tf.linalg.set_diag(x, tf.sin(x[:3, :4]), k=(-1, 1)), (4, 5)),
])
def test_gradients_match_finite_differences(fn, shape):
    value = np.random.RandomState(1).uniform(-1, 1, shape)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape)
        y = fn(x)
        with tf.Session() as sess:
            y_shape = list(sess.run(y, {x: value}).shape)
            theoretical, numerical = tf.test.compute_gradient(x, list(shape), y, y_shape,
                                                              x_init_value=value, delta=1e-6)
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-8, atol=1e-9)
