"""The update rules of the optimizers, once each, as pure array functions.

A rule takes the current values of the variable and its slots, then the op's other
inputs in TensorFlow's input order (hyperparameters as 0-d arrays or NumPy scalars of
the variable's dtype, the gradient as an array shaped like the slice being updated),
and returns the new values of the variable and its slots, in that order. Rules never
write into their arguments. They are the reference: each has an in-place form of the
same name (ops/state/optimizer_inplace.py) that the Apply kernels run for float16/32/64
and that gives the same bits; for other dtypes the kernels (ops/state/apply_kernels.py)
run the rule itself over cache-sized blocks of the buffers, or over the gathered rows of
a sparse update, and write the results back in place.

The arithmetic follows TensorFlow's CPU kernels (training_ops.cc) term by term and in
the variable's dtype, so results agree with TF's to float32 round-off.
"""
import numpy as np


def _rsqrt(x):
    return 1 / np.sqrt(x)


def gradient_descent(var, alpha, delta):
    """ApplyGradientDescent: var - delta * alpha."""
    return (var - delta * alpha,)


def momentum(var, accum, lr, grad, momentum, use_nesterov=False):
    """ApplyMomentum: accum = accum * momentum + grad, then a (Nesterov) step."""
    accum = accum * momentum + grad
    if use_nesterov:
        var = var - (grad * lr + accum * momentum * lr)
    else:
        var = var - accum * lr
    return var, accum


def adagrad(var, accum, lr, grad, update_slots=True):
    """ApplyAdagrad: accum += grad^2; var -= lr * grad / sqrt(accum)."""
    if update_slots:
        accum = accum + grad * grad
    return var - grad * lr * _rsqrt(accum), accum


def adagrad_v2(var, accum, lr, epsilon, grad, update_slots=True):
    """ApplyAdagradV2: Adagrad with epsilon added to sqrt(accum)."""
    if update_slots:
        accum = accum + grad * grad
    return var - grad * lr / (np.sqrt(accum) + epsilon), accum


def adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
               global_step):
    """ApplyAdagradDA: dual averaging with closed-form l1/l2 at step `global_step`."""
    g_acc = gradient_accumulator + grad
    gg_acc = gradient_squared_accumulator + grad * grad
    step = np.asarray(global_step).astype(var.dtype)[()]
    denom = l2 * step * lr + np.sqrt(gg_acc)
    if l1 > 0:
        var = -lr * np.sign(g_acc) * np.maximum(np.abs(g_acc) - step * l1, 0) / denom
    else:
        var = -g_acc * lr / denom
    return var.astype(g_acc.dtype, copy=False), g_acc, gg_acc


def adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    """ApplyAdadelta: update = sqrt(accum_update + eps) / sqrt(accum + eps) * grad."""
    accum = accum * rho + grad * grad * (1 - rho)
    update = np.sqrt(accum_update + epsilon) * _rsqrt(accum + epsilon) * grad
    var = var - update * lr
    accum_update = accum_update * rho + update * update * (1 - rho)
    return var, accum, accum_update


def _ftrl(var, accum, linear, grad, shrunk_grad, lr, l1, l2, lr_power, multiply_linear_by_lr):
    new_accum = accum + grad * grad
    if lr_power == -0.5:
        new_pow, old_pow = np.sqrt(new_accum), np.sqrt(accum)
    else:
        # np.power, not `**`: the operator swaps in sqrt/square for some exponents.
        new_pow, old_pow = np.power(new_accum, -lr_power), np.power(accum, -lr_power)
    if multiply_linear_by_lr:
        linear = linear + shrunk_grad * lr - (new_pow - old_pow) * var
        l1_t = l1 * lr
        y = new_pow + 2 * l2 * lr
    else:
        linear = linear + shrunk_grad - (new_pow - old_pow) / lr * var
        l1_t = l1
        y = new_pow / lr + 2 * l2
    x = l1_t * np.sign(linear) - linear
    var = np.where(np.abs(linear) > l1_t, x / y, 0).astype(var.dtype, copy=False)
    return var, new_accum, linear


def ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, multiply_linear_by_lr=False):
    """ApplyFtrl: follow-the-regularized-leader (McMahan et al.) with l1/l2."""
    return _ftrl(var, accum, linear, grad, grad, lr, l1, l2, lr_power, multiply_linear_by_lr)


def ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power,
            multiply_linear_by_lr=False):
    """ApplyFtrlV2: FTRL whose linear term sees grad + 2 * l2_shrinkage * var."""
    shrunk = grad + 2 * l2_shrinkage * var
    return _ftrl(var, accum, linear, grad, shrunk, lr, l1, l2, lr_power, multiply_linear_by_lr)


def _proximal(prox_var, lr, l1, l2):
    if l1 > 0:
        # TF's sign(p) * max(|p| - t, 0) with t = lr * l1, written as p - clip(p, -t, t):
        # the same single rounding of |p| - t, in two array operations instead of five.
        t = lr * l1
        prox_var = prox_var - np.clip(prox_var, -t, t)
    return prox_var / (1 + lr * l2)


def proximal_gradient_descent(var, alpha, l1, l2, delta):
    """ApplyProximalGradientDescent: a gradient step, then the l1/l2 proximal map."""
    return (_proximal(var - delta * alpha, alpha, l1, l2).astype(var.dtype, copy=False),)


def proximal_adagrad(var, accum, lr, l1, l2, grad):
    """ApplyProximalAdagrad: Adagrad's per-element rate, then the l1/l2 proximal map."""
    accum = accum + grad * grad
    rate = lr * _rsqrt(accum)
    return _proximal(var - grad * rate, rate, l1, l2).astype(var.dtype, copy=False), accum


def rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad):
    """ApplyRMSProp: ms tracks grad^2; mom = mom * momentum + lr * grad / sqrt(ms + eps)."""
    ms = ms + (grad * grad - ms) * (1 - rho)
    mom = mom * momentum + grad * lr / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


def centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    """ApplyCenteredRMSProp: RMSProp normalized by the variance estimate ms - mg^2."""
    ms = ms + (grad * grad - ms) * (1 - rho)
    mg = mg + (grad - mg) * (1 - rho)
    mom = mom * momentum + grad * lr / np.sqrt(ms - mg * mg + epsilon)
    return var - mom, mg, ms, mom


def adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
         use_nesterov=False):
    """ApplyAdam: bias-corrected step size with TF's epsilon-hat formula."""
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m = m + (grad - m) * (1 - beta1)
    v = v + (grad * grad - v) * (1 - beta2)
    if use_nesterov:
        var = var - (grad * (1 - beta1) + beta1 * m) * alpha / (np.sqrt(v) + epsilon)
    else:
        var = var - m * alpha / (np.sqrt(v) + epsilon)
    return var, m, v


def ada_max(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    """ApplyAdaMax: Adam with the infinity norm, v = max(beta2 * v, |grad|)."""
    m = m + (grad - m) * (1 - beta1)
    v = np.maximum(beta2 * v, np.abs(grad))
    return var - lr / (1 - beta1_power) * (m / (v + epsilon)), m, v


def _sign_agreement(grad, m, beta, sign_decay):
    m = m * beta + grad * (1 - beta)
    return m, sign_decay * (np.sign(grad) * np.sign(m))


def add_sign(var, m, lr, alpha, sign_decay, beta, grad):
    """ApplyAddSign (Bello et al. 2017): the step grows by sign_decay where grad and its
    moving average m agree in sign and shrinks where they disagree."""
    m, agree = _sign_agreement(grad, m, beta, sign_decay)
    return var - lr * (alpha + agree) * grad, m


def power_sign(var, m, lr, logbase, sign_decay, beta, grad):
    """ApplyPowerSign: like AddSign with a multiplicative factor exp(logbase * agreement)."""
    m, agree = _sign_agreement(grad, m, beta, sign_decay)
    return var - lr * np.exp(logbase * agree) * grad, m
