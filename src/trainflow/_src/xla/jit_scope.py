"""`tf.xla.experimental.jit_scope`: TF1's per-scope XLA marker.

The ops created inside a `jit_scope` carry TF's attrs `_XlaCompile`, `_XlaScope` and
`_XlaSeparateCompiledGradients` (through the graph's attr scope). A session compiles
them with XLA even when its auto-jit switch (`global_jit_level`, `TF_XLA_FLAGS`) is off,
one cluster per scope, and runs the rest on NumPy; with the switch on, ops marked
`compile_ops=False` stay on NumPy. Their gradients inherit the marks (TF's rule).
"""
import contextlib
import weakref

from trainflow._src.framework import attr_scope
from trainflow._src.framework.graph import get_default_graph

# Per graph: [scopes opened at the top level so far, current nesting depth].
_counters = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def jit_scope(compile_ops=True, separate_compiled_gradients=False):
    """Marks the ops created in this context for XLA compilation, as TF does.

    Args:
      compile_ops: whether to compile the ops (a bool, or a callable taking the new op's
        NodeDef and returning a bool).
      separate_compiled_gradients: compile each op's gradient in a scope of its own
        (`<scope>_grad_<gradient name scope>`) rather than the forward op's.

    Yields:
      None.

    Raises:
      TypeError: if compile_ops is neither a bool nor a callable.
    """
    if not callable(compile_ops) and not isinstance(compile_ops, bool):
        raise TypeError(f"compile_ops must be a bool or a callable, got {compile_ops!r}")
    graph = get_default_graph()
    if callable(compile_ops):
        def xla_compile(node_def):
            return bool(compile_ops(node_def))
    else:
        xla_compile = compile_ops
    attrs = {"_XlaCompile": xla_compile,
             "_XlaSeparateCompiledGradients": bool(separate_compiled_gradients)}
    counter = _counters.setdefault(graph, [0, 0])
    if counter[1] == 0:
        # A top-level scope is a cluster of its own; nested scopes join their parent's.
        attrs["_XlaScope"] = f"jit_scope_{counter[0]}".encode()
        counter[0] += 1
    counter[1] += 1
    try:
        with attr_scope.attr_scope(graph, attrs):
            yield
    finally:
        counter[1] -= 1
