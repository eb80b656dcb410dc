"""`tf.train.RMSPropOptimizer`."""
from trainflow._src.ops.state import training_ops
from trainflow._src.train.optimizer import Optimizer


class RMSPropOptimizer(Optimizer):
    """RMSProp: slots "rms" (`var/RMSProp`, starting at 1), "momentum"
    (`var/RMSProp_1`) and, when centered, "mg" (`var/RMSProp_1`, momentum then
    `var/RMSProp_2`).

    Args:
      learning_rate, decay, momentum, epsilon: floats, Tensors or callables returning one.
      use_locking: lock the variables during updates.
      centered: normalize by the estimated variance of the gradient.
      name: the optimizer name (default "RMSProp").
    """

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered
        self._learning_rate_tensor = self._decay_tensor = None
        self._momentum_tensor = self._epsilon_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, 1.0, "rms", ones=True)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = self._hyper_tensor(self._learning_rate, "learning_rate")
        self._decay_tensor = self._hyper_tensor(self._decay, "decay")
        self._momentum_tensor = self._hyper_tensor(self._momentum, "momentum")
        self._epsilon_tensor = self._hyper_tensor(self._epsilon, "epsilon")

    def _args(self, var):
        slots = [self.get_slot(var, "rms")._ref(), self.get_slot(var, "momentum")._ref()]
        if self._centered:
            slots.insert(0, self.get_slot(var, "mg")._ref())
        hypers = [self._cast_to(t, var) for t in (
            self._learning_rate_tensor, self._decay_tensor, self._momentum_tensor,
            self._epsilon_tensor)]
        return [var._ref(), *slots, *hypers]

    def _apply_dense(self, grad, var):
        fn = training_ops.apply_centered_rms_prop if self._centered else \
            training_ops.apply_rms_prop
        return fn(*self._args(var), grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        fn = training_ops.sparse_apply_centered_rms_prop if self._centered else \
            training_ops.sparse_apply_rms_prop
        return fn(*self._args(var), grad.values, grad.indices, use_locking=self._use_locking)
