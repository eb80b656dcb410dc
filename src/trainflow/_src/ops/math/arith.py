"""Arithmetic, element-wise functions, comparisons, logic, matrix products and sums of
tensors: the functions that build the op types registered in `cwise` and `matmul`, with
TensorFlow's op names, conversions and dtype rules (a Python number takes the other
operand's dtype; float32 and float64 never mix silently). The `math_ops` family module
re-exports them with the reductions, scans, segments and gradients.
"""
import builtins
import collections

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math import cwise  # noqa: F401 - registrations
from trainflow._src.ops.math import matmul as _matmul_op  # noqa: F401 - registers MatMul (`matmul` is the function below)
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.tensor_shape import as_shape, unknown_shape
from trainflow._src.ops.array import create
from trainflow._src.ops.array.identity import identity
def _out(op_type, name, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def _unary(op_type, fn_name, what):
    def fn(x, name=None):
        return apply_op(op_type, x=x, name=name).outputs[0]
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"Computes {what} of `x` element-wise (op `{op_type}`).\n\n"
                  "Args:\n  x: a Tensor or value convertible to one.\n  name: the op name.\n\n"
                  "Returns:\n  a Tensor of the same shape.\n\nRaises:\n"
                  "  TypeError: if `x`'s dtype is not allowed for the op.")
    return fn


def _binary(op_type, fn_name, what):
    def fn(x, y, name=None):
        return apply_op(op_type, x=x, y=y, name=name).outputs[0]
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"Returns {what}, element-wise with broadcasting (op `{op_type}`).\n\n"
                  "Args:\n  x, y: Tensors (or values) of the same dtype.\n"
                  "  name: the op name.\n\nRaises:\n  TypeError: for mismatched or unsupported "
                  "dtypes.\n  ValueError: for shapes that do not broadcast.")
    return fn


# -- unary functions ----------------------------------------------------------------------
negative = _unary("Neg", "negative", "the numerical negative")
neg = negative
square = _unary("Square", "square", "the square")
sqrt = _unary("Sqrt", "sqrt", "the square root")
rsqrt = _unary("Rsqrt", "rsqrt", "the reciprocal square root")
exp = _unary("Exp", "exp", "the exponential")
expm1 = _unary("Expm1", "expm1", "exp(x) - 1")
log = _unary("Log", "log", "the natural logarithm")
log1p = _unary("Log1p", "log1p", "log(1 + x)")
sin = _unary("Sin", "sin", "the sine")
cos = _unary("Cos", "cos", "the cosine")
tan = _unary("Tan", "tan", "the tangent")
asin = _unary("Asin", "asin", "the inverse sine")
acos = _unary("Acos", "acos", "the inverse cosine")
atan = _unary("Atan", "atan", "the inverse tangent")
sinh = _unary("Sinh", "sinh", "the hyperbolic sine")
cosh = _unary("Cosh", "cosh", "the hyperbolic cosine")
tanh = _unary("Tanh", "tanh", "the hyperbolic tangent")
asinh = _unary("Asinh", "asinh", "the inverse hyperbolic sine")
acosh = _unary("Acosh", "acosh", "the inverse hyperbolic cosine")
atanh = _unary("Atanh", "atanh", "the inverse hyperbolic tangent")
sigmoid = _unary("Sigmoid", "sigmoid", "the logistic function 1 / (1 + exp(-x))")
erf = _unary("Erf", "erf", "the Gauss error function")
erfc = _unary("Erfc", "erfc", "the complementary error function")
lgamma = _unary("Lgamma", "lgamma", "log |Gamma(x)|")
digamma = _unary("Digamma", "digamma", "the digamma function (derivative of lgamma)")
floor = _unary("Floor", "floor", "the largest integer not greater than x")
ceil = _unary("Ceil", "ceil", "the smallest integer not less than x")
rint = _unary("Rint", "rint", "the nearest integer (halves to even)")
reciprocal = _unary("Reciprocal", "reciprocal", "1 / x")
is_nan = _unary("IsNan", "is_nan", "whether each element is NaN")
is_inf = _unary("IsInf", "is_inf", "whether each element is +-inf")
is_finite = _unary("IsFinite", "is_finite", "whether each element is finite")
logical_not = _unary("LogicalNot", "logical_not", "the logical NOT")
invert = _unary("Invert", "invert", "the bitwise NOT")


def abs(x, name=None):  # noqa: A001 - TF's name
    """Computes |x| element-wise (`Abs`; `ComplexAbs` with a real result for complex x).

    Raises:
      TypeError: if `x`'s dtype is not numeric.
    """
    with name_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return _out("ComplexAbs", scope, x=x, Tout=x.dtype.real_dtype)
        return _out("Abs", scope, x=x)


def sign(x, name=None):
    """The sign of `x` (-1, 0 or 1) element-wise (`Sign`); x/|x| (0 at 0) for complex."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        magnitude = _out("ComplexAbs", None, x=x, Tout=x.dtype.real_dtype)
        return _out("DivNoNan", name, x=x, y=_cast(magnitude, x.dtype.base_dtype))
    return _out("Sign", name, x=x)


def round(x, name=None):  # noqa: A001 - TF's name
    """Rounds to the nearest integer, halves to even (`Round`); integers pass through."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return _out("Round", name, x=x)


def log_sigmoid(x, name=None):
    """Computes log(sigmoid(x)) = -softplus(-x) stably (needs the nn `Softplus` op)."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return _out("Neg", scope, x=_out("Softplus", None, features=negative(x)))


def conj(x, name=None):
    """Complex conjugate (`Conj`); real tensors are returned unchanged.

    Raises:
      TypeError: for non-numeric dtypes.
    """
    if isinstance(x, Tensor) and (x.dtype.is_floating or x.dtype.is_integer):
        return x
    with name_scope(name, "Conj", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex or x.dtype.base_dtype == dtypes.variant:
            return _out("Conj", scope, input=x)
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


def real(input, name=None):  # noqa: A002 - TF's name
    """The real part (`Real`); real tensors are returned unchanged.

    Raises:
      TypeError: for non-numeric dtypes.
    """
    with name_scope(name, "Real", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return _out("Real", scope, input=input, Tout=input.dtype.real_dtype)
        if input.dtype.is_floating or input.dtype.is_integer:
            return input
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype "
                        f"{input.dtype!r}")


def imag(input, name=None):  # noqa: A002 - TF's name
    """The imaginary part (`Imag`); zeros for real tensors (`zeros_like`: a constant
    when the shape is static, so it does not depend on `input`)."""
    with name_scope(name, "Imag", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return _out("Imag", scope, input=input, Tout=input.dtype.real_dtype)
        return create.zeros_like(input)


# -- binary arithmetic --------------------------------------------------------------------
subtract = _binary("Sub", "subtract", "x - y")
sub = subtract
multiply = _binary("Mul", "multiply", "x * y")
mul = multiply
realdiv = _binary("RealDiv", "realdiv", "x / y for real types")
floor_div = _binary("FloorDiv", "floor_div", "floor(x / y)")
truncatediv = _binary("TruncateDiv", "truncatediv", "x / y rounded toward zero")
truncatemod = _binary("TruncateMod", "truncatemod", "the remainder of truncated division")
floormod = _binary("FloorMod", "floormod", "the remainder of floor division (Python's %)")
mod = floormod
maximum = _binary("Maximum", "maximum", "max(x, y)")
minimum = _binary("Minimum", "minimum", "min(x, y)")
squared_difference = _binary("SquaredDifference", "squared_difference", "(x - y)^2")
equal = _binary("Equal", "equal", "the truth value of x == y")
not_equal = _binary("NotEqual", "not_equal", "the truth value of x != y")
less = _binary("Less", "less", "the truth value of x < y")
less_equal = _binary("LessEqual", "less_equal", "the truth value of x <= y")
greater = _binary("Greater", "greater", "the truth value of x > y")
greater_equal = _binary("GreaterEqual", "greater_equal", "the truth value of x >= y")
logical_and = _binary("LogicalAnd", "logical_and", "x AND y for bool tensors")
logical_or = _binary("LogicalOr", "logical_or", "x OR y for bool tensors")
xlogy = _binary("Xlogy", "xlogy", "x * log(y), and 0 where x is 0")
bitwise_and = _binary("BitwiseAnd", "bitwise_and", "the bitwise AND")
bitwise_or = _binary("BitwiseOr", "bitwise_or", "the bitwise OR")
bitwise_xor = _binary("BitwiseXor", "bitwise_xor", "the bitwise XOR")


def atan2(y, x, name=None):
    """The angle of the point (x, y) in radians, element-wise (`Atan2`)."""
    return _out("Atan2", name, y=y, x=x)


def polygamma(a, x, name=None):
    """The polygamma function psi^(a)(x), the a-th derivative of digamma (`Polygamma`).

    Args:
      a: non-negative integer orders, as a float tensor of x's dtype (NaN elsewhere).
      x: float32 or float64 tensor.
      name: the op name.
    """
    return _out("Polygamma", name, a=a, x=x)


def pow(x, y, name=None):  # noqa: A001 - TF's name
    """Computes x ** y element-wise (`Pow`).

    Raises:
      TypeError: for mismatched dtypes.
    """
    with name_scope(name, "Pow", [x]) as scope:
        return _out("Pow", scope, x=x, y=y)


def add(x, y, name=None):
    """Returns x + y element-wise (`AddV2`; `Add` for strings, which concatenates).

    Raises:
      TypeError: if `y` cannot take `x`'s dtype, or the dtype is not allowed.
    """
    with name_scope(name, "Add", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        return _out("Add" if x.dtype.base_dtype == dtypes.string else "AddV2", scope, x=x, y=y)


# Integer types that `truediv` casts before dividing (TF's table); other allowed
# types divide as they are.
_TRUEDIV_CASTS = {
    dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32, dtypes.uint32: dtypes.float64,
    dtypes.int32: dtypes.float64, dtypes.uint64: dtypes.float64, dtypes.int64: dtypes.float64,
    dtypes.bfloat16: None, dtypes.float16: None, dtypes.float32: None, dtypes.float64: None,
    dtypes.complex64: None, dtypes.complex128: None,
}


def _cast(x, dtype):
    if x.dtype.base_dtype == dtype:
        return x
    return _out("Cast", "Cast", x=x, DstT=dtype)


def _same_dtype(x, y):
    if x.dtype.base_dtype != y.dtype.base_dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype.base_dtype!r} != "
                        f"{y.dtype.base_dtype!r}.")


def _truediv_operands(x, y, where):
    """x and y checked to share a `_TRUEDIV_CASTS` dtype and cast as that table says.

    Raises:
      TypeError: naming `where`, if the dtypes differ or are not in the table.
    """
    _same_dtype(x, y)
    base = x.dtype.base_dtype
    if base not in _TRUEDIV_CASTS:
        allowed = ", ".join(repr(t) for t in _TRUEDIV_CASTS)
        raise TypeError(f"Invalid dtype {base!r} in {where}. Expected one of {{{allowed}}}.")
    target = _TRUEDIV_CASTS[base]
    if target is not None:
        x, y = _cast(x, target), _cast(y, target)
    return x, y


def truediv(x, y, name=None):
    """Divides x by y in floating point (Python 3 `/`), casting integers first.

    int8/16 and uint8/16 become float32, int32/64 and uint32/64 float64.

    Raises:
      TypeError: if the dtypes differ or are not numeric.
    """
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        x, y = _truediv_operands(x, y, "__truediv__")
        return _out("RealDiv", scope, x=x, y=y)


def divide(x, y, name=None):
    """Computes x / y as Python 3 does (`truediv`); the result is named "truediv"."""
    if name is None and not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = convert_to_tensor(x, dtype=y.dtype.base_dtype)
    return truediv(x, y, name=name)


def div(x, y, name=None):
    """TF1 division: real division for floats and complex, floor division for integers.

    Raises:
      TypeError: if the dtypes differ.
    """
    with name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        _same_dtype(x, y)
        if x.dtype.is_floating or x.dtype.is_complex:
            return _out("RealDiv", scope, x=x, y=y)
        return _out("FloorDiv", scope, x=x, y=y)


def floordiv(x, y, name=None):
    """Divides and rounds toward negative infinity (`FloorDiv`), as Python's `//`."""
    with name_scope(name, "floordiv", [x, y]) as scope:
        return _out("FloorDiv", scope, x=x, y=y)


def div_no_nan(x, y, name=None):
    """x / y, but 0 wherever y is 0 (`DivNoNan`); integers are cast as `truediv` does.

    Raises:
      TypeError: if the dtypes differ or are not numeric.
    """
    with name_scope(name, "div_no_nan", [x, y]) as scope:
        if not isinstance(x, Tensor) and isinstance(y, Tensor):
            y = convert_to_tensor(y, name="y")
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
        else:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        x, y = _truediv_operands(x, y, "tf.math.divide_no_nan")
        return _out("DivNoNan", scope, x=x, y=y)


def multiply_no_nan(x, y, name=None):
    """x * y, but 0 wherever y is 0 even if x is inf or NaN (`MulNoNan`).

    Raises:
      TypeError: if the dtypes differ.
    """
    with name_scope(name, "multiply_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got "
                            f"{x.dtype.base_dtype!r} != {y.dtype.base_dtype!r}")
        return _out("MulNoNan", scope, x=x, y=y)


def reciprocal_no_nan(x, name=None):
    """1 / x, but 0 where x is 0 (`DivNoNan` of a constant one)."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = constant(1, dtype=x.dtype.base_dtype, name="one")
        return _out("DivNoNan", scope, x=one, y=x)


def _scoped_binary(op_type, default_name):
    def fn(x, y, name=None):
        with name_scope(name, default_name, [x]):
            return _out(op_type, None, x=x, y=y)
    fn.__name__ = fn.__qualname__ = default_name
    return fn


xlog1py = _scoped_binary("Xlog1py", "xlog1py")
xlog1py.__doc__ = "x * log1p(y), and 0 where x is 0 (`Xlog1py`)."
xdivy = _scoped_binary("Xdivy", "xdivy")
xdivy.__doc__ = "x / y, and 0 where x is 0 (`Xdivy`)."


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y for bool tensors, built as (x OR y) AND NOT (x AND y) as TF does."""
    return _out("LogicalAnd", name,
                x=_out("LogicalOr", None, x=x, y=y),
                y=_out("LogicalNot", None, x=_out("LogicalAnd", None, x=x, y=y)))


def scalar_mul(scalar, x, name=None):
    """Multiplies a Tensor or IndexedSlices `x` by a 0-D `scalar` (converted to x's dtype).

    Raises:
      ValueError: if `scalar` is not 0-D.
    """
    base = dtypes.as_dtype(x.dtype).base_dtype
    scalar = convert_to_tensor(scalar, dtype=base, name="scalar")
    shape = scalar.get_shape()
    if shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {shape}.")
    if not isinstance(x, Tensor) and hasattr(x, "indices") and hasattr(x, "values"):
        return type(x)(_out("Mul", name, x=scalar, y=x.values), x.indices, x.dense_shape)
    return _out("Mul", name, x=scalar, y=x)


# -- sums of many tensors -----------------------------------------------------------------
def _is_indexed_slices(v):
    return not isinstance(v, Tensor) and hasattr(v, "indices") and hasattr(v, "values")


def add_n(inputs, name=None):
    """Adds a list of tensors of equal shape and dtype (`AddN`).

    A single input is returned as is (through `identity` when `name` is given);
    IndexedSlices are densified.

    Raises:
      ValueError: for an empty or non-list `inputs`, or tensors of different shapes.
      TypeError: for tensors of different dtypes.
    """
    message = ("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same "
               "dtype and shape.")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(message)
    converted = []
    for v in inputs:
        if _is_indexed_slices(v):
            v = convert_to_tensor(v)
        elif not isinstance(v, Tensor):
            v = convert_to_tensor(v)
        converted.append(v)
    if len(converted) == 1:
        if name:
            return identity(converted[0], name=name)
        return converted[0]
    return _out("AddN", name, inputs=converted)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """Adds a list of tensors (TF 2 builds this as `AddN`).

    Args:
      inputs: a list of Tensors of the same shape and dtype.
      shape: the expected shape of the inputs, or None.
      tensor_dtype: the expected dtype of the inputs, or None.
      name: the op name.

    Raises:
      ValueError: for an empty list, non-tensors, mixed dtypes or incompatible shapes.
      TypeError: if `tensor_dtype` is not the inputs' dtype.
    """
    def _input_error():
        return ValueError("inputs must be a list of at least one Tensor with the same dtype "
                          "and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise _input_error()
    inputs = [convert_to_tensor(v) if not _is_indexed_slices(v) else v for v in inputs]
    if not builtins.all(isinstance(v, Tensor) for v in inputs):
        raise _input_error()
    if not builtins.all(v.dtype == inputs[0].dtype for v in inputs):
        raise _input_error()
    merged = as_shape(shape) if shape is not None else unknown_shape()
    for v in inputs:
        merged = merged.merge_with(v.get_shape())
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != inputs[0].dtype:
        raise TypeError(f"The `tensor_dtype` argument is {tensor_dtype}, but `input` is of "
                        f"type {inputs[0].dtype}. These must be equal. Try casting the input "
                        "to the desired type.")
    if len(inputs) == 1:
        if name is None:
            return inputs[0]
        return identity(inputs[0], name=name)
    return add_n(inputs, name=name)


# -- matrix products ----------------------------------------------------------------------
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False,
           grad_b=False, name=None):
    """Matrix product `a @ b` (`MatMul` for matrices, `BatchMatMulV2` when either input
    has rank > 2 or unknown rank; `BatchMatMulV3` when `output_type` differs).

    Args:
      a, b: Tensors of rank >= 2 and the same dtype.
      transpose_a, transpose_b: transpose the input before multiplying.
      adjoint_a, adjoint_b: conjugate-transpose the input before multiplying.
      a_is_sparse, b_is_sparse: hints; on float32/bfloat16 matrices they make the product a
        SparseMatMul, as in TensorFlow (computed densely either way).
      output_type: the result dtype for mixed-type products, or None.
      grad_a, grad_b: recorded attrs marking gradient products.
      name: the op name.

    Raises:
      ValueError: if both transpose and adjoint are set for one input, or the
        inner dimensions differ.
      TypeError: if the dtypes differ.
    """
    with name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError(f"Only one of `transpose_a` and `adjoint_a` can be True. Received "
                             f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}.")
        if transpose_b and adjoint_b:
            raise ValueError(f"Only one of `transpose_b` and `adjoint_b` can be True. Received "
                             f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}.")
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype_hint=a.dtype.base_dtype, name="b")
        ra, rb = a.shape.rank, b.shape.rank
        batched = (ra is None or ra > 2 or rb is None or rb > 2) and not (
            a_is_sparse or b_is_sparse)
        v3 = bool(output_type) and (output_type != a.dtype.base_dtype or
                                    output_type != b.dtype.base_dtype)
        if batched or v3:
            if transpose_a:
                a, adjoint_a = conj(a), True
            if transpose_b:
                b, adjoint_b = conj(b), True
            if v3:
                return _out("BatchMatMulV3", scope, x=a, y=b, adj_x=adjoint_a, adj_y=adjoint_b,
                            Tout=output_type, grad_x=grad_a, grad_y=grad_b)
            return _out("BatchMatMulV2", scope, x=a, y=b, adj_x=adjoint_a, adj_y=adjoint_b,
                        grad_x=grad_a, grad_y=grad_b)
        if adjoint_a:
            a, transpose_a = conj(a), True
        if adjoint_b:
            b, transpose_b = conj(b), True
        if _use_sparse_matmul(a.dtype, b.dtype, a_is_sparse or b_is_sparse):
            product = sparse_matmul(a, b, transpose_a, transpose_b, a_is_sparse, b_is_sparse,
                                    name=scope)
            if a.dtype == dtypes.bfloat16 and b.dtype == dtypes.bfloat16:
                product = _cast(product, dtypes.bfloat16)
            return product
        return _out("MatMul", scope, a=a, b=b, transpose_a=transpose_a,
                    transpose_b=transpose_b, grad_a=grad_a, grad_b=grad_b)


def _use_sparse_matmul(a_dtype, b_dtype, hinted):
    # TensorFlow takes SparseMatMul for a sparsity hint on float32/bfloat16 inputs, and
    # for bfloat16 mixed with another type (but int8/uint8)
    kinds = (dtypes.bfloat16, dtypes.float32)
    if hinted and a_dtype in kinds and b_dtype in kinds:
        return True
    small_ints = (dtypes.int8, dtypes.uint8)
    return a_dtype != b_dtype and ((a_dtype == dtypes.bfloat16 and b_dtype not in small_ints)
                                   or (b_dtype == dtypes.bfloat16 and a_dtype not in small_ints))


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False,
                  b_is_sparse=False, name=None):
    """`a @ b` as one SparseMatMul op: float32 or bfloat16 matrices, a float32 product;
    `a_is_sparse` / `b_is_sparse` are hints that mostly-zero inputs are faster."""
    return _out("SparseMatMul", name, a=a, b=b, transpose_a=transpose_a,
                transpose_b=transpose_b, a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)


_QrResult = collections.namedtuple("Qr", ["q", "r"])


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """QR decomposition of (a batch of) matrices: input = q @ r (`Qr`).

    Args:
      input: a float or complex tensor of rank >= 2.
      full_matrices: return square q and full r instead of the reduced forms.
      name: the op name.

    Returns:
      a namedtuple (q, r).
    """
    op = apply_op("Qr", input=input, full_matrices=full_matrices, name=name)
    return _QrResult(*op.outputs)
