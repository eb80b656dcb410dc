"""Tensor operators: `+ - * / // % ** @`, unary `- abs ~`, `& | ^` and `< <= > >=`.

As in TensorFlow, a binary operator opens a name scope named after the
operator ("add", "mul", "truediv", ...) so `a + b` creates op "add"; the
reflected form (`2.0 * t`) converts the left value to the tensor's dtype.
Comparisons build `Less`/`Greater`... under their default names. `==` and
`!=` stay identity comparisons (TF1 semantics), defined on Tensor itself.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math import arith


def _add(x, y, name=None):
    if not isinstance(y, Tensor):
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
    op_type = "Add" if x.dtype.base_dtype == dtypes.string else "AddV2"
    return arith._out(op_type, name, x=x, y=y)


def _floormod(x, y, name=None):
    return arith._out("FloorMod", name, x=x, y=y)


def _and(x, y, name=None):
    if x.dtype.base_dtype == dtypes.bool:
        return arith.logical_and(x, y, name)
    return arith.bitwise_and(x, y)


def _or(x, y, name=None):
    if x.dtype.base_dtype == dtypes.bool:
        return arith.logical_or(x, y, name)
    return arith.bitwise_or(x, y)


def _xor(x, y, name=None):
    if x.dtype.base_dtype == dtypes.bool:
        return arith.logical_xor(x, y, name)
    return arith.bitwise_xor(x, y)


def _invert(x, name=None):
    if x.dtype.base_dtype == dtypes.bool:
        return arith.logical_not(x, name=name)
    return arith.invert(x, name=name)


def _install_binary(func, op_name):
    """Installs `__<op_name>__` and `__r<op_name>__` calling `func(x, y, name=scope)`."""
    def binary_op_wrapper(x, y):
        with name_scope(None, op_name, [x, y]) as scope:
            try:
                return func(x, y, name=scope)
            except (TypeError, ValueError) as err:
                # A right operand that knows how to combine with a tensor gets its turn;
                # otherwise the original, more useful, error stands.
                reflected = getattr(type(y), f"__r{op_name}__", None)
                if reflected is None:
                    raise
                try:
                    out = reflected(y, x)
                except (TypeError, ValueError):
                    raise err from None
                if out is NotImplemented:
                    raise
                return out

    def r_binary_op_wrapper(y, x):
        with name_scope(None, op_name, [x, y]) as scope:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=scope)

    binary_op_wrapper.__name__ = f"__{op_name}__"
    r_binary_op_wrapper.__name__ = f"__r{op_name}__"
    Tensor._override_operator(f"__{op_name}__", binary_op_wrapper)
    Tensor._override_operator(f"__r{op_name}__", r_binary_op_wrapper)


def _matmul(a, b, name=None):
    return arith.matmul(a, b, name=name)


_install_binary(_add, "add")
_install_binary(arith.subtract, "sub")
_install_binary(arith.multiply, "mul")
_install_binary(arith.truediv, "truediv")
_install_binary(arith.floordiv, "floordiv")
_install_binary(_floormod, "mod")
_install_binary(arith.pow, "pow")
_install_binary(_matmul, "matmul")
_install_binary(_and, "and")
_install_binary(_or, "or")
_install_binary(_xor, "xor")

Tensor._override_operator("__neg__", arith.negative)
Tensor._override_operator("__abs__", arith.abs)
Tensor._override_operator("__invert__", _invert)
Tensor._override_operator("__lt__", arith.less)
Tensor._override_operator("__le__", arith.less_equal)
Tensor._override_operator("__gt__", arith.greater)
Tensor._override_operator("__ge__", arith.greater_equal)
