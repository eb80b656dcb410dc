"""`tf.lbeta` / `tf.math.lbeta`: log|Beta(x)| over the last dimension, built as
TensorFlow builds it from Lgamma and Sum (so its gradient is theirs)."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math import arith, reductions

__all__ = ["lbeta"]


def lbeta(x, name=None):
    """sum(lgamma(x), -1) - lgamma(sum(x, -1)): the log of the multivariate Beta function
    of each vector in the last dimension of `x` (an empty vector gives 0)."""
    with name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = reductions.reduce_sum(arith.lgamma(x), axis=[-1])
        sum_x = reductions.reduce_sum(x, axis=[-1])
        log_gamma_sum_x = arith.lgamma(sum_x)
        return arith.subtract(log_prod_gamma_x, log_gamma_sum_x)
