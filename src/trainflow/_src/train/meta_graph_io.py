"""`tf.train.export_meta_graph`, `import_meta_graph` and `write_graph`."""
import logging
import os

from trainflow._src.framework import meta_graph, meta_graph_import
from trainflow._src.framework.graph import Graph, get_default_graph
from trainflow._src.ops.state import variable_protos  # noqa: F401 - registers VariableDef I/O
from trainflow._src.train import checkpoint_management

_log = logging.getLogger(__name__)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a Graph's GraphDef, or any proto, to `logdir/name` (atomically).

    Args:
      graph_or_graph_def: a Graph, GraphDef, MetaGraphDef or other proto.
      logdir: the directory (created if missing).
      name: the file name.
      as_text: text format (True) or binary.

    Returns:
      The path written.
    """
    from google.protobuf import text_format
    proto = graph_or_graph_def.as_graph_def() if isinstance(graph_or_graph_def, Graph) \
        else graph_or_graph_def
    logdir = os.fspath(logdir)
    if logdir:
        os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, os.fspath(name))
    if as_text:
        data = text_format.MessageToString(proto)
    else:
        data = proto.SerializeToString(deterministic=True)
    checkpoint_management.atomic_write_string_to_file(path, data)
    return path


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Returns (and writes to `filename` if given) the MetaGraphDef of a graph.

    Args:
      filename: where to write it (binary, or text with `as_text`).
      meta_info_def, graph_def, saver_def: parts to use instead of the graph's own.
      collection_list: the collection keys to export (default: all).
      graph: the graph (default graph).
      export_scope: export only the ops under this name scope, names made relative to it.
      clear_devices: drop device fields.
      clear_extraneous_savers: keep only the ops of the saver `saver_def` describes.
      strip_default_attrs: drop attrs equal to their defaults.
      save_debug_info: also write `<filename stem>_debug` (GraphDebugInfo).

    Raises:
      TypeError: unknown keyword arguments.
    """
    if kwargs:
        raise TypeError("Unexpected keyword arguments: " + ", ".join(sorted(kwargs)))
    graph = graph or get_default_graph()
    mgd, _ = meta_graph.export_scoped_meta_graph(
        graph_def=graph_def, graph=graph, export_scope=export_scope,
        clear_devices=clear_devices, saver_def=saver_def,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs, meta_info_def=meta_info_def,
        collection_list=collection_list)
    if filename:
        filename = os.fspath(filename)
        write_graph(mgd, os.path.dirname(filename), os.path.basename(filename),
                    as_text=as_text)
        if save_debug_info:
            base = os.path.splitext(filename)[0] + "_debug"
            write_graph(meta_graph.debug_info_of(graph), os.path.dirname(base),
                        os.path.basename(base), as_text=False)
    return mgd


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
    from trainflow._src.protos import meta_graph_pb2
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
        from trainflow._src.ops.control_flow.while_grad import gradient_spec
        spec = gradient_spec(forward)
        wanted = [t.value_index for t in op.inputs[1:1 + len(op._attrs["Tloop"])]]
        if len(spec.loop_positions) != len(op.outputs) or \
                not set(wanted) <= set(spec.loop_positions):
            continue  # a layout this loop cannot give: the op reports it when run
        grad_body.imported_loop_positions = wanted
        grad_body.while_grad_spec = spec


def _create_saver(mgd, import_scope, imported_vars):
    from trainflow._src.train.saver import Saver, _all_saveable_objects
    if mgd.HasField("saver_def"):
        scope = import_scope
        if imported_vars:
            key, var = next(iter(imported_vars.items()))
            scope = var.name[:-len(key)]
        from trainflow._src.protos import saver_pb2
        saver_def = saver_pb2.SaverDef()
        saver_def.CopyFrom(mgd.saver_def)
        return Saver(saver_def=saver_def, name=scope)
    if _all_saveable_objects(scope=import_scope):
        return Saver()
    _log.info("Saver not created because there are no variables in the graph to restore")
    return None
