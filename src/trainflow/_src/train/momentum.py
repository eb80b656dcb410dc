"""`tf.train.MomentumOptimizer`."""
from trainflow._src.ops.state import training_ops
from trainflow._src.train.optimizer import Optimizer


class MomentumOptimizer(Optimizer):
    """Momentum: accum = accum * momentum + grad; var -= learning_rate * accum (or the
    Nesterov form). One slot per variable, `var/Momentum`.

    Args:
      learning_rate, momentum: floats, Tensors or callables returning one.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "Momentum").
      use_nesterov: use Nesterov momentum.
    """

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov
        self._learning_rate_tensor = self._momentum_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = self._hyper_tensor(self._learning_rate, "learning_rate")
        self._momentum_tensor = self._hyper_tensor(self._momentum, "momentum")

    def _apply_dense(self, grad, var):
        return training_ops.apply_momentum(
            var._ref(), self.get_slot(var, "momentum")._ref(),
            self._cast_to(self._learning_rate_tensor, var), grad,
            self._cast_to(self._momentum_tensor, var), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_momentum(
            var._ref(), self.get_slot(var, "momentum")._ref(),
            self._cast_to(self._learning_rate_tensor, var), grad.values, grad.indices,
            self._cast_to(self._momentum_tensor, var), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov)
