"""`tf.train.AdagradDAOptimizer` (Adagrad dual averaging, for sparse linear models)."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.state import training_ops
from trainflow._src.train.optimizer import Optimizer, check_positive_initial_value


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging. Slots "gradient_accumulator" (`var/AdagradDA`) and
    "gradient_squared_accumulator" (`var/AdagradDA_1`); each update uses the step
    `global_step + 1`.

    Args:
      learning_rate: a float or Tensor.
      global_step: the Tensor or Variable holding the training step.
      initial_gradient_squared_accumulator_value: must be positive.
      l1_regularization_strength, l2_regularization_strength: floats >= 0.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "AdagradDA").

    Raises:
      ValueError: if `initial_gradient_squared_accumulator_value` is not positive.
    """

    def __init__(self, learning_rate, global_step,
                 initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="AdagradDA"):
        check_positive_initial_value(initial_gradient_squared_accumulator_value,
                                     "initial_gradient_squared_accumulator_value")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = \
            initial_gradient_squared_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._filled_slot(v, 0.0, "gradient_accumulator")
            self._filled_slot(v, self._initial_gradient_squared_accumulator_value,
                              "gradient_squared_accumulator")

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        with get_default_graph().colocate_with(self._learning_rate_tensor.op):
            self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _args(self, var):
        with get_default_graph().device(var.device):
            step = array_ops.identity(self._global_step_on_worker)
        hypers = [self._cast_to(self._learning_rate_tensor, var),
                  self._cast_to(self._l1_regularization_strength, var),
                  self._cast_to(self._l2_regularization_strength, var), step]
        slots = [self.get_slot(var, "gradient_accumulator")._ref(),
                 self.get_slot(var, "gradient_squared_accumulator")._ref()]
        return [var._ref()] + slots, hypers

    def _apply_dense(self, grad, var):
        refs, hypers = self._args(var)
        return training_ops.apply_adagrad_da(*refs, grad, *hypers,
                                             use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        refs, hypers = self._args(var)
        return training_ops.sparse_apply_adagrad_da(*refs, grad.values, grad.indices, *hypers,
                                                    use_locking=self._use_locking)
