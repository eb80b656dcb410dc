"""`tf.train.AdadeltaOptimizer`."""
from trainflow._src.ops.state import training_ops
from trainflow._src.train.optimizer import Optimizer


class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler, 2012): slots "accum" (`var/Adadelta`) and "accum_update"
    (`var/Adadelta_1`).

    Args:
      learning_rate, rho, epsilon: floats, Tensors or callables returning one.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "Adadelta").
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon
        self._lr_t = self._rho_t = self._epsilon_t = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = self._hyper_tensor(self._lr, "lr")
        self._rho_t = self._hyper_tensor(self._rho, "rho")
        self._epsilon_t = self._hyper_tensor(self._epsilon, "epsilon")

    def _hypers(self, var):
        return [self._cast_to(t, var) for t in (self._lr_t, self._rho_t, self._epsilon_t)]

    def _apply_dense(self, grad, var):
        return training_ops.apply_adadelta(
            var._ref(), self.get_slot(var, "accum")._ref(),
            self.get_slot(var, "accum_update")._ref(), *self._hypers(var), grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_adadelta(
            var._ref(), self.get_slot(var, "accum")._ref(),
            self.get_slot(var, "accum_update")._ref(), *self._hypers(var), grad.values,
            grad.indices, use_locking=self._use_locking)
