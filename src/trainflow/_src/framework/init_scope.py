"""`tf.init_scope`: lifts op creation out of function bodies and control flow, as
TensorFlow does for variable initializers."""
import contextlib

from trainflow._src.framework.scopes import get_default_graph


@contextlib.contextmanager
def init_scope():
    """Builds ops in the outermost graph that is not a function body, with no control
    dependencies and no conditional context, under the current name scope."""
    graph = get_default_graph()
    scope = graph.get_name_scope()
    if scope and scope[-1] != "/":
        scope += "/"
    outer = graph
    while getattr(outer, "building_function", False) and getattr(outer, "outer_graph", None):
        outer = outer.outer_graph
    with outer.as_default(), outer.name_scope(scope), outer.control_dependencies(None):
        yield
