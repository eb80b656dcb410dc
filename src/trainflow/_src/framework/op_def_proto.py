"""OpDef protos of registered ops (for a MetaGraphDef's stripped op list) and the removal
of attrs equal to their defaults (`strip_default_attrs`)."""
from trainflow._src.framework import registry
from trainflow._src.framework.attr_value import to_attr_value
from trainflow._src.protos import op_def_pb2

# Ops TF lets run on an uninitialized ref variable (their OpDefs say so).
_ALLOWS_UNINITIALIZED_INPUT = frozenset({"Assign", "IsVariableInitialized"})


def _arg_proto(proto, arg):
    proto.name = arg.name
    if arg.type is not None:
        proto.type = arg.type.as_datatype_enum
    if arg.type_attr:
        proto.type_attr = arg.type_attr
    if arg.number_attr:
        proto.number_attr = arg.number_attr
    if arg.type_list_attr:
        proto.type_list_attr = arg.type_list_attr
    if arg.is_ref:
        proto.is_ref = True


def _attr_proto(proto, attr):
    proto.name = attr.name
    proto.type = attr.kind
    if attr.has_default and attr.kind != "tensor":
        proto.default_value.CopyFrom(to_attr_value(attr.default, attr.kind))
    if attr.allowed:
        if attr.kind in ("type", "list(type)"):
            proto.allowed_values.list.type.extend(t.as_datatype_enum for t in attr.allowed)
        else:
            proto.allowed_values.list.s.extend(attr.allowed)
    if attr.minimum is not None:
        proto.has_minimum = True
        proto.minimum = attr.minimum


def op_def_proto(op_type):
    """The OpDef proto (no docs) of registered op `op_type`, or None if it is unknown."""
    try:
        info = registry.get(op_type)
    except KeyError:
        return None
    d = info.op_def
    proto = op_def_pb2.OpDef(name=d.name)
    for arg in d.inputs:
        _arg_proto(proto.input_arg.add(), arg)
    for arg in d.outputs:
        _arg_proto(proto.output_arg.add(), arg)
    for attr in d.attrs.values():
        _attr_proto(proto.attr.add(), attr)
    # TF's OpDefs of ops updating a ref input (Assign, Apply*, Scatter*) are not stateful;
    # the ref makes them run where needed.
    if info.stateful and not any(a.is_ref for a in d.inputs):
        proto.is_stateful = True
    if op_type in _ALLOWS_UNINITIALIZED_INPUT:
        proto.allows_uninitialized_input = True
    return proto


def stripped_op_list_for_graph(graph_def):
    """OpList of the registered op types `graph_def` uses (its functions' bodies included,
    the functions themselves left out), sorted by name."""
    used = {n.op for n in graph_def.node}
    functions = set()
    for fdef in graph_def.library.function:
        functions.add(fdef.signature.name)
        used.update(n.op for n in fdef.node_def)
    op_list = op_def_pb2.OpList()
    for op_type in sorted(used - functions):
        proto = op_def_proto(op_type)
        if proto is not None:
            op_list.op.add().CopyFrom(proto)
    return op_list


def strip_default_attrs(node_defs, op_list=None):
    """Removes, in place, each node attr whose value equals its op's default."""
    defaults = {}
    if op_list is not None:
        for op in op_list.op:
            defaults[op.name] = {a.name: a.default_value.SerializeToString(deterministic=True)
                                 for a in op.attr if a.HasField("default_value")}
    for node in node_defs:
        known = defaults.get(node.op)
        if known is None:
            proto = op_def_proto(node.op)
            known = {} if proto is None else {
                a.name: a.default_value.SerializeToString(deterministic=True)
                for a in proto.attr if a.HasField("default_value")}
            defaults[node.op] = known
        for name in list(node.attr):
            if name in known and \
                    node.attr[name].SerializeToString(deterministic=True) == known[name]:
                del node.attr[name]


def add_default_attrs(node_defs):
    """Adds, in place, each attr a node lacks that its registered op has a default for (what
    TF's importer does to the GraphDef it is given)."""
    defaults = {}
    for node in node_defs:
        if node.op not in defaults:
            proto = op_def_proto(node.op)
            defaults[node.op] = [] if proto is None else [
                a for a in proto.attr if a.HasField("default_value")]
        for attr in defaults[node.op]:
            if attr.name not in node.attr:
                node.attr[attr.name].CopyFrom(attr.default_value)
