"""tf.linalg.matvec: TF's composition (MatMul of an expanded vector, squeezed), its names,
values and gradients (through matmul), against live TensorFlow."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

RNG = np.random.RandomState(7)
# (a, b, kwargs)
CASES = {
    "matrix": (RNG.randn(3, 4), RNG.randn(4), {}),
    "batch": (RNG.randn(2, 3, 4), RNG.randn(2, 4), {}),
    "broadcast_vector": (RNG.randn(2, 3, 4), RNG.randn(4), {}),
    "transpose_a": (RNG.randn(2, 4, 3), RNG.randn(2, 4), {"transpose_a": True}),
    "adjoint_a": (RNG.randn(4, 3), RNG.randn(4), {"adjoint_a": True}),
}

_TF_CODE = """
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
out = {}
for key, (a, b, kw) in json.loads(sys.stdin.read()).items():
    with tf.Graph().as_default():
        at = tf.constant(np.array(a, np.float32)); bt = tf.constant(np.array(b, np.float32))
        y = tf.linalg.matvec(at, bt, **kw)
        g = tf.gradients(tf.reduce_sum(y * y), [at, bt])
        with tf.Session() as s:
            v, ga, gb = s.run([y, g[0], g[1]])
        out[key] = [y.name, v.tolist(), ga.tolist(), gb.tolist()]
print(json.dumps(out))
"""


def _ours(a, b, kw):
    with tf.Graph().as_default():
        at = tf.constant(np.float32(a))
        bt = tf.constant(np.float32(b))
        y = tf.linalg.matvec(at, bt, **kw)
        ga, gb = tf.gradients(tf.reduce_sum(y * y), [at, bt])
        with tf.Session() as s:
            v, gav, gbv = s.run([y, ga, gb])
    return y.name, v, gav, gbv


@pytest.mark.parametrize("key", sorted(CASES))
def test_matvec_is_matmul_of_the_vector(key):
    a, b, kw = CASES[key]
    name, v, _, _ = _ours(a, b, kw)
    am = np.swapaxes(a, -1, -2) if kw else a
    np.testing.assert_allclose(v, np.squeeze(am @ b[..., None], -1), rtol=1e-5, atol=1e-5)
    assert name == "MatVec/Squeeze:0"


@needs_tf
def test_matvec_matches_tensorflow():
    spec = {k: (a.tolist(), b.tolist(), kw) for k, (a, b, kw) in CASES.items()}
    theirs = run_json(_TF_CODE, spec=spec)
    for key, (a, b, kw) in CASES.items():
        name, v, ga, gb = _ours(a, b, kw)
        assert name == theirs[key][0], key
        for ours, tf_value in zip((v, ga, gb), theirs[key][1:]):
            np.testing.assert_allclose(ours, tf_value, rtol=1e-5, atol=1e-5, err_msg=key)
