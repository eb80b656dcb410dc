"""Element-wise math op types: registrations and NumPy kernels.

Unary ops keep their input's shape; binary ops broadcast (`shapes`). The
common kernels are NumPy ufuncs registered directly, so the executor calls the
ufunc with no Python in between; ops whose integer or edge-case semantics
differ from NumPy's (integer division by zero, truncating division, `Round`
of integers) get small wrappers. Type lists and their order are TensorFlow's,
so "not in list of allowed values" errors read the same. Integer arithmetic on
static values is folded at graph construction (`constant_value`), as TF's shape
inference does. Gradients: `unary_grad`, `binary_grad`, `complex_ops`.
"""
import numpy as np

from trainflow._src.framework import dtypes, errors, tensor_util
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.ops.math import special
from trainflow._src.ops.math.shapes import broadcast_shape_fn

# TensorFlow's type lists for these ops, in its order.
_FLOAT = "{bfloat16, float16, float32, float64}"
_FLOAT_COMPLEX = "{bfloat16, float16, float32, float64, complex64, complex128}"
_SIGNED = "{bfloat16, float16, float32, float64, int8, int16, int32, int64, complex64, complex128}"
_ABS = "{bfloat16, float16, float32, float64, int8, int16, int32, int64}"
_SQUARE = ("{bfloat16, float16, float32, float64, int8, int16, int32, int64, uint8, uint16, "
           "uint32, uint64, complex64, complex128}")
_ADD_V2 = ("{bfloat16, float16, float32, float64, uint8, uint16, uint32, uint64, int8, int16, "
           "int32, int64, complex64, complex128}")
_ADD = ("{bfloat16, float16, float32, float64, uint8, int8, int16, int32, int64, complex64, "
        "complex128, string}")
_SUB = ("{bfloat16, float16, float32, float64, uint8, int8, uint16, int16, int32, int64, "
        "complex64, complex128, uint32, uint64}")
_MUL_DIV = ("{bfloat16, float16, float32, float64, uint8, int8, uint16, int16, int32, uint32, "
            "uint64, int64, complex64, complex128}")
_FLOOR_MOD = ("{int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, float16, "
              "float32, float64}")
_MOD = "{int32, int64, float16, bfloat16, float32, float64}"
_TRUNCATE_MOD = "{int32, int64, bfloat16, float16, float32, float64}"
_POW = "{bfloat16, float32, float16, float64, int8, int16, int32, int64, complex64, complex128}"
_MIN_MAX = ("{bfloat16, float16, float32, float64, int8, uint8, int16, uint16, int32, uint32, "
            "int64, uint64}")
_SQUARED_DIFF = "{bfloat16, float16, float32, float64, int32, int64, complex64, complex128}"
_COMPARE = ("{float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, "
            "uint32, uint64}")
_BITWISE = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
_X_OPS = "{float16, bfloat16, float32, float64, complex64, complex128}"
_DIV_NO_NAN = "{float16, float32, bfloat16, float64, complex64, complex128}"
_COMPLEX_PARTS = ["T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"]


def _ufunc_op(info):
    # A ufunc's own keyword parameters (dtype=, out=, ...) are not op attrs.
    info.kernel_attrs = ()
    info.kernel_wants_ctx = False
    return info


def unary(op_type, types, kernel, out_type="T", input_name="x", output_name="y"):
    """Registers a one-input op whose output has the input's shape."""
    info = register_op(op_type, inputs=[f"{input_name}: T"],
                       outputs=[f"{output_name}: {out_type}"], attrs=[f"T: {types}"],
                       shape_fn=unchanged_shape, kernel=kernel)
    return _ufunc_op(info) if isinstance(kernel, np.ufunc) else info


def binary(op_type, types, kernel, out_type="T", names=("x", "y"), extra_attrs=()):
    """Registers a broadcasting two-input op `z = f(x, y)`."""
    info = register_op(op_type, inputs=[f"{names[0]}: T", f"{names[1]}: T"],
                       outputs=[f"z: {out_type}"], attrs=[f"T: {types}", *extra_attrs],
                       shape_fn=broadcast_shape_fn, kernel=kernel)
    return _ufunc_op(info) if isinstance(kernel, np.ufunc) else info


def logical(op_type, kernel, n_inputs):
    """Registers a bool op (LogicalAnd/Or/Not)."""
    inputs = ["x: bool", "y: bool"][:n_inputs]
    outputs = ["z: bool"] if n_inputs == 2 else ["y: bool"]
    shape_fn = broadcast_shape_fn if n_inputs == 2 else unchanged_shape
    return _ufunc_op(register_op(op_type, inputs=inputs, outputs=outputs,
                                 shape_fn=shape_fn, kernel=kernel))


# -- integer-aware kernels ------------------------------------------------------------
def _is_int(x):
    return x.dtype.kind in "iu"


def _check_divisor(x, y):
    # An empty result divides nothing (TF checks element by element), e.g. the
    # (axes + rank) % rank of a scalar's reduction-gradient shape.
    if np.size(x) and not np.all(y):
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _trunc_div_int(x, y):
    _check_divisor(x, y)
    q = np.floor_divide(x, y)
    # Floor and truncation differ where the signs differ and the division is inexact.
    fix = (np.remainder(x, y) != 0) & ((x < 0) != (y < 0))
    return q + fix.astype(q.dtype)


def _no_complex(x, op_type):
    if x.dtype.kind == "c":
        raise errors.InvalidArgumentError(
            None, None, f"{op_type} has no kernel for complex inputs ({x.dtype})")


def _real_div(x, y):
    if _is_int(x):
        return _trunc_div_int(x, y)
    return np.true_divide(x, y)


def _floor_div(x, y):
    if _is_int(x):
        _check_divisor(x, y)
        return np.floor_divide(x, y)
    _no_complex(x, "FloorDiv")
    return np.floor(np.true_divide(x, y))


def _truncate_div(x, y):
    if _is_int(x):
        return _trunc_div_int(x, y)
    _no_complex(x, "TruncateDiv")
    return np.trunc(np.true_divide(x, y))


def _floor_mod(x, y):
    if _is_int(x):
        _check_divisor(x, y)
    return np.remainder(x, y)


def _trunc_mod(x, y):
    if _is_int(x):
        _check_divisor(x, y)
    return np.fmod(x, y)


def _reciprocal(x):
    if _is_int(x):
        _check_divisor(x, x)
        return _trunc_div_int(np.ones_like(x), x)
    return np.reciprocal(x)


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _round(x):
    if _is_int(x):
        return np.array(x, copy=True)
    return np.round(x)


def _sigmoid(x):
    # exp(-x) overflows to inf for very negative x, giving exactly 0 as TF does.
    return np.reciprocal(np.add(np.exp(np.negative(x)), x.dtype.type(1)))


def _squared_difference(x, y):
    d = np.subtract(x, y)
    if d.dtype.kind == "c":
        return d * np.conjugate(d)
    return np.square(d)


def _zero_where(mask, value, dtype):
    return np.where(mask, np.zeros((), dtype), value)


def _xlogy(x, y):
    return _zero_where(x == 0, np.multiply(x, np.log(y)), x.dtype)


def _xlog1py(x, y):
    return _zero_where(x == 0, np.multiply(x, np.log1p(y)), x.dtype)


def _xdivy(x, y):
    return _zero_where(x == 0, np.true_divide(x, y), x.dtype)


def _div_no_nan(x, y):
    return _zero_where(y == 0, np.true_divide(x, y), x.dtype)


def _mul_no_nan(x, y):
    return _zero_where(y == 0, np.multiply(x, y), x.dtype)


def _compare_kernel(fn, mismatch_value):
    def kernel(x, y, *, incompatible_shape_error):
        if incompatible_shape_error:
            return fn(x, y)
        try:
            return fn(x, y)
        except ValueError:
            return np.bool_(mismatch_value)
    return kernel


def _real_part(x, *, Tout):  # noqa: N803 - TF's attr name
    return np.real(x).astype(Tout.as_numpy_dtype)


def _imag_part(x, *, Tout):  # noqa: N803
    return np.imag(x).astype(Tout.as_numpy_dtype)


def _complex_abs(x, *, Tout):  # noqa: N803
    return np.abs(x).astype(Tout.as_numpy_dtype)


# -- unary ----------------------------------------------------------------------------
unary("Neg", _SIGNED, np.negative)
unary("Abs", _ABS, np.abs)
unary("Sign", _SIGNED, np.sign)
unary("Square", _SQUARE, np.square)
unary("Sqrt", _FLOAT_COMPLEX, np.sqrt)
unary("Rsqrt", _FLOAT_COMPLEX, _rsqrt)
unary("Exp", _FLOAT_COMPLEX, np.exp)
unary("Expm1", _FLOAT_COMPLEX, np.expm1)
unary("Log", _FLOAT_COMPLEX, np.log)
unary("Log1p", _FLOAT_COMPLEX, np.log1p)
unary("Sin", _FLOAT_COMPLEX, np.sin)
unary("Cos", _FLOAT_COMPLEX, np.cos)
unary("Tan", _FLOAT_COMPLEX, np.tan)
unary("Asin", _FLOAT_COMPLEX, np.arcsin)
unary("Acos", _FLOAT_COMPLEX, np.arccos)
unary("Atan", _FLOAT_COMPLEX, np.arctan)
unary("Sinh", _FLOAT_COMPLEX, np.sinh)
unary("Cosh", _FLOAT_COMPLEX, np.cosh)
unary("Tanh", _FLOAT_COMPLEX, np.tanh)
unary("Asinh", _FLOAT_COMPLEX, np.arcsinh)
unary("Acosh", _FLOAT_COMPLEX, np.arccosh)
unary("Atanh", _FLOAT_COMPLEX, np.arctanh)
unary("Sigmoid", _FLOAT_COMPLEX, _sigmoid)
unary("Erf", _FLOAT, special.erf)
unary("Erfc", _FLOAT, special.erfc)
unary("Lgamma", _FLOAT, special.lgamma)
unary("Digamma", _FLOAT, special.digamma)
unary("Floor", _FLOAT, np.floor)
unary("Ceil", _FLOAT, np.ceil)
unary("Rint", _FLOAT, np.rint)
unary("Round", _SIGNED, _round)
unary("Reciprocal", _SIGNED, _reciprocal)
unary("Inv", _SIGNED, _reciprocal)
unary("IsNan", _FLOAT, np.isnan, out_type="bool")
unary("IsInf", _FLOAT, np.isinf, out_type="bool")
unary("IsFinite", _FLOAT, np.isfinite, out_type="bool")
unary("Invert", _BITWISE, np.invert)
unary("Conj", "{complex64, complex128, variant} = DT_COMPLEX64", np.conjugate,
      input_name="input", output_name="output")
register_op("Real", inputs=["input: T"], outputs=["output: Tout"], attrs=_COMPLEX_PARTS,
            shape_fn=unchanged_shape, kernel=_real_part)
register_op("Imag", inputs=["input: T"], outputs=["output: Tout"], attrs=_COMPLEX_PARTS,
            shape_fn=unchanged_shape, kernel=_imag_part)
register_op("ComplexAbs", inputs=["x: T"], outputs=["y: Tout"], attrs=_COMPLEX_PARTS,
            shape_fn=unchanged_shape, kernel=_complex_abs)

# -- binary arithmetic ----------------------------------------------------------------
binary("AddV2", _ADD_V2, np.add)
binary("Add", _ADD, np.add)
binary("Sub", _SUB, np.subtract)
binary("Mul", _MUL_DIV, np.multiply)
binary("RealDiv", _MUL_DIV, _real_div)
binary("Div", _MUL_DIV, _real_div)
binary("FloorDiv", _MUL_DIV, _floor_div)
binary("TruncateDiv", _MUL_DIV, _truncate_div)
binary("FloorMod", _FLOOR_MOD, _floor_mod)
binary("Mod", _MOD, _trunc_mod)
binary("TruncateMod", _TRUNCATE_MOD, _trunc_mod)
binary("Pow", _POW, np.power)
binary("Maximum", _MIN_MAX, np.maximum)
binary("Minimum", _MIN_MAX, np.minimum)
binary("SquaredDifference", _SQUARED_DIFF, _squared_difference)
binary("Atan2", _FLOAT, np.arctan2, names=("y", "x"))
binary("Polygamma", "{float32, float64}", special.polygamma, names=("a", "x"))
binary("Xlogy", _X_OPS, _xlogy)
binary("Xlog1py", _X_OPS, _xlog1py)
binary("Xdivy", _X_OPS, _xdivy)
binary("DivNoNan", _DIV_NO_NAN, _div_no_nan)
binary("MulNoNan", _FLOAT_COMPLEX, _mul_no_nan)

# -- comparisons, logic, bits -----------------------------------------------------------
binary("Equal", "type", _compare_kernel(np.equal, False), out_type="bool",
       extra_attrs=["incompatible_shape_error: bool = true"])
binary("NotEqual", "type", _compare_kernel(np.not_equal, True), out_type="bool",
       extra_attrs=["incompatible_shape_error: bool = true"])
binary("Less", _COMPARE, np.less, out_type="bool")
binary("LessEqual", _COMPARE, np.less_equal, out_type="bool")
binary("Greater", _COMPARE, np.greater, out_type="bool")
binary("GreaterEqual", _COMPARE, np.greater_equal, out_type="bool")
logical("LogicalAnd", np.logical_and, 2)
logical("LogicalOr", np.logical_or, 2)
logical("LogicalNot", np.logical_not, 1)
binary("BitwiseAnd", _BITWISE, np.bitwise_and)
binary("BitwiseOr", _BITWISE, np.bitwise_or)
binary("BitwiseXor", _BITWISE, np.bitwise_xor)


# -- static values of integer shape arithmetic ---------------------------------------------
# TensorFlow's shape inference folds small constant subgraphs (a transpose permutation or
# a reshape target computed from shapes and ranks), so such shapes stay static; these
# rules give `constant_value` the same reach for the integer ops that shape code uses.
_FOLD_MAX_ELEMENTS = 1024
_FOLD_TYPES = (dtypes.int32, dtypes.int64)


def _fold_with_kernel(kernel, typed_by_input=False):
    def value(op, index, partial):
        typed = op.inputs[0] if typed_by_input else op.outputs[0]
        if typed.dtype.base_dtype not in _FOLD_TYPES:
            return None
        args = [tensor_util.constant_value(t) for t in op.inputs]
        if any(a is None or np.size(a) > _FOLD_MAX_ELEMENTS for a in args):
            return None
        try:
            out = kernel(*[np.asarray(a) for a in args])
        except (errors.OpError, ArithmeticError, ValueError):
            return None
        return np.asarray(out, dtype=op.outputs[0].dtype.base_dtype.as_numpy_dtype)
    return value


for _op_type, _kernel in (("AddV2", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
                          ("FloorDiv", _floor_div), ("FloorMod", _floor_mod),
                          ("Maximum", np.maximum), ("Minimum", np.minimum),
                          ("Neg", np.negative)):
    tensor_util.register_constant_value(_op_type)(_fold_with_kernel(_kernel))
# Comparisons of integers (a size check such as bincount's `size(arr) > 0`).
for _op_type, _kernel in (("Greater", np.greater), ("GreaterEqual", np.greater_equal),
                          ("Less", np.less), ("LessEqual", np.less_equal),
                          ("Equal", np.equal), ("NotEqual", np.not_equal)):
    tensor_util.register_constant_value(_op_type)(_fold_with_kernel(_kernel, True))
