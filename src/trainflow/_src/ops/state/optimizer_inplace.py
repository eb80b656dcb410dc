"""The optimizer rules again, as in-place block functions: the fast path of the Apply
kernels for float16/32/64.

Each form takes the arguments of its pure rule (ops/state/optimizer_rules.py): the
variable and slot buffers, then the op's other inputs in TF's order, then the attrs. It
computes the rule's scalar terms once and returns `(block, arrays, n_scratch)` for
`kernels.blocked.run_blocks`: `block(*pieces, *scratch)` updates one block of the buffers
with `out=` ufunc calls, with no allocation. Every form performs the same operations in
the same order and dtype as its pure rule, so the results are bit for bit the same (the
tests hold each form to its rule); the pure rules stay the reference and the path for
other dtypes.
"""
import numpy as np

add, sub, mul, div = np.add, np.subtract, np.multiply, np.divide
sqrt, sign, absolute, maximum = np.sqrt, np.sign, np.absolute, np.maximum


def _c(x):
    # 0-d arrays are the cheapest scalar operands for a ufunc call.
    return np.asarray(x)


def gradient_descent(var, alpha, delta):
    alpha = _c(alpha)

    def block(var, delta, t):
        mul(delta, alpha, out=t)
        sub(var, t, out=var)
    return block, (var, delta), 1


def momentum(var, accum, lr, grad, momentum, use_nesterov=False):
    lr, momentum = _c(lr), _c(momentum)

    def block(var, accum, grad, t, u):
        mul(accum, momentum, out=accum)
        add(accum, grad, out=accum)
        if use_nesterov:
            mul(grad, lr, out=t)
            mul(accum, momentum, out=u)
            mul(u, lr, out=u)
            add(t, u, out=t)
        else:
            mul(accum, lr, out=t)
        sub(var, t, out=var)
    return block, (var, accum, grad), 2


def _accumulate_square(accum, grad, t):
    mul(grad, grad, out=t)
    add(accum, t, out=accum)


def adagrad(var, accum, lr, grad, update_slots=True):
    lr, one = _c(lr), _c(np.ones((), var.dtype))

    def block(var, accum, grad, t, u):
        if update_slots:
            _accumulate_square(accum, grad, t)
        sqrt(accum, out=u)
        div(one, u, out=u)
        mul(grad, lr, out=t)
        mul(t, u, out=t)
        sub(var, t, out=var)
    return block, (var, accum, grad), 2


def adagrad_v2(var, accum, lr, epsilon, grad, update_slots=True):
    lr, epsilon = _c(lr), _c(epsilon)

    def block(var, accum, grad, t, u):
        if update_slots:
            _accumulate_square(accum, grad, t)
        mul(grad, lr, out=t)
        sqrt(accum, out=u)
        add(u, epsilon, out=u)
        div(t, u, out=t)
        sub(var, t, out=var)
    return block, (var, accum, grad), 2


def adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
               global_step):
    step = np.asarray(global_step).astype(var.dtype)[()]
    l2_term = _c(l2 * step * lr)
    use_l1 = l1 > 0
    neg_lr, l1_term, zero = _c(-lr), _c(step * l1), _c(np.zeros((), var.dtype))

    def block(var, g_acc, gg_acc, grad, t, u, w):
        add(g_acc, grad, out=g_acc)
        _accumulate_square(gg_acc, grad, t)
        sqrt(gg_acc, out=t)
        add(l2_term, t, out=t)  # denominator
        if use_l1:
            sign(g_acc, out=u)
            mul(neg_lr, u, out=u)
            absolute(g_acc, out=w)
            sub(w, l1_term, out=w)
            maximum(w, zero, out=w)
            mul(u, w, out=u)
        else:
            np.negative(g_acc, out=u)
            mul(u, lr, out=u)
        div(u, t, out=var)
    return block, (var, gradient_accumulator, gradient_squared_accumulator, grad), 3


def adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    lr, rho, epsilon = _c(lr), _c(rho), _c(epsilon)
    one_minus_rho, one = _c(1 - rho), _c(np.ones((), var.dtype))

    def block(var, accum, accum_update, grad, t, u):
        mul(accum, rho, out=accum)
        mul(grad, grad, out=t)
        mul(t, one_minus_rho, out=t)
        add(accum, t, out=accum)
        add(accum_update, epsilon, out=t)
        sqrt(t, out=t)
        add(accum, epsilon, out=u)
        sqrt(u, out=u)
        div(one, u, out=u)
        mul(t, u, out=t)
        mul(t, grad, out=t)  # the update
        mul(t, lr, out=u)
        sub(var, u, out=var)
        mul(accum_update, rho, out=accum_update)
        mul(t, t, out=t)
        mul(t, one_minus_rho, out=t)
        add(accum_update, t, out=accum_update)
    return block, (var, accum, accum_update, grad), 2


def _ftrl(var, accum, linear, grad, shrinkage, lr, l1, l2, lr_power, multiply_linear_by_lr):
    """The form of `_ftrl`; `shrinkage` is None (Ftrl) or 2 * l2_shrinkage (FtrlV2)."""
    use_sqrt = lr_power == -0.5
    power = _c(-lr_power)
    if multiply_linear_by_lr:
        l1_t, y_term = l1 * lr, _c(2 * l2 * lr)
    else:
        l1_t, y_term = l1, _c(2 * l2)
    lr, l1_t = _c(lr), _c(l1_t)
    shrinkage = None if shrinkage is None else _c(shrinkage)

    def block(var, accum, linear, grad, t, u, w):
        if shrinkage is None:
            shrunk = grad
        else:
            mul(shrinkage, var, out=w)
            add(grad, w, out=w)
            shrunk = w
        mul(grad, grad, out=t)
        if use_sqrt:
            sqrt(accum, out=u)
        else:
            np.power(accum, power, out=u)  # old_pow
        add(accum, t, out=accum)
        if use_sqrt:
            sqrt(accum, out=t)
        else:
            np.power(accum, power, out=t)  # new_pow
        sub(t, u, out=u)
        if multiply_linear_by_lr:
            mul(shrunk, lr, out=w)
            add(linear, w, out=linear)
            mul(u, var, out=u)
            sub(linear, u, out=linear)
            add(t, y_term, out=t)  # y
        else:
            add(linear, shrunk, out=linear)
            div(u, lr, out=u)
            mul(u, var, out=u)
            sub(linear, u, out=linear)
            div(t, lr, out=t)
            add(t, y_term, out=t)  # y
        sign(linear, out=u)
        mul(l1_t, u, out=u)
        sub(u, linear, out=u)
        div(u, t, out=u)  # x / y
        absolute(linear, out=t)
        # The mask borrows w's bytes (free by now): at least one byte per element.
        mask = np.greater(t, l1_t, out=w.view(np.bool_)[:w.size])
        var.fill(0)
        np.copyto(var, u, where=mask)
    return block, (var, accum, linear, grad), 3


def ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, multiply_linear_by_lr=False):
    return _ftrl(var, accum, linear, grad, None, lr, l1, l2, lr_power, multiply_linear_by_lr)


def ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power,
            multiply_linear_by_lr=False):
    return _ftrl(var, accum, linear, grad, 2 * l2_shrinkage, lr, l1, l2, lr_power,
                 multiply_linear_by_lr)


def proximal_gradient_descent(var, alpha, l1, l2, delta):
    use_l1 = l1 > 0
    bound = alpha * l1
    low, high = _c(-bound), _c(bound)
    alpha, scale = _c(alpha), _c(1 + alpha * l2)

    def block(var, delta, t):
        mul(delta, alpha, out=t)
        sub(var, t, out=var)
        if use_l1:
            np.clip(var, low, high, out=t)
            sub(var, t, out=var)
        div(var, scale, out=var)
    return block, (var, delta), 1


def proximal_adagrad(var, accum, lr, l1, l2, grad):
    use_l1 = l1 > 0
    lr, l1, l2 = _c(lr), _c(l1), _c(l2)
    one = _c(np.ones((), var.dtype))

    def block(var, accum, grad, t, u, w):
        _accumulate_square(accum, grad, t)
        sqrt(accum, out=t)
        div(one, t, out=t)
        mul(lr, t, out=t)  # the rate
        mul(grad, t, out=u)
        sub(var, u, out=var)
        if use_l1:
            mul(t, l1, out=u)
            np.negative(u, out=w)
            np.clip(var, w, u, out=w)
            sub(var, w, out=var)
        mul(t, l2, out=t)
        add(one, t, out=t)
        div(var, t, out=var)
    return block, (var, accum, grad), 3


def _moving_square(ms, grad, one_minus_rho, t):
    mul(grad, grad, out=t)
    sub(t, ms, out=t)
    mul(t, one_minus_rho, out=t)
    add(ms, t, out=ms)


def rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad):
    lr, momentum, epsilon, one_minus_rho = _c(lr), _c(momentum), _c(epsilon), _c(1 - rho)

    def block(var, ms, mom, grad, t, u):
        _moving_square(ms, grad, one_minus_rho, t)
        mul(mom, momentum, out=mom)
        mul(grad, lr, out=t)
        add(ms, epsilon, out=u)
        sqrt(u, out=u)
        div(t, u, out=t)
        add(mom, t, out=mom)
        sub(var, mom, out=var)
    return block, (var, ms, mom, grad), 2


def centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    lr, momentum, epsilon, one_minus_rho = _c(lr), _c(momentum), _c(epsilon), _c(1 - rho)

    def block(var, mg, ms, mom, grad, t, u):
        _moving_square(ms, grad, one_minus_rho, t)
        sub(grad, mg, out=t)
        mul(t, one_minus_rho, out=t)
        add(mg, t, out=mg)
        mul(mom, momentum, out=mom)
        mul(grad, lr, out=t)
        mul(mg, mg, out=u)
        sub(ms, u, out=u)
        add(u, epsilon, out=u)
        sqrt(u, out=u)
        div(t, u, out=t)
        add(mom, t, out=mom)
        sub(var, mom, out=var)
    return block, (var, mg, ms, mom, grad), 2


def _moving_mean(m, grad, one_minus_beta, t):
    sub(grad, m, out=t)
    mul(t, one_minus_beta, out=t)
    add(m, t, out=m)


def adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
         use_nesterov=False):
    alpha = _c(lr * np.sqrt(1 - beta2_power) / (1 - beta1_power))
    one_minus_b1, one_minus_b2 = _c(1 - beta1), _c(1 - beta2)
    beta1, epsilon = _c(beta1), _c(epsilon)

    def block(var, m, v, grad, t, u):
        _moving_mean(m, grad, one_minus_b1, t)
        _moving_square(v, grad, one_minus_b2, t)
        if use_nesterov:
            mul(grad, one_minus_b1, out=t)
            mul(beta1, m, out=u)
            add(t, u, out=t)
            mul(t, alpha, out=t)
        else:
            mul(m, alpha, out=t)
        sqrt(v, out=u)
        add(u, epsilon, out=u)
        div(t, u, out=t)
        sub(var, t, out=var)
    return block, (var, m, v, grad), 2


def ada_max(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    one_minus_b1, beta2, epsilon = _c(1 - beta1), _c(beta2), _c(epsilon)
    rate = _c(lr / (1 - beta1_power))

    def block(var, m, v, grad, t):
        _moving_mean(m, grad, one_minus_b1, t)
        mul(beta2, v, out=v)
        absolute(grad, out=t)
        maximum(v, t, out=v)
        add(v, epsilon, out=t)
        div(m, t, out=t)
        mul(rate, t, out=t)
        sub(var, t, out=var)
    return block, (var, m, v, grad), 1


def _sign_agreement(m, grad, beta, one_minus_beta, sign_decay, t, u):
    """m = m * beta + grad * (1 - beta); t = sign_decay * (sign(grad) * sign(m))."""
    mul(m, beta, out=m)
    mul(grad, one_minus_beta, out=t)
    add(m, t, out=m)
    sign(grad, out=t)
    sign(m, out=u)
    mul(t, u, out=t)
    mul(sign_decay, t, out=t)


def add_sign(var, m, lr, alpha, sign_decay, beta, grad):
    lr, alpha, sign_decay = _c(lr), _c(alpha), _c(sign_decay)
    beta, one_minus_beta = _c(beta), _c(1 - beta)

    def block(var, m, grad, t, u):
        _sign_agreement(m, grad, beta, one_minus_beta, sign_decay, t, u)
        add(alpha, t, out=t)
        mul(lr, t, out=t)
        mul(t, grad, out=t)
        sub(var, t, out=var)
    return block, (var, m, grad), 2


def power_sign(var, m, lr, logbase, sign_decay, beta, grad):
    lr, logbase, sign_decay = _c(lr), _c(logbase), _c(sign_decay)
    beta, one_minus_beta = _c(beta), _c(1 - beta)

    def block(var, m, grad, t, u):
        _sign_agreement(m, grad, beta, one_minus_beta, sign_decay, t, u)
        mul(logbase, t, out=t)
        np.exp(t, out=t)
        mul(lr, t, out=t)
        mul(t, grad, out=t)
        sub(var, t, out=var)
    return block, (var, m, grad), 2
