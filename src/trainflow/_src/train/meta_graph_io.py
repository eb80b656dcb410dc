"""`tf.train.export_meta_graph` and `write_graph` (`import_meta_graph` is in meta_graph_restore,
above the Saver it builds)."""
import os

from trainflow._src.framework import meta_graph
from trainflow._src.framework.graph import Graph, get_default_graph
from trainflow._src.ops.state import variable_protos  # noqa: F401 - registers VariableDef I/O
from trainflow._src.train import checkpoint_management
from trainflow._src.protos._pool import POOL


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
        data = text_format.MessageToString(proto, descriptor_pool=POOL)
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
