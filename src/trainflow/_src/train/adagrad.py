"""`tf.train.AdagradOptimizer`."""
from trainflow._src.ops.state import training_ops
from trainflow._src.train.optimizer import Optimizer, check_positive_initial_value


class AdagradOptimizer(Optimizer):
    """Adagrad: accum += grad^2; var -= learning_rate * grad / sqrt(accum). One slot per
    variable, `var/Adagrad` (slot name "accumulator").

    Args:
      learning_rate: a float, Tensor or callable returning one.
      initial_accumulator_value: the accumulators' starting value; must be positive.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "Adagrad").

    Raises:
      ValueError: if `initial_accumulator_value` is not positive.
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        check_positive_initial_value(initial_accumulator_value, "initial_accumulator_value")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._initial_accumulator_value, "accumulator")

    def _prepare(self):
        self._learning_rate_tensor = self._hyper_tensor(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.apply_adagrad(
            var._ref(), self.get_slot(var, "accumulator")._ref(),
            self._cast_to(self._learning_rate_tensor, var), grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_adagrad(
            var._ref(), self.get_slot(var, "accumulator")._ref(),
            self._cast_to(self._learning_rate_tensor, var), grad.values, grad.indices,
            use_locking=self._use_locking)
