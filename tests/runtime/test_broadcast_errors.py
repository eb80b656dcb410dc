"""A binary op whose operands do not broadcast fails at run time as TensorFlow's does:
InvalidArgumentError "Incompatible shapes: [3] vs. [2]" naming the node."""
import pytest

import trainflow.compat.v1 as tf


@pytest.mark.parametrize("build, a, b, shapes", [
    (lambda x, y: x + y, [1.0, 2.0, 3.0], [1.0, 2.0], "[3] vs. [2]"),
    (lambda x, y: tf.logical_and(x > 0, y > 0), [1.0, 2.0, 3.0], [1.0, 2.0], "[3] vs. [2]"),
    (lambda x, y: x * y, [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0, 3.0]], "[2,2] vs. [1,3]"),
])
def test_incompatible_shapes_message(build, a, b, shapes):
    with tf.Graph().as_default(), tf.Session() as sess:
        x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        out = build(x, y)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Incompatible shapes: " + shapes.replace("[", r"\[")
                           .replace("]", r"\]")) as info:
            sess.run(out, {x: a, y: b})
        assert out.op.name in str(info.value)
