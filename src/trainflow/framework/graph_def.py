"""GraphDef export (`Graph.as_graph_def`, `Operation.node_def`) and `tf.import_graph_def`."""
from trainflow.framework import registry
from trainflow.framework.attr_value import from_attr_value, to_attr_value
from trainflow.framework.graph import get_default_graph
from trainflow.framework.op_builder import output_dtypes
from trainflow.framework.operation import Operation
from trainflow.framework.tensor_shape import unknown_shape

# The GraphDef version of the TensorFlow release whose op set we follow (TF 2.21).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0


def graph_versions():
    """The VersionDef written into our GraphDefs."""
    from trainflow.protos import versions_pb2
    return versions_pb2.VersionDef(producer=GRAPH_DEF_VERSION,
                                   min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER)


def _input_names(op):
    names = [t._as_node_def_input() for t in op._inputs]
    names.extend("^" + c._name for c in op._control_inputs)
    return names


def fill_node_def(node, op, add_shapes=False):
    """Writes `op` into the NodeDef proto `node`."""
    node.name = op._name
    node.op = op._type
    node.input.extend(_input_names(op))
    if op._device:
        node.device = op._device
    info = op._info
    kinds = info.op_def.attrs if info is not None else {}
    for name, value in op._attrs.items():
        attr = kinds.get(name)
        node.attr[name].CopyFrom(to_attr_value(value, attr.kind if attr is not None else None))
    if add_shapes and op._outputs:
        node.attr["_output_shapes"].CopyFrom(
            to_attr_value([t._shape for t in op._outputs], "list(shape)"))
    return node


def node_def_of(op):
    """The NodeDef proto of `op`."""
    from trainflow.protos import node_def_pb2
    return fill_node_def(node_def_pb2.NodeDef(), op)


def graph_to_graph_def(graph, from_version=None, add_shapes=False):
    """The GraphDef of `graph` (ops with id > from_version only, if given)."""
    from trainflow.protos import graph_pb2
    gd = graph_pb2.GraphDef()
    with graph._lock:
        ops = list(graph._nodes_by_id)
    for op in ops:
        if from_version is not None and op._id <= from_version:
            continue
        fill_node_def(gd.node.add(), op, add_shapes)
        extra = getattr(op, "_function_defs", None)
        if extra is not None:
            for fdef in extra():
                if not any(f.signature.name == fdef.signature.name for f in gd.library.function):
                    gd.library.function.add().CopyFrom(fdef)
    gd.versions.CopyFrom(graph_versions())
    return gd


def _parse_input(name):
    if name.startswith("^"):
        return name[1:], -1
    if ":" in name:
        op_name, idx = name.rsplit(":", 1)
        return op_name, int(idx)
    return name, 0


def _topological_nodes(nodes, mapped):
    """Orders NodeDefs so inputs come first (imported GraphDefs may be unsorted)."""
    by_name = {n.name: n for n in nodes}
    order, state = [], {}
    for root in nodes:
        if state.get(root.name) == 2:
            continue
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                if state.get(node.name) != 2:
                    state[node.name] = 2
                    order.append(node)
                continue
            if state.get(node.name) == 2:
                continue
            if state.get(node.name) == 1:
                raise ValueError(f"GraphDef has a cycle through node '{node.name}' "
                                 "(loops in GraphDef form are not supported)")
            state[node.name] = 1
            stack.append((node, True))
            for inp in node.input:
                src, idx = _parse_input(inp)
                key = inp if idx < 0 else f"{src}:{idx}"
                if key in mapped or inp in mapped:
                    continue
                dep = by_name.get(src)
                if dep is None:
                    raise ValueError(f"Node '{node.name}': Unknown input node '{inp}'")
                if state.get(src) != 2:
                    stack.append((dep, False))
    return order


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Imports a GraphDef into the default graph (`tf.import_graph_def`).

    Args:
      graph_def: a GraphDef proto.
      input_map: {"name:idx" or "^name": Tensor/Operation} replacing imported values.
      return_elements: names of ops ("name") or tensors ("name:0") to return.
      name: prefix for imported names (default "import"; "" for none).

    Returns:
      the list of requested elements, or None.

    Raises:
      TypeError: if graph_def is not a GraphDef.
      ValueError: for unknown op types, missing inputs, or unused input_map keys.
    """
    from trainflow.framework.shape_inference import run_shape_fn
    from trainflow.protos import graph_pb2
    if not isinstance(graph_def, graph_pb2.GraphDef):
        if hasattr(graph_def, "SerializeToString") and type(graph_def).__name__ == "GraphDef":
            graph_def = graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
        else:
            raise TypeError("graph_def must be a GraphDef proto.")
    g = get_default_graph()
    mapped = {}
    for key, value in (input_map or {}).items():
        if not isinstance(key, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
        if not key.startswith("^") and ":" not in key:
            key += ":0"
        mapped[key] = value
    used = set()
    with g.name_scope(name if name is not None else "import") as scope:
        prefix = scope
        created = {}
        for node in _topological_nodes(graph_def.node, mapped):
            try:
                info = registry.get(node.op)
            except KeyError:
                raise ValueError(f"Node '{node.name}': Op type not registered '{node.op}' in "
                                 "trainflow") from None
            attrs = {}
            kinds = info.op_def.attrs
            for k, av in node.attr.items():
                if k == "_output_shapes":
                    continue
                attr = kinds.get(k)
                attrs[k] = from_attr_value(av, attr.kind if attr is not None else None)
            for k, attr in kinds.items():
                if k not in attrs and attr.has_default:
                    attrs[k] = attr.default
            if "_class" in attrs:
                attrs["_class"] = [_prefix_loc(s, prefix) for s in attrs["_class"]]
            inputs, controls = [], []
            for inp in node.input:
                src, idx = _parse_input(inp)
                key = inp if idx < 0 else f"{src}:{idx}"
                if key in mapped:
                    used.add(key)
                    val = mapped[key]
                    if idx < 0:
                        controls.append(val if isinstance(val, Operation) else val.op)
                    else:
                        inputs.append(val)
                    continue
                src_op = created[src]
                if idx < 0:
                    controls.append(src_op)
                else:
                    inputs.append(src_op._outputs[idx])
            out_types = output_dtypes(info, attrs)
            op = Operation(g, prefix + node.name, node.op, inputs, out_types,
                           [unknown_shape()] * len(out_types), attrs, info, 0)
            if info.shape_fn is not None:
                run_shape_fn(op)
            g._add_op_from_import(op)
            for c in controls:
                op._add_control_input(c)
            if node.device:
                op._set_device(node.device)
            created[node.name] = op
    unused = set(mapped) - used
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: "
                         f"[{', '.join(sorted(unused))}]")
    if return_elements is None:
        return None
    out = []
    for el in return_elements:
        if ":" in el:
            op_name, idx = el.rsplit(":", 1)
            if op_name not in created:
                raise ValueError(f"Requested return_element {el!r} not found in graph_def.")
            out.append(created[op_name]._outputs[int(idx)])
        else:
            if el not in created:
                raise ValueError(f"Requested return_element {el!r} not found in graph_def.")
            out.append(created[el])
    return out


def _prefix_loc(s, prefix):
    s = s if isinstance(s, bytes) else s.encode()
    if prefix and s.startswith(b"loc:@"):
        return b"loc:@" + prefix.encode() + s[5:]
    return s


