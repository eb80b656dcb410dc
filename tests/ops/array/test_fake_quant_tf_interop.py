"""The FakeQuant ops (tf.fake_quant_with_min_max_args / _vars / _vars_per_channel and
their _gradient ops) and their registered gradients against TensorFlow 2.21 in TF1
mode, over the ranges of TF's fake_quant_ops_test (nudged up, nudged down, zero at an
end, narrow range, 2-16 bits); skipped without TRAINFLOW_TF_PYTHON."""
from tf_interop import expression_value_tests

PRELUDE = """
import numpy as np
R = np.random.RandomState(3)
X = tf.constant(np.concatenate([np.linspace(-7, 7, 141), R.uniform(-3, 3, 59)])
                .astype(np.float32))
X4 = tf.constant(R.uniform(-2, 2, (2, 3, 4, 3)).astype(np.float32))
G = tf.constant(R.uniform(-1, 1, (200,)).astype(np.float32))
G4 = tf.constant(R.uniform(-1, 1, (2, 3, 4, 3)).astype(np.float32))
LO = tf.constant([-0.1, 0.0, -1.3], tf.float32)
HI = tf.constant([63.65, 0.0, 2.2], tf.float32)
MIN = tf.constant(-1.5)
MAX = tf.constant(2.5)

def grad(y, x):
    w = tf.sin(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype) + 0.5)
    return tf.gradients(tf.reduce_sum(y * w), x)[0]
"""

# (min, max, num_bits, narrow_range): TF's test ranges and a few more.
_RANGES = [(-6.0, 6.0, 8, False), (-0.1, 63.65, 8, False), (-0.1, 63.4, 8, True),
           (-0.125, 63.625, 8, False), (0.0, 7.5, 4, False), (-7.3, 0.0, 4, True),
           (-1.0, 2.5, 2, False), (-3.7, 1.9, 16, False), (0.5, 3.0, 7, True)]

EXPRESSIONS = []
for _lo, _hi, _b, _n in _RANGES:
    _a = f"min={_lo}, max={_hi}, num_bits={_b}, narrow_range={_n}"
    EXPRESSIONS += [
        f"tf.fake_quant_with_min_max_args(X, {_a})",
        f"tf.fake_quant_with_min_max_args_gradient(G, X, {_a})",
        f"grad(tf.fake_quant_with_min_max_args(X, {_a}), X)",
        f"tf.fake_quant_with_min_max_vars(X, {_lo}, {_hi}, num_bits={_b}, narrow_range={_n})",
        f"tf.fake_quant_with_min_max_vars_gradient(G, X, {_lo}, {_hi}, num_bits={_b}, "
        f"narrow_range={_n})[0]",
        f"tf.stack(tf.fake_quant_with_min_max_vars_gradient(G, X, {_lo}, {_hi}, "
        f"num_bits={_b}, narrow_range={_n})[1:])",
        f"tf.stack(tf.gradients(tf.reduce_sum(tf.fake_quant_with_min_max_vars(X, MIN, MAX, "
        f"num_bits={_b}, narrow_range={_n}) * G), [MIN, MAX]))",
    ]
EXPRESSIONS += [
    "tf.fake_quant_with_min_max_args(X)",
    "tf.fake_quant_with_min_max_vars(X, 0.0, 0.0)",
    "tf.fake_quant_with_min_max_vars_gradient(G, X, 0.0, 0.0)[0]",
    "tf.stack(tf.fake_quant_with_min_max_vars_gradient(G, X, 0.0, 0.0)[1:])",
    "tf.fake_quant_with_min_max_vars(X, 1.0, -1.0)",
    "grad(tf.fake_quant_with_min_max_vars(X, MIN, MAX), X)",
    "tf.fake_quant_with_min_max_vars_per_channel(X4, LO, HI)",
    "tf.fake_quant_with_min_max_vars_per_channel(X4, LO, HI, num_bits=5, narrow_range=True)",
    "tf.fake_quant_with_min_max_vars_per_channel(X4[0, 0], LO, HI, num_bits=3)",
    "tf.fake_quant_with_min_max_vars_per_channel(X4[0, 0, 0], LO, HI)",
    "tf.fake_quant_with_min_max_vars_per_channel_gradient(G4, X4, LO, HI)[0]",
    "tf.stack(tf.fake_quant_with_min_max_vars_per_channel_gradient(G4, X4, LO, HI, "
    "num_bits=4)[1:])",
    "grad(tf.fake_quant_with_min_max_vars_per_channel(X4, LO, HI), X4)",
    "grad(tf.fake_quant_with_min_max_vars_per_channel(X4, LO, HI), LO)",
    "grad(tf.fake_quant_with_min_max_vars_per_channel(X4, LO, HI, narrow_range=True), HI)",
]

tf_values, test_same_values_as_tensorflow = expression_value_tests(
    PRELUDE, EXPRESSIONS, rtol=1e-6, atol=1e-6)
