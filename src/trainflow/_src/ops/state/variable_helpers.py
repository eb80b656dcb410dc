"""Variable collections and initialization helpers of TF1: `tf.global_variables`,
`tf.global_variables_initializer`, `tf.report_uninitialized_variables`, ..."""
import os

from trainflow._src.ops.array import gather, join
from trainflow._src.ops.control_flow import grouping
from trainflow._src.ops.math import arith
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.ops.state import state_ops
from trainflow._src.framework.constant_op import constant

__all__ = ["all_variables", "assert_variables_initialized", "global_variables",
           "global_variables_initializer", "initialize_all_variables",
           "initialize_local_variables", "initialize_variables", "is_variable_initialized",
           "local_variables", "local_variables_initializer", "model_variables",
           "moving_average_variables", "report_uninitialized_variables", "trainable_variables",
           "variables_initializer"]

_VARIABLE_OP_TYPES = ("Variable", "VariableV2", "AutoReloadVariable")


def global_variables(scope=None):
    """Variables in GLOBAL_VARIABLES (optionally those whose name matches `scope`)."""
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    """Deprecated alias of `global_variables()`."""
    return global_variables()


def trainable_variables(scope=None):
    """Variables in TRAINABLE_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    """Variables in LOCAL_VARIABLES (per-process variables such as metric counters)."""
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    """Variables in MODEL_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    """Variables in MOVING_AVERAGE_VARIABLES."""
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An op running the initializers of `var_list` (a NoOp when the list is empty)."""
    if var_list:
        return grouping.group(*[v.initializer for v in var_list], name=name)
    return grouping.no_op(name=name)


initialize_variables = variables_initializer


def global_variables_initializer():
    """`variables_initializer(global_variables())`, named "init"."""
    return variables_initializer(global_variables())


def local_variables_initializer():
    """`variables_initializer(local_variables())`, named "init" (made unique)."""
    return variables_initializer(local_variables())


initialize_all_variables = global_variables_initializer
initialize_local_variables = local_variables_initializer


def is_variable_initialized(variable):
    """A bool tensor: is `variable` initialized in the running session?"""
    return state_ops.is_variable_initialized(variable)


def _default_var_list():
    var_list = global_variables() + local_variables()
    if not var_list:
        var_list = [op.outputs[0] for op in get_default_graph().get_operations()
                    if op.type in _VARIABLE_OP_TYPES]
    return var_list


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor with the names of the variables not yet initialized.

    Args:
      var_list: variables to check (default: global and local variables).
      name: the name scope.
    """
    if var_list is None:
        var_list = _default_var_list()
    graph = get_default_graph()
    with name_scope(name):
        if var_list:
            init_vars = [state_ops.is_variable_initialized(v) for v in var_list]
        local_device = os.environ.get("TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING",
                                      "/cpu:0")
        with graph.device(local_device):
            if not var_list:
                return constant([], dtype=dtypes.string)
            mask = arith.logical_not(join.stack(init_vars))
            names = constant([v.op.name for v in var_list])
            return gather.boolean_mask(names, mask)


def assert_variables_initialized(var_list=None):
    """An op that fails (FailedPreconditionError) if a variable is uninitialized: the
    ranks of the variables, stacked; None if there are no variables."""
    if var_list is None:
        var_list = _default_var_list()
    if not var_list:
        return None
    graph = get_default_graph()
    ranks = []
    for var in var_list:
        with graph.colocate_with(var.op):
            # A Rank op even for static shapes: running it reads the variable.
            ranks.append(apply_op("Rank", input=var, name="Rank").outputs[0])
    if len(ranks) == 1:
        return ranks[0]
    return join.stack(ranks)
