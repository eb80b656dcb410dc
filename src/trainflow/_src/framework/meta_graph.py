"""MetaGraphDef export as TensorFlow writes it: the GraphDef (with `_output_shapes`),
`meta_info_def` (stripped op list, tensorflow_version), the SaverDef and the collections.

A collection whose key has a registered proto function (variables -> VariableDef, savers ->
SaverDef, queue runners -> QueueRunnerDef ...) is stored as a `bytes_list` of serialized
protos; other collections by the kind of their first element: Tensors and Operations as a
`node_list` of names, ints as `int64_list`, floats as `float_list`, strings as
`bytes_list`, packed `Any` protos (a SavedModel's assets) as `any_list`.
Import is in `meta_graph_import`.
"""
import copy
import logging
import re

from google.protobuf import message

from trainflow._src.framework.graph import Graph, get_default_graph
from trainflow._src.framework.op_def_proto import strip_default_attrs, stripped_op_list_for_graph
from trainflow._src.framework.versions import GIT_VERSION, VERSION
from trainflow._src.protos import (
    attr_value_pb2, graph_debug_info_pb2, graph_pb2, meta_graph_pb2, saver_pb2)

_log = logging.getLogger(__name__)

UNBOUND_INPUT_PREFIX = "$unbound_inputs_"
SAVE_AND_RESTORE_OPS = ("SaveV2", "Save", "SaveSlice", "SaveSlices", "LegacySave",
                        "LegacySaveSlice", "RestoreV2", "Restore", "RestoreSlice",
                        "LegacyRestore", "LegacyRestoreSlice")

_PROTO_FUNCTIONS = {}

_ANY = "google.protobuf.Any"


def register_proto_function(collection_name, proto_type=None, to_proto=None, from_proto=None):
    """Registers how the elements of a collection are (de)serialized in a MetaGraphDef
    (`ops.register_proto_function`).

    Args:
      collection_name: the collection key.
      proto_type: the proto class of its elements.
      to_proto: ``fn(element, export_scope=None) -> proto or None``.
      from_proto: ``fn(proto, import_scope=None) -> element``.
    """
    _PROTO_FUNCTIONS[collection_name] = (proto_type, to_proto, from_proto)


def get_collection_proto_type(collection_name):
    """The proto class registered for a collection, or None."""
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[0]


def get_to_proto_function(collection_name):
    """The to_proto function registered for a collection, or None."""
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[1]


def get_from_proto_function(collection_name):
    """The from_proto function registered for a collection, or None."""
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[2]


def strip_name_scope(name, export_scope):
    """Removes `export_scope/` from the front of a name (also after "^" or "loc:@")."""
    if not export_scope:
        return name
    scope = export_scope.rstrip("/")
    return re.sub(r"([\^]|loc:@|^)" + re.escape(scope) + r"[\/]+(.*)", r"\1\2", name, count=1)


def prepend_name_scope(name, import_scope):
    """Prefixes a name with `import_scope/` (after a leading "^" or "loc:@")."""
    if not import_scope:
        return name
    scope = import_scope.rstrip("/")
    return re.sub(r"([\^]|loc:@|^)(.*)", lambda m: m.group(1) + scope + "/" + m.group(2),
                  name, count=1)


def _kind_name(item):
    if isinstance(item, message.Message) and item.DESCRIPTOR.full_name == _ANY:
        return "any_list"
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, bool) or not isinstance(item, (int, float)):
        return "node_list"
    return "int64_list" if isinstance(item, int) else "float_list"


def _node_name(node_or_name):
    if isinstance(node_or_name, str):
        return node_or_name
    try:
        return node_or_name.name
    except AttributeError:
        return None


def _should_include_node(node_or_name, export_scope, exclude_nodes):
    name = _node_name(node_or_name)
    if name is None or not isinstance(name, str):
        return True
    if exclude_nodes and name in exclude_nodes:
        return False
    return (name.startswith(UNBOUND_INPUT_PREFIX) or not export_scope or
            name.startswith(export_scope))


def add_collection_def(meta_graph_def, key, graph=None, export_scope=None,
                       exclude_nodes=None, override_contents=None):
    """Adds collection `key` of `graph` to `meta_graph_def.collection_def` (skipped, with a
    warning, when its elements cannot be serialized)."""
    if not isinstance(key, (str, bytes)):
        _log.warning("Only collections with string type keys will be serialized. This key "
                     "has %s", type(key))
        return
    graph = graph or get_default_graph()
    items = override_contents if override_contents else graph.get_collection(key)
    items = [x for x in items if _should_include_node(x, export_scope, exclude_nodes)]
    if not items:
        return
    try:
        col_def = meta_graph_def.collection_def[key]
        to_proto = get_to_proto_function(key)
        proto_type = get_collection_proto_type(key)
        if to_proto:
            for x in items:
                proto = to_proto(x, export_scope=export_scope)
                if proto:
                    if proto_type is not None and not isinstance(proto, proto_type):
                        raise TypeError(f"{key}: expected a {proto_type.__name__}, got "
                                        f"{type(proto).__name__}")
                    col_def.bytes_list.value.append(proto.SerializeToString())
            return
        kind = _kind_name(items[0])
        field = getattr(col_def, kind)
        if kind == "node_list":
            for x in items:
                if not export_scope or x.name.startswith(export_scope):
                    field.value.append(strip_name_scope(x.name, export_scope))
        elif kind == "bytes_list":
            field.value.extend(x.encode("utf-8") if isinstance(x, str) else x for x in items)
        elif kind == "any_list":
            for x in items:  # protobuf's own Any, or ours (the pool of tensorflow.*)
                field.value.add(type_url=x.type_url, value=x.value)
        else:
            field.value.extend(items)
    except Exception as e:  # noqa: BLE001 - TF logs and leaves the collection out
        _log.warning("Issue encountered when serializing: %s.\n%s", key, e)
        if key in meta_graph_def.collection_def:
            del meta_graph_def.collection_def[key]


def create_meta_graph_def(meta_info_def=None, graph_def=None, saver_def=None,
                          collection_list=None, graph=None, export_scope=None,
                          exclude_nodes=None, clear_extraneous_savers=False,
                          strip_default_attrs=False):
    """Builds a MetaGraphDef of `graph` (default graph) as TF's `create_meta_graph_def`.

    Raises:
      TypeError: an argument has the wrong type.
    """
    if graph is not None and not isinstance(graph, Graph):
        raise TypeError(f"graph must be of type Graph. Received type: {type(graph)}.")
    if meta_info_def is not None and \
            not isinstance(meta_info_def, meta_graph_pb2.MetaGraphDef.MetaInfoDef):
        raise TypeError("meta_info_def must be of type MetaInfoDef. Received type: "
                        f"{type(meta_info_def)}.")
    if graph_def is not None and not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"graph_def must be of type GraphDef. Received type: {type(graph_def)}.")
    if saver_def is not None and not isinstance(saver_def, saver_pb2.SaverDef):
        raise TypeError(f"saver_def must be of type SaverDef. Received type: {type(saver_def)}.")
    graph = graph or get_default_graph()
    mgd = meta_graph_pb2.MetaGraphDef()
    info = meta_info_def or meta_graph_pb2.MetaGraphDef.MetaInfoDef()
    # What wrote the file, as TensorFlow records it: the API level and the build (ours).
    info.tensorflow_version = VERSION
    info.tensorflow_git_version = GIT_VERSION
    mgd.meta_info_def.MergeFrom(info)
    mgd.graph_def.MergeFrom(graph_def if graph_def else graph.as_graph_def(add_shapes=True))
    if not mgd.meta_info_def.stripped_op_list.op:
        mgd.meta_info_def.stripped_op_list.MergeFrom(stripped_op_list_for_graph(mgd.graph_def))
    if strip_default_attrs:
        strip_graph_default_valued_attrs(mgd)
        mgd.meta_info_def.stripped_default_attrs = True
    if saver_def:
        mgd.saver_def.MergeFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        if clear_extraneous_savers and key == "savers":
            from_proto = get_from_proto_function(key)
            add_collection_def(mgd, key, graph=graph, export_scope=export_scope,
                               exclude_nodes=exclude_nodes,
                               override_contents=[from_proto(saver_def)] if saver_def else None)
        else:
            add_collection_def(mgd, key, graph=graph, export_scope=export_scope,
                               exclude_nodes=exclude_nodes)
    return mgd


def strip_graph_default_valued_attrs(meta_graph_def):
    """Removes attrs equal to their op's default from every node (functions included)."""
    strip_default_attrs(meta_graph_def.graph_def.node)
    for fdef in meta_graph_def.graph_def.library.function:
        strip_default_attrs(fdef.node_def)


def _scope_of(node_name):
    node_name = node_name.lstrip("^")
    return node_name.rsplit("/", 1)[0] if "/" in node_name else ""


def _find_extraneous_saver_nodes(graph_def, saver_def):
    """Names of nodes of savers other than the one `saver_def` describes."""
    nodes = {n.name: n.op for n in graph_def.node}
    keep = set()
    if saver_def is not None:
        keep.add(_scope_of(saver_def.save_tensor_name.split(":")[0]) + "/")
        keep.add(_scope_of(saver_def.restore_op_name.split(":")[0]) + "/")
    saver_nodes = {name for name, op in nodes.items() if op in SAVE_AND_RESTORE_OPS}
    scopes = {_scope_of(x) for x in saver_nodes} - saver_nodes
    extraneous = {s + "/" for s in scopes} - keep
    return {name for name in nodes if any(name.startswith(s) for s in extraneous)}


def _scoped_node_def(from_node, export_scope, unbound_inputs, clear_devices):
    node = copy.deepcopy(from_node)
    for i, v in enumerate(node.input):
        if export_scope and not v.lstrip("^").startswith(export_scope):
            caret = "^" if v.startswith("^") else ""
            node.input[i] = caret + UNBOUND_INPUT_PREFIX + v.lstrip("^")
            unbound_inputs.append(node.input[i])
        else:
            node.input[i] = strip_name_scope(v, export_scope)
    node.name = strip_name_scope(from_node.name, export_scope)
    for k, v in from_node.attr.items():
        if k == "_class":
            kept = [strip_name_scope(s.decode(), export_scope).encode() for s in v.list.s
                    if not export_scope or s.decode().split("@")[1].startswith(export_scope)]
            node.attr[k].CopyFrom(attr_value_pb2.AttrValue(
                list=attr_value_pb2.AttrValue.ListValue(s=kept)))
        elif node.op in ("Enter", "RefEnter") and k == "frame_name":
            if not export_scope or v.s.decode().startswith(export_scope):
                node.attr[k].CopyFrom(attr_value_pb2.AttrValue(
                    s=strip_name_scope(v.s.decode(), export_scope).encode()))
    if clear_devices:
        node.device = ""
    return node


def export_scoped_meta_graph(graph_def=None, graph=None, export_scope=None,
                             unbound_inputs_col_name="unbound_inputs", clear_devices=False,
                             saver_def=None, clear_extraneous_savers=False,
                             strip_default_attrs=False, meta_info_def=None,
                             collection_list=None):
    """Builds the MetaGraphDef of the ops under `export_scope` (writing it to a file is
    `tf.train.export_meta_graph`'s job).

    Returns:
      (MetaGraphDef, {name relative to export_scope: Variable}).
    """
    graph = graph or get_default_graph()
    exclude_nodes = None
    unbound_inputs = []
    if export_scope or clear_extraneous_savers or clear_devices:
        source = graph_def if graph_def else graph.as_graph_def(add_shapes=True)
        new_graph_def = graph_pb2.GraphDef()
        new_graph_def.versions.CopyFrom(source.versions)
        new_graph_def.library.CopyFrom(source.library)
        if clear_extraneous_savers:
            exclude_nodes = _find_extraneous_saver_nodes(source, saver_def)
        for node in source.node:
            if _should_include_node(node.name, export_scope, exclude_nodes):
                new_graph_def.node.add().CopyFrom(
                    _scoped_node_def(node, export_scope, unbound_inputs, clear_devices))
        graph_def = new_graph_def
        if unbound_inputs_col_name:
            graph.clear_collection(unbound_inputs_col_name)
            for k in unbound_inputs:
                graph.add_to_collection(unbound_inputs_col_name, k)
    var_list = {}
    for v in graph.get_collection("variables", scope=export_scope):
        if _should_include_node(v, export_scope, exclude_nodes):
            var_list[strip_name_scope(v.name, export_scope)] = v
    mgd = create_meta_graph_def(
        meta_info_def=meta_info_def, graph_def=graph_def or graph.as_graph_def(add_shapes=True),
        saver_def=saver_def, collection_list=collection_list, graph=graph,
        export_scope=export_scope, exclude_nodes=exclude_nodes,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs)
    return mgd, var_list


def debug_info_of(graph):
    """A GraphDebugInfo with each op's creation site (file and line)."""
    info = graph_debug_info_pb2.GraphDebugInfo()
    files = {}
    for op in graph.get_operations():
        site = str(getattr(op, "creation_site", None) or "")
        path, _, line = site.rpartition(":")
        if not path:
            continue
        frame = info.traces[op.name].file_line_cols.add()
        frame.file_index = files.setdefault(path, len(files))
        frame.line = int(line) if line.isdigit() else 0
    info.files.extend(sorted(files, key=files.get))
    return info
