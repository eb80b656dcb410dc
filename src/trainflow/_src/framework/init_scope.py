"""`tf.init_scope`: lifts op creation out of function bodies and control flow, as
TensorFlow does for variable initializers."""
import contextlib

from trainflow._src.framework.scopes import get_default_graph


@contextlib.contextmanager
def init_scope():
    """Builds ops in the outermost graph that is not a function body, with no control
    dependencies and no conditional context, under the current name scope."""
    graph = get_default_graph()
    # The scope seen from the outermost graph: a function body's scopes sit under the
    # scope its builder (a while loop's "while/") opened in the graph around it.
    parts = [graph.get_name_scope()]
    outer = graph
    while getattr(outer, "building_function", False) and getattr(outer, "outer_graph", None):
        outer = outer.outer_graph
        parts.insert(0, outer.get_name_scope())
    scope = "/".join(p for p in parts if p)
    if scope:
        scope += "/"
    with outer.as_default(), outer.name_scope(scope), outer.control_dependencies(None):
        yield
