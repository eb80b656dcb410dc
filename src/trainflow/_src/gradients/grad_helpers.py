"""`tf.grad_pass_through` and `tf.recompute_grad`: two `custom_gradient` wrappers. The
first passes the incoming gradient straight to the inputs; the second keeps none of
the function's activations and builds them again when the gradient runs."""
import functools

from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.gradients.custom_gradient import _flatten, custom_gradient
from trainflow._src.gradients.gradients_impl import UnconnectedGradients, gradients
from trainflow._src.ops.array import array_ops


def grad_pass_through(f):
    """`f` whose gradient is the identity: the gradient of each output goes to the
    matching input unchanged (variables `f` reads get None)."""
    @custom_gradient
    def _grad_pass_through_op(*args):
        def grad(*dys, variables=None):
            if variables is not None:
                return dys, [None] * len(variables)
            return dys
        return f(*args), grad
    return functools.wraps(f)(_grad_pass_through_op)


def recompute_grad(f):
    """`f` whose gradient builds `f` again from its inputs (after the output gradients
    are computed) instead of keeping its intermediate values."""
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")

        @custom_gradient
        def inner(*inputs):
            result = f(*inputs)

            def grad(*dresult, variables=None):
                with control_dependencies([d for d in dresult if d is not None]):
                    ids = [array_ops.identity(x) for x in inputs]
                    again = _flatten(f(*ids))
                xs = ids + list(variables or [])
                grads = gradients(again, xs, grad_ys=list(dresult),
                                  unconnected_gradients=UnconnectedGradients.ZERO)
                input_grads = grads[:len(ids)]
                if variables is not None:
                    return input_grads, grads[len(ids):]
                return input_grads
            return result, grad
        return inner(*args)
    return wrapped
