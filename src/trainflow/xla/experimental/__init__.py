"""`tf.xla.experimental`: `jit_scope`, TF1's per-scope XLA marker.

trainflow compiles whole segments when the session's auto-jit switch is on
(`OptimizerOptions.global_jit_level` or `TF_XLA_FLAGS=--tf_xla_auto_jit`); `jit_scope`
is accepted and records TF's attrs for the ops created inside it, without switching
XLA on by itself.
"""
import contextlib
import itertools

from trainflow.framework.graph import get_default_graph

_scope_ids = itertools.count()


@contextlib.contextmanager
def jit_scope(compile_ops=True, separate_compiled_gradients=False):
    """Marks the ops created in this context for XLA compilation, as TF does: the attrs
    `_XlaCompile` (bool, or decided per NodeDef by a callable `compile_ops`),
    `_XlaSeparateCompiledGradients` and `_XlaScope`.

    Args:
      compile_ops: whether to compile the ops (a bool, or a callable taking a NodeDef).
      separate_compiled_gradients: put each gradient subgraph in its own scope.

    Yields:
      None.
    """
    if not callable(compile_ops) and not isinstance(compile_ops, bool):
        raise TypeError(f"compile_ops must be a bool or a callable, got {compile_ops!r}")
    graph = get_default_graph()
    attrs = {"_XlaCompile": compile_ops,
             "_XlaSeparateCompiledGradients": bool(separate_compiled_gradients),
             "_XlaScope": f"jit_scope_{next(_scope_ids)}"}
    saved = dict(graph._attr_scope_map)
    graph._attr_scope_map.update(attrs)
    try:
        yield
    finally:
        graph._attr_scope_map.clear()
        graph._attr_scope_map.update(saved)
