"""Betainc: the regularized incomplete beta function I_x(a, b) (`tf.math.betainc`):
registration, kernel, gradient (with respect to x only, as TensorFlow's)."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, invalid_argument, merge_dims, shape_of)
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math import special_series
from trainflow._src.ops.math.grad_util import broadcast_gradient_args
from trainflow._src.ops.math.special import _scipy_special

__all__ = ["betainc"]


def _betainc_shape(op):
    # a, b and x share one shape; a scalar stands for any shape.
    merged = ()
    for t in op.inputs:
        dims = dims_of(t)
        if dims is None:
            return [UNKNOWN]
        if dims != ():
            merged = dims if merged == () else merge_dims(merged, dims)
    return [shape_of(merged)]


def _betainc_kernel(a, b, x):
    shaped = [(n, v.shape) for n, v in zip("abx", (a, b, x)) if v.ndim]
    for n, shape in shaped[1:]:
        if shape != shaped[0][1]:
            raise invalid_argument(f"Shapes of {shaped[0][0]} and {n} are inconsistent: "
                                   f"{list(shaped[0][1])} vs. {list(shape)}")
    sp = _scipy_special()
    wide = [np.asarray(v, np.float64) for v in (a, b, x)]
    with np.errstate(all="ignore"):
        if sp is not None:
            out = sp.betainc(*wide)
            # SciPy extends I_x(a, b) to a = 0 or b = 0; TensorFlow's is NaN there.
            out = np.where((wide[0] > 0) & (wide[1] > 0), out, np.nan)
        else:
            out = special_series.betainc(*wide)
    return np.asarray(out).astype(x.dtype)


register_op("Betainc", inputs=["a: T", "b: T", "x: T"], outputs=["z: T"],
            attrs=["T: {float, double}"], shape_fn=_betainc_shape, kernel=_betainc_kernel)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) (`Betainc`); a, b and x have
    one shape (or are scalars)."""
    return apply_op("Betainc", a=a, b=b, x=x, name=name).outputs[0]


@RegisterGradient("Betainc")
def _betainc_grad(op, grad):
    a, b, x = op.inputs
    sa, sx = shape_lib.shape(a), shape_lib.shape(x)
    _, rx = broadcast_gradient_args(sa, sx)
    log_beta = arith.lgamma(a) + arith.lgamma(b) - arith.lgamma(a + b)
    partial_x = arith.exp(arith.xlog1py(b - 1, -x) + arith.xlogy(a - 1, x) - log_beta)
    return (None, None,
            shape_lib.reshape(reductions.reduce_sum(partial_x * grad, rx), sx))
