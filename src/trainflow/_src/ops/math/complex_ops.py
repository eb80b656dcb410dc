"""Complex numbers: the `Complex` and `Angle` ops, `tf.complex` and `tf.math.angle`,
and the gradients of Complex, Angle, Real, Imag, Conj and ComplexAbs.

Real, Imag, Conj and ComplexAbs are registered in `cwise`; their
gradients live here beside `Complex`, which they need (d real(z) / dz feeds
back complex(grad, 0)). Imported at the end of `math_ops`.
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.framework import constant_op
from trainflow._src.ops.math import arith
from trainflow._src.ops.math.grad_util import reduce_gradient_args
from trainflow._src.ops.math.shapes import broadcast_shape_fn


def _complex_kernel(real, imag, *, Tout):  # noqa: N803 - TF's attr name
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype=Tout.as_numpy_dtype)
    out.real = real
    out.imag = imag
    return out


register_op("Complex", inputs=["real: T", "imag: T"], outputs=["out: Tout"],
            attrs=["T: {float, double} = DT_FLOAT",
                   "Tout: {complex64, complex128} = DT_COMPLEX64"],
            shape_fn=broadcast_shape_fn, kernel=_complex_kernel)


def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """Builds complex numbers real + imag * 1j element-wise (`Complex`).

    Args:
      real, imag: float32 tensors (giving complex64) or float64 tensors (complex128).
      name: the op name.

    Raises:
      TypeError: if the two dtypes differ or are not float32/float64.
    """
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    with name_scope(name, "Complex", [real, imag]) as scope:
        pair = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if pair == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif pair == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            raise TypeError(f"The `real` and `imag` components have incorrect types: "
                            f"{real.dtype.name} {imag.dtype.name}. They must be consistent, "
                            f"and one of {[dtypes.float32, dtypes.float64]}")
        return arith._out("Complex", scope, real=real, imag=imag, Tout=tout)


@RegisterGradient("Complex")
def _complex_grad(op, grad):
    x, y = op.inputs
    return reduce_gradient_args(x, y, arith.real(grad), arith.imag(grad))


@RegisterGradient("Real")
def _real_grad(op, grad):
    zero = constant_op.constant(0, dtype=grad.dtype.base_dtype)
    return complex(grad, zero)


@RegisterGradient("Imag")
def _imag_grad(op, grad):
    zero = constant_op.constant(0, dtype=grad.dtype.base_dtype)
    return complex(zero, grad)


@RegisterGradient("Conj")
def _conj_grad(op, grad):
    return arith.conj(grad)


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    # d|z| = z / |z| (0 at z = 0), scaled by the real incoming gradient.
    z, magnitude = op.inputs[0], op.outputs[0]
    return arith.div_no_nan(
        complex(grad, create.zeros_like(grad)) * z,
        complex(magnitude, create.zeros_like(magnitude)))


def _angle_kernel(input, *, Tout):  # noqa: A002, N803 - TF's names
    return np.angle(input).astype(Tout.as_numpy_dtype)


register_op("Angle", inputs=["input: T"], outputs=["output: Tout"],
            attrs=["T: {complex64, complex128} = DT_COMPLEX64",
                   "Tout: {float, double} = DT_FLOAT"],
            shape_fn=unchanged_shape, kernel=_angle_kernel)


def angle(input, name=None):  # noqa: A002 - TF's name
    """The argument of complex numbers element-wise (`Angle`); for real inputs, pi
    where negative and 0 elsewhere."""
    with name_scope(name, "Angle", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return arith._out("Angle", scope, input=input, Tout=input.dtype.real_dtype)
        return gather_ops.where(arith.less(input, 0), np.pi * create.ones_like(input),
                                create.zeros_like(input))


@RegisterGradient("Angle")
def _angle_grad(op, grad):
    # d arg(z) = -grad / (imag(z) + i real(z)).
    x = op.inputs[0]
    z = arith.reciprocal(complex(arith.imag(x), arith.real(x)))
    zero = constant_op.constant(0, dtype=grad.dtype.base_dtype)
    return -complex(grad, zero) * z


__all__ = ["angle", "complex"]
