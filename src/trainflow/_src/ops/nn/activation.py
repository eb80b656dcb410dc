"""Activation functions of `tf.nn`: Relu, Relu6, Elu, Selu, LeakyRelu, Softplus and
Softsign with their Grad ops, and the composites crelu and the sigmoid/tanh aliases.

Each op type is registered here with its shape function, kernel and gradient; the
gradients of the Grad ops are registered too, so second derivatives work.
"""
from trainflow._src.ops.array import cast, create, gather, join
from trainflow._src.ops.math import arith
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.nn import activation_kernels as K
from trainflow._src.ops.nn.shape_util import merged_shape_fn

__all__ = ["crelu", "elu", "leaky_relu", "relu", "relu6", "selu", "silu", "softplus",
           "softsign", "swish"]

_RELU_TYPES = ("{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
               "uint32, uint64, qint8}")
_RELU6_TYPES = ("{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
                "uint32, uint64}")
_FLOAT_TYPES = "{half, bfloat16, float, double}"


def _register_unary(op_type, types, kernel, extra_attrs=()):
    register_op(op_type, inputs=["features: T"], outputs=["activations: T"],
                attrs=[f"T: {types}", *extra_attrs], shape_fn=unchanged_shape, kernel=kernel)


def _register_grad(op_type, second_input, types, kernel, extra_attrs=()):
    register_op(op_type, inputs=["gradients: T", f"{second_input}: T"],
                outputs=["backprops: T"], attrs=[f"T: {types}", *extra_attrs],
                shape_fn=merged_shape_fn, kernel=kernel)


_register_unary("Relu", _RELU_TYPES, K.relu)
_register_grad("ReluGrad", "features", _RELU6_TYPES, K.relu_grad)
_register_unary("Relu6", _RELU6_TYPES, K.relu6)
_register_grad("Relu6Grad", "features", _RELU6_TYPES, K.relu6_grad)
_register_unary("Elu", _FLOAT_TYPES, K.elu)
_register_grad("EluGrad", "outputs", _FLOAT_TYPES, K.elu_grad)
_register_unary("Selu", _FLOAT_TYPES, K.selu)
_register_grad("SeluGrad", "outputs", _FLOAT_TYPES, K.selu_grad)
_LEAKY_ATTRS = ("alpha: float = 0.2",)
_register_unary("LeakyRelu", _FLOAT_TYPES + " = DT_FLOAT", K.leaky_relu, _LEAKY_ATTRS)
_register_grad("LeakyReluGrad", "features", _FLOAT_TYPES + " = DT_FLOAT", K.leaky_relu_grad,
               _LEAKY_ATTRS)
_register_unary("Softplus", _FLOAT_TYPES, K.softplus)
_register_grad("SoftplusGrad", "features", _FLOAT_TYPES, K.softplus_grad)
_register_unary("Softsign", _FLOAT_TYPES, K.softsign)
_register_grad("SoftsignGrad", "features", _FLOAT_TYPES, K.softsign_grad)


def _out(op_type, name=None, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


# -- gradients ------------------------------------------------------------------------------
def _register_piecewise_linear_grads(op_type):
    """Relu and Relu6: the gradient is `<op>Grad` of the output, and that op's own gradient
    applies the same mask again (zero with respect to the features)."""
    grad_type = op_type + "Grad"

    def first(op, grad):
        return _out(grad_type, gradients=grad, features=op.outputs[0])

    def second(op, grad):
        x = op.inputs[1]
        return _out(grad_type, gradients=grad, features=x), create.zeros_like(x)

    RegisterGradient(op_type)(first)
    RegisterGradient(grad_type)(second)


_register_piecewise_linear_grads("Relu")
_register_piecewise_linear_grads("Relu6")


@RegisterGradient("Elu")
def _elu_grad(op, grad):
    return _out("EluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("Selu")
def _selu_grad(op, grad):
    return _out("SeluGrad", gradients=grad, outputs=op.outputs[0])


def _negative_part_grad(op, grad, grad_op_type):
    # d(EluGrad|SeluGrad)/d(outputs) = incoming dy where outputs < 0 (the derivative of
    # "outputs + const" is 1 there); the linear branch does not depend on outputs.
    dy, y = op.inputs
    d_dy = _out(grad_op_type, gradients=grad, outputs=y)
    zero = create.zeros_like(y)
    d_y = gather.where(arith.less(y, zero), arith.multiply(grad, dy), zero)
    return d_dy, d_y


@RegisterGradient("EluGrad")
def _elu_grad_grad(op, grad):
    return _negative_part_grad(op, grad, "EluGrad")


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op, grad):
    return _negative_part_grad(op, grad, "SeluGrad")


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return _out("LeakyReluGrad", gradients=grad, features=op.inputs[0],
                alpha=op._attrs["alpha"])


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op, grad):
    x = op.inputs[1]
    return (_out("LeakyReluGrad", gradients=grad, features=x, alpha=op._attrs["alpha"]),
            create.zeros_like(x))


@RegisterGradient("Softplus")
def _softplus_grad(op, grad):
    return _out("SoftplusGrad", gradients=grad, features=op.inputs[0])


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    # SoftplusGrad(dy, x) = dy * sigmoid(x); sigmoid'(x) = 1 / (exp(-x) + 2 + exp(x)).
    dy, x = op.inputs
    d_dy = _out("SoftplusGrad", gradients=grad, features=x)
    two = convert_to_tensor(2, dtype=x.dtype.base_dtype)
    denom = arith.add(arith.add(arith.exp(arith.negative(x)), two), arith.exp(x))
    d_x = arith.truediv(arith.multiply(grad, dy), denom)
    return d_dy, d_x


@RegisterGradient("Softsign")
def _softsign_grad(op, grad):
    return _out("SoftsignGrad", gradients=grad, features=op.inputs[0])


@RegisterGradient("SoftsignGrad")
def _softsign_grad_grad(op, grad):
    # SoftsignGrad(dy, x) = dy / (1 + |x|)^2; d/dx = -2 dy sign(x) / (1 + |x|)^3.
    dy, x = op.inputs
    d_dy = _out("SoftsignGrad", gradients=grad, features=x)
    one = convert_to_tensor(1, dtype=x.dtype.base_dtype)
    minus_two = convert_to_tensor(-2, dtype=x.dtype.base_dtype)
    base = arith.add(one, arith.abs(x))
    num = arith.multiply(arith.multiply(minus_two, arith.multiply(grad, dy)),
                            arith.sign(x))
    d_x = arith.truediv(num, arith.multiply(arith.square(base), base))
    return d_dy, d_x


# -- public functions -----------------------------------------------------------------------
def relu(features, name=None):
    """Rectified linear unit: max(features, 0) (`tf.nn.relu`, op `Relu`).

    Args:
      features: a real Tensor.
      name: the op name (default "Relu").

    Returns:
      a Tensor like `features`.
    """
    return _out("Relu", features=features, name=name)


def relu6(features, name=None):
    """min(max(features, 0), 6) (`tf.nn.relu6`, op `Relu6`)."""
    with name_scope(name, "Relu6", [features]) as name:
        features = convert_to_tensor(features, name="features")
        return _out("Relu6", features=features, name=name)


def elu(features, name=None):
    """Exponential linear unit: x if x > 0 else exp(x) - 1 (`tf.nn.elu`, op `Elu`)."""
    return _out("Elu", features=features, name=name)


def selu(features, name=None):
    """Scaled exponential linear unit (`tf.nn.selu`, op `Selu`)."""
    return _out("Selu", features=features, name=name)


def leaky_relu(features, alpha=0.2, name=None):
    """x if x > 0 else alpha * x (`tf.nn.leaky_relu`, op `LeakyRelu`).

    Integer features are cast to float32 first, as TensorFlow does.

    Args:
      features: a Tensor.
      alpha: the slope for negative inputs (a Python number).
      name: the op name scope (default "LeakyRelu").
    """
    with name_scope(name, "LeakyRelu", [features, alpha]) as name:
        features = convert_to_tensor(features, name="features")
        if features.dtype.base_dtype.is_integer:
            features = cast.cast(features, dtypes.float32)
        return _out("LeakyRelu", features=features, alpha=float(alpha), name=name)


def crelu(features, name=None, axis=-1):
    """Concatenated ReLU: relu(concat([x, -x], axis)) (`tf.nn.crelu`).

    Returns:
      a Tensor whose `axis` dimension is twice that of `features`.
    """
    with name_scope(name, "CRelu", [features]) as name:
        features = convert_to_tensor(features, name="features")
        c = join.concat([features, arith.negative(features)], axis, name=name)
        return relu(c)


def softplus(features, name=None):
    """log(exp(features) + 1) (`tf.nn.softplus`, op `Softplus`)."""
    return _out("Softplus", features=features, name=name)


def softsign(features, name=None):
    """features / (abs(features) + 1) (`tf.nn.softsign`, op `Softsign`)."""
    return _out("Softsign", features=features, name=name)


def swish(features, beta=1.0):
    """x * sigmoid(beta * x), also called SiLU (`tf.nn.swish`).

    Args:
      features: a floating Tensor.
      beta: the slope inside the sigmoid (a number or scalar Tensor).
    """
    features = convert_to_tensor(features, name="features")
    beta = convert_to_tensor(beta, dtype=features.dtype.base_dtype, name="beta")
    gate = arith.sigmoid(arith.multiply(beta, features, name="mul"))
    return arith.multiply(features, gate, name="mul")


silu = swish  # TF exports swish under both names.
