"""`tf.saved_model.main_op`: the op a SavedModel's loader runs after restoring variables."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.ops.control_flow.grouping import group
from trainflow._src.ops.state.tables import tables_initializer
from trainflow._src.ops.state.variable_helpers import (
    global_variables_initializer, local_variables_initializer)


def main_op():
    """A group of the global-variable, local-variable and table initializers (TF's default
    main op)."""
    init = global_variables_initializer()
    init_local = local_variables_initializer()
    init_tables = tables_initializer()
    return group(init, init_local, init_tables)


def main_op_with_restore(restore_op_name):
    """The main op, run after the restore op `restore_op_name` (a graph element or its
    name)."""
    restore_op = get_default_graph().as_graph_element(restore_op_name)
    with control_dependencies([restore_op]):
        return main_op()
