"""The one-argument special functions of `tf.math.special` and `tf.math`: BesselJ0,
BesselJ1, BesselY0, BesselY1, BesselK0, BesselK0e, BesselK1, BesselK1e, Dawsn, Expint,
FresnelCos, FresnelSin, Spence, Erfinv and Ndtri (registrations, kernels, gradients,
graph functions), and `erfcinv`, TensorFlow's composite of Ndtri.

Kernels compute in float64 (SciPy's Cephes ufuncs when SciPy is installed, else the
series of `special_series`) and round to the input's dtype.
"""
import numpy as np

from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import special_series as series
from trainflow._src.ops.math.special import _scipy_special

__all__ = ["bessel_j0", "bessel_j1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
           "bessel_y0", "bessel_y1", "dawsn", "erfcinv", "erfinv", "expint", "fresnel_cos",
           "fresnel_sin", "ndtri", "spence"]

_TYPES = "T: {bfloat16, half, float, double}"


def _fresnel_part(index):
    def fn(sp, x):
        return sp.fresnel(x)[index]
    return fn


def _scipy(name):
    return lambda sp, x: getattr(sp, name)(x)


# op type -> (graph function name, SciPy evaluation, fallback evaluation).
_FUNCTIONS = {
    "BesselJ0": ("bessel_j0", _scipy("j0"), series.bessel_j0),
    "BesselJ1": ("bessel_j1", _scipy("j1"), series.bessel_j1),
    "BesselY0": ("bessel_y0", _scipy("y0"), series.bessel_y0),
    "BesselY1": ("bessel_y1", _scipy("y1"), series.bessel_y1),
    "BesselK0": ("bessel_k0", _scipy("k0"), series.bessel_k0),
    "BesselK0e": ("bessel_k0e", _scipy("k0e"), series.bessel_k0e),
    "BesselK1": ("bessel_k1", _scipy("k1"), series.bessel_k1),
    "BesselK1e": ("bessel_k1e", _scipy("k1e"), series.bessel_k1e),
    "Dawsn": ("dawsn", _scipy("dawsn"), series.dawsn),
    "Expint": ("expint", _scipy("expi"), series.expint),
    "FresnelCos": ("fresnel_cos", _fresnel_part(1), series.fresnel_cos),
    "FresnelSin": ("fresnel_sin", _fresnel_part(0), series.fresnel_sin),
    "Spence": ("spence", _scipy("spence"), series.spence),
    "Erfinv": ("erfinv", _scipy("erfinv"), series.erfinv),
    "Ndtri": ("ndtri", _scipy("ndtri"), series.ndtri),
}


def _outside_domain(op_type, x, single):
    """(mask, value) pairs giving TensorFlow's values off each function's domain."""
    if op_type.startswith("BesselK"):
        return [(x <= 0, np.inf)]
    if op_type == "BesselY0":
        return [(x <= 0, -np.inf), (x == np.inf, np.nan)]
    if op_type == "BesselY1":
        # Eigen's float kernel gives NaN at 0, its double kernel -inf.
        return [(x < 0, -np.inf), (x == 0, np.nan if single else -np.inf),
                (x == np.inf, np.nan)]
    if op_type == "Expint":
        return [(x < 0, np.nan), (np.isinf(x), np.nan)]
    if op_type in ("BesselJ0", "BesselJ1"):
        return [(np.isinf(x), np.nan)]
    return []


def evaluate(op_type, x, use_scipy=True):
    """The float64 values of `op_type`'s function at `x` (SciPy's when installed and
    `use_scipy`, else the series'), with TensorFlow's values off the domain."""
    _, with_scipy, fallback = _FUNCTIONS[op_type]
    x = np.asarray(x)
    wide = np.array(x, dtype=np.float64)
    sp = _scipy_special() if use_scipy else None
    with np.errstate(all="ignore"):
        out = np.array(with_scipy(sp, wide) if sp is not None else fallback(wide),
                       dtype=np.float64)
    for mask, value in _outside_domain(op_type, wide, x.dtype.itemsize <= 4):
        out[mask] = value
    return out


def _kernel(op_type):
    def kernel(x):
        return evaluate(op_type, x).astype(x.dtype)
    kernel.__name__ = "_" + _FUNCTIONS[op_type][0] + "_kernel"
    return kernel


def _graph_function(op_type, fn_name):
    def fn(x, name=None):
        with name_scope(name, fn_name, [x]):
            return apply_op(op_type, x=x).outputs[0]
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"`{fn_name}(x)` element-wise (op `{op_type}`)."
    return fn


for _op_type in _FUNCTIONS:
    register_op(_op_type, inputs=["x: T"], outputs=["y: T"], attrs=[_TYPES],
                shape_fn=unchanged_shape, kernel=_kernel(_op_type))

bessel_j0 = _graph_function("BesselJ0", "bessel_j0")
bessel_j1 = _graph_function("BesselJ1", "bessel_j1")
bessel_y0 = _graph_function("BesselY0", "bessel_y0")
bessel_y1 = _graph_function("BesselY1", "bessel_y1")
bessel_k0 = _graph_function("BesselK0", "bessel_k0")
bessel_k0e = _graph_function("BesselK0e", "bessel_k0e")
bessel_k1 = _graph_function("BesselK1", "bessel_k1")
bessel_k1e = _graph_function("BesselK1e", "bessel_k1e")
dawsn = _graph_function("Dawsn", "dawsn")
expint = _graph_function("Expint", "expint")
fresnel_cos = _graph_function("FresnelCos", "fresnel_cos")
fresnel_sin = _graph_function("FresnelSin", "fresnel_sin")
spence = _graph_function("Spence", "spence")
erfinv = _graph_function("Erfinv", "erfinv")
ndtri = _graph_function("Ndtri", "ndtri")


def erfcinv(x, name=None):
    """The inverse of erfc: -ndtri(x / 2) / sqrt(2), as TensorFlow composes it."""
    with name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * np.sqrt(0.5)


# -- gradients (TensorFlow's formulas) -----------------------------------------------------
def _like(x, value):
    return constant(value, dtype=x.dtype.base_dtype)


@RegisterGradient("BesselJ0")
def _bessel_j0_grad(op, grad):
    return grad * -bessel_j1(op.inputs[0])


@RegisterGradient("BesselJ1")
def _bessel_j1_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    deriv = gather_ops.where_v2(arith.equal(x, 0.0), _like(x, 0.5),
                                bessel_j0(x) - arith.div(y, x))
    return grad * deriv


@RegisterGradient("BesselY0")
def _bessel_y0_grad(op, grad):
    return grad * -bessel_y1(op.inputs[0])


@RegisterGradient("BesselY1")
def _bessel_y1_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return grad * (bessel_y0(x) - arith.div(y, x))


@RegisterGradient("BesselK0")
def _bessel_k0_grad(op, grad):
    return grad * -bessel_k1(op.inputs[0])


@RegisterGradient("BesselK0e")
def _bessel_k0e_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return grad * (y - bessel_k1e(x))


@RegisterGradient("BesselK1")
def _bessel_k1_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return grad * (-bessel_k0(x) - arith.div(y, x))


@RegisterGradient("BesselK1e")
def _bessel_k1e_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return grad * (y * (1.0 - arith.reciprocal(x)) - bessel_k0e(x))


@RegisterGradient("Dawsn")
def _dawsn_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return grad * (1.0 - 2 * x * y)


@RegisterGradient("Expint")
def _expint_grad(op, grad):
    x = op.inputs[0]
    return grad * arith.exp(x) / x


@RegisterGradient("FresnelCos")
def _fresnel_cos_grad(op, grad):
    x = op.inputs[0]
    return grad * arith.cos((np.pi / 2.0) * arith.square(x))


@RegisterGradient("FresnelSin")
def _fresnel_sin_grad(op, grad):
    x = op.inputs[0]
    return grad * arith.sin((np.pi / 2.0) * arith.square(x))


@RegisterGradient("Spence")
def _spence_grad(op, grad):
    x = op.inputs[0]
    deriv = arith.log(x) / (1 - x)
    deriv = gather_ops.where(arith.equal(x, 1.0), -create.ones_like(x), deriv)
    return grad * deriv


@RegisterGradient("Erfinv")
def _erfinv_grad(op, grad):
    return grad * _like(grad, np.sqrt(np.pi) / 2) * arith.exp(arith.square(op.outputs[0]))


@RegisterGradient("Ndtri")
def _ndtri_grad(op, grad):
    return grad * _like(grad, np.sqrt(2 * np.pi)) * arith.exp(
        arith.square(op.outputs[0]) / 2.0)
