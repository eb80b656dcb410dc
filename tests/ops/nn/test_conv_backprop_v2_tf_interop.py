"""Conv2DBackpropInputV2 / Conv2DBackpropFilterV2 (tf.conv2d_backprop_input_v2,
tf.conv2d_backprop_filter_v2), strided, padded and explicitly padded, against
TensorFlow 2.21's V1 ops given the same sizes (TF's CPU build registers no kernel for
the V2 ops: they run only on its GPU and oneDNN builds); skipped without
TRAINFLOW_TF_PYTHON."""
import re

import pytest

from tf_interop import (
    assert_same_value, needs_tf, our_expression_value, tf_expression_values)

PRELUDE = """
import numpy as np
R = np.random.RandomState(4)
X = tf.constant(R.uniform(-1, 1, (2, 7, 6, 3)).astype(np.float32))
W = tf.constant(R.uniform(-1, 1, (3, 2, 3, 4)).astype(np.float32))
XD = tf.cast(X, tf.float64)
WD = tf.cast(W, tf.float64)
def dy(strides, padding, x=X, w=W):
    return tf.sin(tf.nn.conv2d(x, w, strides, padding) * 3.0)
"""

EXPRESSIONS = []
for _s, _p in (([1, 1, 1, 1], "'SAME'"), ([1, 2, 3, 1], "'VALID'"), ([1, 2, 2, 1], "'SAME'"),
               ([1, 1, 2, 1], "[[0, 0], [1, 2], [0, 1], [0, 0]]")):
    _pad = "'EXPLICIT', explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0]" if _p.startswith("[") \
        else _p
    EXPRESSIONS += [
        f"tf.conv2d_backprop_input_v2(X, W, dy({_s}, {_p}), {_s}, {_pad})",
        f"tf.conv2d_backprop_filter_v2(X, W, dy({_s}, {_p}), {_s}, {_pad})",
    ]
EXPRESSIONS += [
    "tf.conv2d_backprop_filter_v2(XD, WD, dy([1, 1, 1, 1], 'SAME', XD, WD), [1, 1, 1, 1], "
    "'SAME')",
    "tf.conv2d_backprop_input_v2(XD, WD, dy([1, 2, 1, 1], 'VALID', XD, WD), [1, 2, 1, 1], "
    "'VALID', name='bp')",
]



def _v1(expr):
    """The V1 op computing what the V2 expression computes."""
    expr = re.sub(r"tf\.conv2d_backprop_input_v2\((\w+),",
                  r"tf.nn.conv2d_backprop_input(tf.shape(\1),", expr)
    expr = re.sub(r"tf\.conv2d_backprop_filter_v2\((\w+), (\w+),",
                  r"tf.nn.conv2d_backprop_filter(\1, tf.shape(\2),", expr)
    return expr.replace("'EXPLICIT', explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0]",
                        "[[0, 0], [1, 2], [0, 1], [0, 0]]")


@pytest.fixture(scope="module")
def tf_values():
    return tf_expression_values(PRELUDE, [_v1(e) for e in EXPRESSIONS])


@needs_tf
@pytest.mark.parametrize("i,expr", list(enumerate(EXPRESSIONS)), ids=EXPRESSIONS)
def test_same_values_as_tensorflow(tf_values, i, expr):
    assert_same_value(our_expression_value(PRELUDE, expr), tf_values[i], expr, 1e-5, 1e-5)
