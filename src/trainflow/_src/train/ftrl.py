"""`tf.train.FtrlOptimizer` (FTRL-Proximal, McMahan et al. 2013)."""
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import training_ops
from trainflow._src.train.optimizer import Optimizer


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal with l1, l2 and l2-shrinkage regularization. Slots "accum"
    (`var/Ftrl`, starting at `initial_accumulator_value`) and "linear" (`var/Ftrl_1`).
    Runs ApplyFtrl, or ApplyFtrlV2 when `l2_shrinkage_regularization_strength` > 0.

    Args:
      learning_rate: a float or Tensor.
      learning_rate_power: how the rate decays with the accumulator; <= 0.
      initial_accumulator_value: the accumulators' starting value; >= 0.
      l1_regularization_strength, l2_regularization_strength: >= 0.
      use_locking: lock the variables during updates.
      name: the optimizer name (default "Ftrl").
      accum_name, linear_name: names for the two slots' scopes (default `name`).
      l2_shrinkage_regularization_strength: a magnitude penalty on the weights, >= 0.
      beta: added to the l2 strength as beta / (2 * learning_rate); default 0.

    Raises:
      ValueError: for a negative accumulator value or regularization strength, or a
        positive learning_rate_power.
    """

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0, beta=None):
        super().__init__(use_locking, name)
        for value, what, sign in (
                (initial_accumulator_value, "initial_accumulator_value", "positive or zero"),
                (-learning_rate_power, "learning_rate_power", "negative or zero"),
                (l1_regularization_strength, "l1_regularization_strength", "positive or zero"),
                (l2_regularization_strength, "l2_regularization_strength", "positive or zero"),
                (l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength",
                 "positive or zero")):
            if value < 0.0:
                shown = -value if what == "learning_rate_power" else value
                raise ValueError("%s %f needs to be %s" % (what, shown, sign))
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name
        self._learning_rate_tensor = self._learning_rate_power_tensor = None
        self._l1_regularization_strength_tensor = None
        self._adjusted_l2_regularization_strength_tensor = None
        self._l2_shrinkage_regularization_strength_tensor = None

    def _create_slots(self, var_list):
        value = self._initial_accumulator_value

        def accum_initializer(shape, dtype=None, partition_info=None):
            del partition_info
            return array_ops.ones(shape=shape, dtype=dtype) * value

        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, accum_initializer, v.get_shape(), v.dtype.base_dtype, "accum",
                self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength")
        self._adjusted_l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength + self._beta /
            (2. * math_ops.maximum(self._learning_rate, 1e-36)),
            name="adjusted_l2_regularization_strength")
        self._beta_tensor = convert_to_tensor(self._beta, name="beta")
        self._l2_shrinkage_regularization_strength_tensor = convert_to_tensor(
            self._l2_shrinkage_regularization_strength,
            name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_tensor = convert_to_tensor(self._learning_rate_power,
                                                             name="learning_rate_power")

    def _hypers(self, var):
        lr, l1, l2 = (self._cast_to(t, var) for t in (
            self._learning_rate_tensor, self._l1_regularization_strength_tensor,
            self._adjusted_l2_regularization_strength_tensor))
        power = self._cast_to(self._learning_rate_power_tensor, var)
        if self._l2_shrinkage_regularization_strength <= 0.0:
            return [lr, l1, l2, power]
        shrink = self._cast_to(self._l2_shrinkage_regularization_strength_tensor, var)
        return [lr, l1, l2, shrink, power]

    def _slots_of(self, var):
        return var._ref(), self.get_slot(var, "accum")._ref(), self.get_slot(var, "linear")._ref()

    def _apply_dense(self, grad, var):
        fn = training_ops.apply_ftrl if self._l2_shrinkage_regularization_strength <= 0.0 \
            else training_ops.apply_ftrl_v2
        return fn(*self._slots_of(var), grad, *self._hypers(var),
                  use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        fn = training_ops.sparse_apply_ftrl if self._l2_shrinkage_regularization_strength <= 0.0 \
            else training_ops.sparse_apply_ftrl_v2
        return fn(*self._slots_of(var), grad.values, grad.indices, *self._hypers(var),
                  use_locking=self._use_locking)
