"""`tf.tables_initializer` (and its older name `tf.initialize_all_tables`): one op that
runs the initializers of the graph's lookup tables (the TABLE_INITIALIZERS collection)."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.ops.control_flow.grouping import group, no_op

__all__ = ["initialize_all_tables", "tables_initializer"]


def tables_initializer(name="init_all_tables"):
    """A group of every table initializer of the default graph (a NoOp when none)."""
    initializers = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)


def initialize_all_tables(name="init_all_tables"):
    """The deprecated name of `tables_initializer`."""
    return tables_initializer(name)
