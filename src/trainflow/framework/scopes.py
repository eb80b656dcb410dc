"""Module-level scope helpers of TF1: name_scope, control_dependencies, device, colocate_with."""
import contextlib

from trainflow.framework.graph import _get_graph_from_inputs, get_default_graph


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
    """Kept for TF1 compatibility: resources here are per session, so this only scopes."""
    return contextlib.nullcontext(container_name)


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
