"""MetaGraphDef import: the graph, then every collection (TF's `import_scoped_meta_graph`)."""
import logging

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_def import import_graph_def
from trainflow._src.framework.loop_frames import has_loop_frames
from trainflow._src.framework.meta_graph import (get_collection_proto_type,
                                            get_from_proto_function, prepend_name_scope,
                                            strip_name_scope)
from trainflow._src.protos import meta_graph_pb2
from trainflow._src.protos._pool import POOL

_log = logging.getLogger(__name__)

VARIABLE_COLLECTIONS = ("variables", "local_variables", "metric_variables", "model_variables",
                        "trainable_variables", "moving_average_variables",
                        "concatenated_variables", "trainable_resource_variables")


def read_meta_graph_file(filename):
    """Reads a MetaGraphDef from a binary or text file.

    Raises:
      IOError: the file is missing or parses as neither.
    """
    from google.protobuf import text_format
    mgd = meta_graph_pb2.MetaGraphDef()
    try:
        with open(filename, "rb") as f:
            content = f.read()
    except FileNotFoundError:
        raise IOError(f"File does not exist. Received: {filename}.") from None
    try:
        mgd.ParseFromString(content)
        return mgd
    except Exception:  # noqa: BLE001 - then try the text format
        mgd.Clear()
    try:
        text_format.Merge(content.decode("utf-8"), mgd, descriptor_pool=POOL)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise IOError(f"Cannot parse file {filename}: {e}.") from None
    return mgd


def _check_unbound_inputs(mgd, col_name, input_map):
    if not col_name or col_name not in mgd.collection_def:
        return
    col = mgd.collection_def[col_name]
    kind = col.WhichOneof("kind")
    values = [v.decode() if isinstance(v, bytes) else v for v in getattr(col, kind).value] \
        if kind else []
    if values and (not input_map or sorted(values) != sorted(input_map)):
        missing = [v for v in values if not input_map or v not in input_map]
        raise ValueError("Graph contains unbound inputs: " + ",".join(missing) +
                         ". Must provide these inputs through input_map.")


def _ordered_collections(mgd):
    items = []
    if "trainable_variables" in mgd.collection_def:
        items.append(("trainable_variables", mgd.collection_def["trainable_variables"]))
    items.extend((k, v) for k, v in sorted(mgd.collection_def.items())
                 if k != "trainable_variables")
    return items


def _restore_collection(graph, key, col_def, scope, variable_objects, has_trainable):
    kind = col_def.WhichOneof("kind")
    if kind is None:
        _log.error("Cannot identify data type for collection %s. Skipping.", key)
        return
    from_proto = get_from_proto_function(key)
    if from_proto and kind == "bytes_list":
        proto_type = get_collection_proto_type(key)
        for value in col_def.bytes_list.value:
            if key in VARIABLE_COLLECTIONS:
                element = variable_objects.get(value)
                if element is None:
                    proto = proto_type.FromString(value)
                    if not has_trainable:
                        proto.trainable = key == "trainable_variables"
                    element = from_proto(proto, import_scope=scope)
                    variable_objects[value] = element
            else:
                element = from_proto(proto_type.FromString(value), import_scope=scope)
            graph.add_to_collection(key, element)
        return
    field = getattr(col_def, kind)
    if kind == "node_list":
        for value in field.value:
            graph.add_to_collection(key, graph.as_graph_element(prepend_name_scope(value,
                                                                                  scope)))
    elif kind == "int64_list":
        for value in field.value:
            graph.add_to_collection(key, int(value))
    else:
        for value in field.value:
            graph.add_to_collection(key, value)


def _version_at_least(version, wanted):
    parts = []
    for p in version.split(".")[:2]:
        digits = "".join(c for c in p if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts) >= wanted


def import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices=False, graph=None, import_scope=None,
        input_map=None, unbound_inputs_col_name="unbound_inputs",
        restore_collections_predicate=(lambda key: True), return_elements=None):
    """Imports a MetaGraphDef (or file) into `graph` (default graph) under `import_scope`.

    Returns:
      ({name relative to the scope: Variable}, the requested return elements or None).

    Raises:
      ValueError: unbound inputs are not all given in `input_map`, or the graph is bad.
    """
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        mgd = meta_graph_or_file
    else:
        mgd = read_meta_graph_file(meta_graph_or_file)
    _check_unbound_inputs(mgd, unbound_inputs_col_name, input_map)
    graph = graph or get_default_graph()
    with graph.as_default():
        producer_op_list = (mgd.meta_info_def.stripped_op_list
                            if mgd.meta_info_def.HasField("stripped_op_list") else None)
        graph_def = mgd.graph_def
        if clear_devices:
            graph_def = type(graph_def).FromString(graph_def.SerializeToString())
            for node in graph_def.node:
                node.device = ""
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        returned = import_graph_def(graph_def, name=import_scope or scope, input_map=input_map,
                                    producer_op_list=producer_op_list,
                                    return_elements=return_elements)
        version = mgd.meta_info_def.tensorflow_version
        has_trainable = not version or _version_at_least(version, (1, 9))
        variable_objects = {}
        # TF1 loop frames become functional While ops on import, so the control-flow
        # contexts describing the frames' nodes no longer apply.
        stale = ("while_context", "cond_context") if has_loop_frames(graph_def) else ()
        for key, col_def in _ordered_collections(mgd):
            if key == unbound_inputs_col_name or not restore_collections_predicate(key) or \
                    key in stale:
                continue
            _restore_collection(graph, key, col_def, scope, variable_objects, has_trainable)
        var_list = {}
        for v in graph.get_collection("variables", scope=scope):
            var_list[strip_name_scope(v.name, scope)] = v
    return var_list, returned


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None,
                             import_scope=None, input_map=None,
                             unbound_inputs_col_name="unbound_inputs",
                             restore_collections_predicate=(lambda key: True)):
    """Imports a MetaGraphDef; returns {name relative to the scope: Variable}."""
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, graph, import_scope, input_map,
        unbound_inputs_col_name, restore_collections_predicate)[0]
