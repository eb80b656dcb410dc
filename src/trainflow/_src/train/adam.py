"""`tf.train.AdamOptimizer` (Kingma & Ba) with TF's epsilon-hat formulation."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import state_ops, training_ops
from trainflow._src.train.optimizer import Optimizer


class AdamOptimizer(Optimizer):
    """Adam: slots `m` and `v` per variable (`var/Adam`, `var/Adam_1`), and non-slot
    accumulators `beta1_power`, `beta2_power` colocated with the first variable by name.

    Args:
      learning_rate, beta1, beta2, epsilon: floats, Tensors or callables.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "Adam").
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self):
        graph = get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon),
                                            name="epsilon")

    def _casts(self, var):
        dt = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        return (math_ops.cast(beta1_power, dt), math_ops.cast(beta2_power, dt),
                math_ops.cast(self._lr_t, dt), math_ops.cast(self._beta1_t, dt),
                math_ops.cast(self._beta2_t, dt), math_ops.cast(self._epsilon_t, dt))

    def _apply_dense(self, grad, var):
        b1p, b2p, lr, b1, b2, eps = self._casts(var)
        return training_ops.apply_adam(
            var._ref(), self.get_slot(var, "m")._ref(), self.get_slot(var, "v")._ref(),
            b1p, b2p, lr, b1, b2, eps, grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        b1p, b2p, lr_t, beta1_t, beta2_t, epsilon_t = self._casts(var)
        graph = get_default_graph()
        lr = lr_t * math_ops.sqrt(1 - b2p) / (1 - b1p)
        m = self.get_slot(var, "m")
        m_scaled = grad.values * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with graph.control_dependencies([m_t]):
            m_t = state_ops.scatter_add(m, grad.indices, m_scaled,
                                        use_locking=self._use_locking)
        v = self.get_slot(var, "v")
        v_scaled = (grad.values * grad.values) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with graph.control_dependencies([v_t]):
            v_t = state_ops.scatter_add(v, grad.indices, v_scaled, use_locking=self._use_locking)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + epsilon_t),
                                          use_locking=self._use_locking)
        return control_flow_ops.group(*[var_update, m_t, v_t])

    def _finish(self, update_ops, name_scope):
        graph = get_default_graph()
        with graph.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with graph.colocate_with(beta1_power.op):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                                  use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                                  use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops + [update_beta1, update_beta2],
                                      name=name_scope)
