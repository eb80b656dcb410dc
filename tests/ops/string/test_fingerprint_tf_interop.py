"""tf.fingerprint (the Fingerprint op: FarmHash Fingerprint64 bytes per row), the build
constants and tf.test's build queries, against TensorFlow 2.21."""
import importlib.util

import pytest

import trainflow.compat.v1 as tf

from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
s1 = tf.constant(['a', 'hello', ''])
"""

EXPRESSIONS = [
    "tf.fingerprint(tf.constant([1, 2, 3], tf.int32))",
    "tf.fingerprint(tf.constant([[1.5, 2.0], [3.0, 4.0]]))",
    "tf.fingerprint(tf.constant([[1.5, 2.0], [3.0, 4.0]], tf.float64))",
    "tf.fingerprint(s1)", "tf.fingerprint(tf.constant([['a', 'b'], ['c', 'hello']]))",
    "tf.fingerprint(tf.constant([[['a'], ['bc']]]))",
    "tf.fingerprint(tf.zeros([2, 0]))", "tf.fingerprint(tf.zeros([0, 3]))",
    "tf.fingerprint(tf.constant([True, False]))",
    "tf.fingerprint(tf.constant([[[1, 2]], [[3, 4]]], tf.int64))",
    "tf.fingerprint(tf.constant([1, 2], tf.uint8), name='fp')",
    "tf.fingerprint(tf.placeholder_with_default([1, 2], [None]))",
    "tf.constant(tf.fingerprint(s1, name='fp').name)",
    "tf.fingerprint(tf.constant(1))", "tf.fingerprint(tf.constant([1]), method='sha')",
    "tf.fingerprint(tf.constant([1]), method=tf.placeholder_with_default('sha', []))",
    "tf.gradients(tf.cast(tf.fingerprint(tf.constant([1.0])), tf.float32), [s1])",
    "tf.constant([tf.CXX11_ABI_FLAG, tf.CXX_VERSION, tf.MONOLITHIC_BUILD])",
    "tf.constant([tf.test.is_built_with_gpu_support(), tf.test.is_built_with_rocm()])",
    "tf.constant(len(tf.summary.all_v2_summary_ops()))",
    "tf.constant(issubclass(tf.errors.NotFoundError, tf.OpError) and tf.OpError.__name__)",
]

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS))


def test_is_built_with_xla_when_the_xla_backend_can_run():
    assert tf.test.is_built_with_xla() == (importlib.util.find_spec("jax") is not None)


def test_op_error_is_the_errors_base():
    assert tf.OpError is tf.errors.OpError
    with pytest.raises(tf.OpError):
        raise tf.errors.InvalidArgumentError(None, None, "x")
