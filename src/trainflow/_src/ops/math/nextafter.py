"""NextAfter: the next representable float after x1 towards x2 (`tf.math.nextafter`):
registration, kernel and TensorFlow's gradient (1 for x1, 0 for x2)."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array import create
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math.grad_util import broadcast_gradient_args
from trainflow._src.ops.math.shapes import broadcast_shape_fn

__all__ = ["nextafter"]


def _nextafter_kernel(x1, x2):
    return np.nextafter(x1, x2).astype(x1.dtype, copy=False)


register_op("NextAfter", inputs=["x1: T", "x2: T"], outputs=["output: T"],
            attrs=["T: {float64, float32} = DT_FLOAT"], shape_fn=broadcast_shape_fn,
            kernel=_nextafter_kernel)


def nextafter(x1, x2, name=None):
    """The next representable value of x1 in the direction of x2, element-wise with
    broadcasting (`NextAfter`)."""
    return apply_op("NextAfter", x1=x1, x2=x2, name=name).outputs[0]


@RegisterGradient("NextAfter")
def _nextafter_grad(op, grad):
    x1, x2 = op.inputs
    s1, s2 = shape_lib.shape(x1), shape_lib.shape(x2)
    r1, r2 = broadcast_gradient_args(s1, s2)
    ones = create.ones(s1, dtype=x1.dtype)
    zeros = create.zeros(s2, dtype=x2.dtype)
    return (shape_lib.reshape(reductions.reduce_sum(ones * grad, r1), s1),
            shape_lib.reshape(reductions.reduce_sum(zeros * grad, r2), s2))
