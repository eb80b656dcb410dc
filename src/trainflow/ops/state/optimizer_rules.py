"""The update rules of the optimizers, once each: small array functions that update the
variable and slot buffers in place, with the arithmetic in the variable's dtype and in
the order TensorFlow's kernels use (so float32 results agree to the last bit where
TF's do not fuse operations).

Hyperparameters arrive as 0-d arrays (or NumPy scalars) of the variable's dtype.
"""
import numpy as np


def _scalar(x, dtype):
    return np.asarray(x, dtype=dtype)[()]


def gradient_descent(var, lr, grad):
    """var -= grad * lr."""
    var -= grad * _scalar(lr, var.dtype)


def adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
         use_nesterov=False):
    """TF's ApplyAdam: bias-corrected step size with the epsilon-hat formula."""
    t = var.dtype
    one = t.type(1)
    beta1, beta2 = _scalar(beta1, t), _scalar(beta2, t)
    alpha = _scalar(lr, t) * np.sqrt(one - _scalar(beta2_power, t)) / \
        (one - _scalar(beta1_power, t))
    m += (grad - m) * (one - beta1)
    v += (np.square(grad) - v) * (one - beta2)
    eps = _scalar(epsilon, t)
    if use_nesterov:
        var -= ((grad * (one - beta1) + beta1 * m) * alpha) / (np.sqrt(v) + eps)
    else:
        var -= (m * alpha) / (np.sqrt(v) + eps)
