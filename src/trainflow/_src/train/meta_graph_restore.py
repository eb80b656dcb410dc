"""`tf.train.import_meta_graph`: a MetaGraphDef's graph into the default graph, and the Saver
that restores its variables."""
import logging
import os

from trainflow._src.framework import meta_graph_import
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.ops.control_flow.while_grad import gradient_spec
from trainflow._src.ops.state import variable_protos  # noqa: F401 - registers VariableDef I/O
from trainflow._src.protos import meta_graph_pb2, saver_pb2
from trainflow._src.train.saveable_object import all_saveable_objects
from trainflow._src.train.saver import Saver

_log = logging.getLogger(__name__)


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Imports a MetaGraphDef (proto or file) into the default graph.

    Args:
      meta_graph_or_file: a MetaGraphDef or the path of one (binary or text).
      clear_devices: drop device fields.
      import_scope: name scope for the imported ops.
      **kwargs: input_map, return_elements, unbound_inputs_col_name,
        restore_collections_predicate.

    Returns:
      A Saver built from the meta graph's SaverDef (or for its variables), or None when it
      has neither.
    """
    return _import_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, import_scope, **kwargs)[0]


def _import_meta_graph_with_return_elements(meta_graph_or_file, clear_devices=False,
                                            import_scope=None, return_elements=None,
                                            **kwargs):
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        mgd = meta_graph_or_file
    else:
        mgd = meta_graph_import.read_meta_graph_file(os.fspath(meta_graph_or_file))
    graph = get_default_graph()
    first_new = len(graph.get_operations())
    imported_vars, elements = meta_graph_import.import_scoped_meta_graph_with_return_elements(
        mgd, clear_devices=clear_devices, import_scope=import_scope,
        return_elements=return_elements, **kwargs)
    _link_while_gradients(graph.get_operations()[first_new:])
    return _create_saver(mgd, import_scope, imported_vars), elements


def _link_while_gradients(ops):
    """Gives each imported WhileGrad op the gradient layout of its imported While loop,
    rebuilt from the loop's body (which also makes the loop record its iterations from the
    first step on), so that an imported training graph with `tf.while_loop` trains on."""
    for op in ops:
        if op.type != "WhileGrad":
            continue
        grad_body = op._attrs["grad_body"]
        forward = op.inputs[0].op
        if getattr(grad_body, "while_grad_spec", None) is not None or \
                forward.type not in ("While", "StatelessWhile"):
            continue
        spec = gradient_spec(forward)
        wanted = [t.value_index for t in op.inputs[1:1 + len(op._attrs["Tloop"])]]
        if len(spec.loop_positions) != len(op.outputs) or \
                not set(wanted) <= set(spec.loop_positions):
            continue  # a layout this loop cannot give: the op reports it when run
        grad_body.imported_loop_positions = wanted
        grad_body.while_grad_spec = spec


def _create_saver(mgd, import_scope, imported_vars):
    if mgd.HasField("saver_def"):
        scope = import_scope
        if imported_vars:
            key, var = next(iter(imported_vars.items()))
            scope = var.name[:-len(key)]
        saver_def = saver_pb2.SaverDef()
        saver_def.CopyFrom(mgd.saver_def)
        return Saver(saver_def=saver_def, name=scope)
    if all_saveable_objects(scope=import_scope):
        return Saver()
    _log.info("Saver not created because there are no variables in the graph to restore")
    return None
