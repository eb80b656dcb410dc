"""`tf.train.ProximalAdagradOptimizer`."""
from trainflow._src.ops.state import training_ops
from trainflow._src.train.optimizer import check_positive_initial_value
from trainflow._src.train.proximal_base import ProximalOptimizerBase


class ProximalAdagradOptimizer(ProximalOptimizerBase):
    """Adagrad's per-element rate followed by the l1/l2 proximal map. One slot,
    "accumulator" (`var/ProximalAdagrad`).

    The hyperparameters are not cast: as in TF, a float64 variable needs float64
    hyperparameter tensors.

    Args:
      learning_rate: a float or Tensor.
      initial_accumulator_value: the accumulators' starting value; must be positive.
      l1_regularization_strength, l2_regularization_strength: floats or Tensors.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "ProximalAdagrad").

    Raises:
      ValueError: if `initial_accumulator_value` is not positive.
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalAdagrad"):
        check_positive_initial_value(initial_accumulator_value, "initial_accumulator_value")
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._filled_slot(v, self._initial_accumulator_value, "accumulator")

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_adagrad(
            var._ref(), self.get_slot(var, "accumulator")._ref(), *self._hypers(), grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_proximal_adagrad(
            var._ref(), self.get_slot(var, "accumulator")._ref(), *self._hypers(),
            grad.values, grad.indices, use_locking=self._use_locking)
