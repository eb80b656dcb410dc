"""The per-thread default-graph stack, and the module-level scope helpers of TF1 that act
on the default graph: name_scope, control_dependencies, device, colocate_with,
collections."""
import contextlib
import threading

from trainflow._src.framework.default_stack import nesting_controller
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor


class _DefaultGraphStack(threading.local):
    """The default-graph stack of one thread, over that thread's own global default graph
    (as in TF, a new thread starts with a fresh global default graph)."""

    # The Graph class, installed by framework/graph.py (which imports this module).
    graph_class = None

    def __init__(self):
        self.stack = []
        self.global_default = None

    def get_default(self):
        if self.stack:
            return self.stack[-1]
        if self.global_default is None:
            self.global_default = _DefaultGraphStack.graph_class()
        return self.global_default

    def reset(self):
        if self.stack:
            raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. "
                                 "If you need a cleared graph, exit the nesting and create a "
                                 "new graph.")
        self.global_default = None

    def get_controller(self, graph, enforce_nesting=True):
        return nesting_controller(self.stack, graph, enforce_nesting)


_default_graph_stack = _DefaultGraphStack()


def get_default_graph():
    """The default graph of the current thread: the innermost `as_default()` graph, else
    the thread's global default graph."""
    return _default_graph_stack.get_default()


def reset_default_graph():
    """Replaces the current thread's global default graph with a new, empty one.

    Raises:
      AssertionError: if called inside a `with graph.as_default()` block (including
        `with tf.Session()` blocks, which enter their graph).
    """
    _default_graph_stack.reset()


def _get_graph_from_inputs(op_input_list, graph=None):
    """The graph that the given tensors/ops (or objects with a `graph`) live in; the
    default graph if none has one."""
    if graph is not None:
        return graph
    default = get_default_graph()
    if default.building_function:
        # Inside a function body, outer tensors are captured, not built upon (TF's rule).
        return default
    for item in op_input_list:
        if isinstance(item, (Tensor, Operation)):
            return item.graph
        g = getattr(item, "graph", None)
        if g is not None and hasattr(g, "_nodes_by_name"):
            return g
    return get_default_graph()


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """Opens a name scope in the graph of `values` (TF1 `tf.name_scope`).

    Args:
      name: the scope name; None falls back to `default_name`.
      default_name: used when `name` is None.
      values: tensors whose graph should be used.

    Yields:
      the scope string (ending in "/").
    """
    if not (default_name is None or isinstance(default_name, str)):
        raise TypeError(f"`default_name` type ({type(default_name)}) is not a string type. "
                        "You likely meant to pass this into the `values` kwarg.")
    n = default_name if name is None else name
    if not n and values is None and name is not None and name != "":
        raise ValueError("At least one of name (%s) and default_name (%s) must be provided."
                         % (name, default_name))
    g = _get_graph_from_inputs(values or [])
    with g.as_default(), g.name_scope(n) as scope:
        yield scope


def control_dependencies(control_inputs):
    """`Graph.control_dependencies` on the default graph."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    """`Graph.device` on the default graph."""
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):
    """`Graph.colocate_with` on the default graph."""
    return get_default_graph().colocate_with(op, ignore_existing)


def container(container_name):
    """`Graph.container` on the default graph."""
    return get_default_graph().container(container_name)


@contextlib.contextmanager
def graph_container(graph, container_name):
    """`Graph.container`: stateful ops created in this context keep their resources in
    the container `container_name` (Session.reset clears containers by name)."""
    original = graph._container
    graph._container = container_name
    try:
        yield container_name
    finally:
        graph._container = original


def apply_container(graph, op):
    """Names the graph's current container in a new stateful op's empty `container`."""
    name = graph._container
    if name and op._attrs.get("container", b"-") in (b"", "") and op._info is not None \
            and op._info.stateful:
        op._attrs["container"] = name.encode() if isinstance(name, str) else name


def get_collection(key, scope=None):
    """`Graph.get_collection` on the default graph."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    """`Graph.get_collection_ref` on the default graph."""
    return get_default_graph().get_collection_ref(key)


def add_to_collection(name, value):
    """`Graph.add_to_collection` on the default graph."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    """`Graph.add_to_collections` on the default graph."""
    get_default_graph().add_to_collections(names, value)


def op_scope(values, name, default_name=None):
    """The pre-1.0 spelling of name_scope(name, default_name, values)."""
    return name_scope(name, default_name, values)
