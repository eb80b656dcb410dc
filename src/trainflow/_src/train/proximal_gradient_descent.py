"""`tf.train.ProximalGradientDescentOptimizer`."""
from trainflow._src.ops.state import training_ops
from trainflow._src.train.proximal_base import ProximalOptimizerBase


class ProximalGradientDescentOptimizer(ProximalOptimizerBase):
    """Gradient descent followed by the l1/l2 proximal map (FOBOS). No slots.

    The hyperparameters are not cast: as in TF, a float64 variable needs float64
    hyperparameter tensors (Python floats become float32 and raise TypeError).

    Args:
      learning_rate: a float or Tensor.
      l1_regularization_strength, l2_regularization_strength: floats or Tensors.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "ProximalGradientDescent").
    """

    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_gradient_descent(
            var._ref(), *self._hypers(), grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_proximal_gradient_descent(
            var._ref(), *self._hypers(), grad.values, grad.indices,
            use_locking=self._use_locking)
