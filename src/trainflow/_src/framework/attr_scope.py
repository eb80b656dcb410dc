"""The graph's attr scope (TF's `Graph._attr_scope`): attrs set on every op created
while a scope is open, such as the `_XlaCompile` / `_XlaScope` marks of
`tf.xla.experimental.jit_scope`.

A scope value is an attr value (bool, int, float, bytes/str, list), an `AttrValue`
proto, or a callable taking the new op's NodeDef and returning one of those (or None
to leave the op without the attr). An attr the op already has is kept.
"""
import contextlib

from trainflow._src.framework.attr_value import from_attr_value


def apply(scope_map, op):
    """Sets the attrs of `scope_map` that `op` lacks."""
    for name, value in scope_map.items():
        if name in op._attrs:
            continue
        if callable(value):
            value = value(op.node_def)
        if value is None:
            continue
        if type(value).__name__ == "AttrValue":  # the proto; protobuf stays unimported
            value = from_attr_value(value)
        elif isinstance(value, str):
            value = value.encode()
        op._attrs[name] = value


@contextlib.contextmanager
def attr_scope(graph, attrs):
    """Opens an attr scope on `graph`: `attrs` ({name: value}, a value of None removes
    an outer scope's attr) apply to the ops created inside; the outer map is restored
    on exit.

    Raises:
      TypeError: if `attrs` is not a dict with string keys.
    """
    if not isinstance(attrs, dict) or not all(isinstance(k, str) for k in attrs):
        raise TypeError("attr_scope_map must be a dictionary mapping strings to "
                        "AttrValue protocol buffers")
    scope = graph._attr_scope_map
    saved = dict(scope)
    for name, value in attrs.items():
        if value is None:
            scope.pop(name, None)
        else:
            scope[name] = value
    try:
        yield
    finally:
        scope.clear()
        scope.update(saved)
