"""`tf.train.ExponentialMovingAverage` and `assign_moving_average` (TF1 graph mode).

Shadow variables are slots named `<var>/ExponentialMovingAverage`, so a Saver built
from `variables_to_restore()` reads and writes the same checkpoint keys as TF.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import init_ops, state_ops, variable_scope, variables
from trainflow._src.train import slot_creator


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """variable -= (variable - value) * (1 - decay); returns the updated variable's ref.

    With `zero_debias`, a biased average and a step counter live in variables
    `<variable>/biased` and `<variable>/local_step`, and `variable` receives the
    biased average divided by 1 - decay^step (Kingma & Ba's correction).
    """
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _unique_in_scope(name):
    scope = variable_scope.get_variable_scope()
    if scope.reuse:
        return name
    taken = {v.op.name for v in scope.global_variables()}
    full = scope.name + "/" + name
    if full not in taken:
        return name
    i = 1
    while full + "_%d" % i in taken:
        i += 1
    return name + "_%d" % i


def _zero_debias(unbiased, value, decay):
    graph = get_default_graph()
    with variable_scope.variable_scope(unbiased.name[:-len(":0")],
                                       values=[unbiased, value, decay]):
        with graph.colocate_with(unbiased.op):
            biased = variable_scope.get_variable(
                _unique_in_scope("biased"), initializer=init_ops.zeros_initializer(),
                shape=unbiased.get_shape(), dtype=unbiased.dtype.base_dtype, trainable=False)
            local_step = variable_scope.get_variable(
                _unique_in_scope("local_step"), shape=[], dtype=unbiased.dtype.base_dtype,
                initializer=init_ops.zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased, (biased - value) * decay)
    update_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_step)
    return state_ops.assign(unbiased, update_biased / bias_factor,
                            name=graph.get_name_scope() + "/")


class ExponentialMovingAverage:
    """Keeps moving averages of variables (or tensors) in shadow variables.

    `apply(var_list)` creates the shadows (a variable's shadow starts at its value, a
    tensor's at zero) and returns the op updating them:
    shadow -= (1 - decay) * (shadow - value), with decay = min(decay,
    (1 + num_updates) / (10 + num_updates)) when `num_updates` is given.

    Args:
      decay: the decay, a float.
      num_updates: an optional step count (e.g. the global step) that ramps the decay up.
      zero_debias: debias the averages of tensors (see `assign_moving_average`).
      name: the shadows' name suffix and the apply op's name scope.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}  # id(var) -> (var, shadow)

    @property
    def name(self):
        """The name of this ExponentialMovingAverage object."""
        return self._name

    def apply(self, var_list=None):
        """Creates shadows for `var_list` (default: trainable variables) and returns the
        op that updates them all.

        Raises:
          TypeError: if an entry is not half, bfloat16, float or double.
        """
        if var_list is None:
            var_list = variables.trainable_variables()
        graph = get_default_graph()
        debiased = set()
        for var in var_list:
            if var.dtype.base_dtype not in (dtypes.bfloat16, dtypes.float16, dtypes.float32,
                                            dtypes.float64):
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if id(var) in self._averages:
                continue
            with variables.init_scope():
                avg = self._create_shadow(var, graph)
            if not isinstance(var, variables.Variable) and self._zero_debias:
                debiased.add(id(avg))
            self._averages[id(var)] = (var, avg)
        with name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes.float32,
                                            name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[id(var)][1]
                updates.append(assign_moving_average(avg, var, decay, id(avg) in debiased))
            return control_flow_ops.group(*updates, name=scope)

    def _create_shadow(self, var, graph):
        if isinstance(var, variables.Variable):
            with graph.device(var.device):
                initialized = cond(state_ops.is_variable_initialized(var),
                                   var.read_value, lambda: var.initial_value)
            avg = slot_creator.create_slot(var, initialized, self.name,
                                           colocate_with_primary=True)
            graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
            return avg
        return slot_creator.create_zeros_slot(
            var, self.name,
            colocate_with_primary=var.op.type in ("Variable", "VariableV2", "VarHandleOp"))

    def average(self, var):
        """The shadow variable of `var`, or None."""
        entry = self._averages.get(id(var))
        return entry[1] if entry is not None and entry[0] is var else None

    def average_name(self, var):
        """The name `var`'s shadow has (or would get): `<var op name>/<self.name>`."""
        avg = self.average(var)
        if avg is not None:
            return avg.name[:-len(":0")]
        return get_default_graph().unique_name(var.name[:-len(":0")] + "/" + self.name,
                                               mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """{checkpoint name: variable} restoring each averaged variable from its shadow's
        key and every other global variable from its own.

        Args:
          moving_avg_variables: the variables whose averages to restore (default: the
            trainable and MOVING_AVERAGE_VARIABLES variables).
        """
        graph = get_default_graph()
        if moving_avg_variables is None:
            moving_avg_variables = variables.trainable_variables() + list(
                graph.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES))
        unique = list({id(v): v for v in moving_avg_variables}.values())
        name_map = {self.average_name(v): v for v in unique}
        averaged_names = {v.name for v in unique}
        for v in variables.global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
