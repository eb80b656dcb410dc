"""GraphDef and FunctionDef export: `Graph.as_graph_def`, `Operation.node_def` and the
FunctionDefs of the function graphs an op uses (a While's cond and body).

It reads graphs and ops by their fields and imports none of graph, operation or
function_graph, so the graph core imports it (inside the methods above, to keep
protobuf out of `import trainflow`) without a cycle; `graph_def` (GraphDef import) and
`loop_frames` sit a level above.
"""
import re

from trainflow._src.framework.attr_value import to_attr_value
from trainflow._src.framework.versions import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER
from trainflow._src.protos import function_pb2, graph_pb2, node_def_pb2, versions_pb2


def graph_versions():
    """The VersionDef written into our GraphDefs."""
    return versions_pb2.VersionDef(producer=GRAPH_DEF_VERSION,
                                   min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER)


def _input_names(op):
    names = [t._as_node_def_input() for t in op._inputs]
    names.extend(sorted("^" + c._name for c in op._control_inputs))
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
    kept = op._attr_protos
    for name, value in op._attrs.items():
        if kept is not None and name in kept and kept[name][0] is value:
            encoded = kept[name][1]
            node.attr[name].CopyFrom(encoded() if callable(encoded) else encoded)
            continue
        attr = kinds.get(name)
        node.attr[name].CopyFrom(to_attr_value(value, attr.kind if attr is not None else None))
    if add_shapes and op._outputs:
        node.attr["_output_shapes"].CopyFrom(
            to_attr_value([t._shape for t in op._outputs], "list(shape)"))
    return node


def node_def_of(op):
    """The NodeDef proto of `op`."""
    return fill_node_def(node_def_pb2.NodeDef(), op)


def graph_to_graph_def(graph, from_version=None, add_shapes=False):
    """The GraphDef of `graph` (ops with id > from_version only, if given)."""
    gd = graph_pb2.GraphDef()
    with graph._lock:
        ops = list(graph._nodes_by_id)
    library_names = set()
    for op in ops:
        if from_version is not None and op._id <= from_version:
            continue
        fill_node_def(gd.node.add(), op, add_shapes)
        if function_graphs_of(op):
            for fdef in to_function_defs(op):
                if fdef.signature.name not in library_names:
                    library_names.add(fdef.signature.name)
                    gd.library.function.add().CopyFrom(fdef)
    gd.versions.CopyFrom(graph_versions())
    return gd


def _is_func_graph(value):
    return getattr(value, "building_function", False) is True


def function_graphs_of(op):
    """The FuncGraphs an op's attrs refer to (a While's cond and body, a Case's list
    of branches)."""
    found = []
    for v in op._attrs.values():
        for item in (v if isinstance(v, (list, tuple)) else [v]):
            if _is_func_graph(item):
                found.append(item)
    return found


def _valid_arg_name(text, taken):
    """A FunctionDef argument name ([a-z][a-z0-9_]*) not in `taken`."""
    name = re.sub(r"[^a-z0-9_]", "_", text.lower())
    if not name or not name[0].isalpha():
        name = "arg_" + name
    base, i = name, 1
    while name in taken:
        name = f"{base}_{i}"
        i += 1
    taken.add(name)
    return name


def _function_def(fg):
    """The FunctionDef proto of one FuncGraph.

    Arguments are the graph's inputs, then one per tensor the calling op passes in
    for captures (`fg.external_order`, in the op's order); a loop body
    (`fg.passes_captures_through`) also returns those unchanged, as TF's While needs.
    """
    fdef = function_pb2.FunctionDef()
    fdef.signature.name = fg.name
    taken = {op.name.lower() for op in fg._nodes_by_id}
    arg_of = {}
    for t in fg.inputs:
        taken.discard(t.op.name.lower())
        arg_of[t] = _valid_arg_name(t.op.name, taken)
    by_outer = {}
    for c in fg.captures:
        by_outer.setdefault(c.outer, []).append(c.inner)
    external_args = []
    for i, outer in enumerate(fg.external_order or list(by_outer)):
        inners = by_outer.get(outer, [])
        for inner in inners:
            taken.discard(inner.op.name.lower())
        name = _valid_arg_name(inners[0].op.name if inners else f"unused_capture_{i}", taken)
        for inner in inners:
            arg_of[inner] = name
        external_args.append((name, outer.dtype.base_dtype))
    for t in fg.inputs:
        a = fdef.signature.input_arg.add()
        a.name, a.type = arg_of[t], t.dtype.base_dtype.as_datatype_enum
    for name, dtype in external_args:
        a = fdef.signature.input_arg.add()
        a.name, a.type = name, dtype.as_datatype_enum

    def ref(t):
        if t in arg_of:
            return arg_of[t]
        op = t.op
        index = t.value_index
        for arg in (op._info.op_def.outputs if op._info is not None else []):
            n = arg.flat_count(op._attrs)
            if index < n:
                return f"{op.name}:{arg.name}:{index}"
            index -= n
        return f"{op.name}:output:{t.value_index}"

    arg_ops = {t.op for t in arg_of}
    for op in fg._nodes_by_id:
        if op in arg_ops:
            continue
        node = fill_node_def(fdef.node_def.add(), op)
        del node.input[:]
        node.input.extend([ref(t) for t in op._inputs] +
                          ["^" + c.name for c in op._control_inputs])
    results = [(ref(t), t.dtype.base_dtype) for t in fg.outputs]
    if fg.passes_captures_through:
        results += external_args
    for i, (source, dtype) in enumerate(results):
        out = fdef.signature.output_arg.add()
        out.name, out.type = f"output_{i}", dtype.as_datatype_enum
        fdef.ret[out.name] = source
    return fdef


def to_function_defs(op):
    """FunctionDef protos for every function graph `op` uses, nested ones included
    (for a GraphDef's `library`)."""
    out, seen = [], set()
    stack = function_graphs_of(op)
    while stack:
        fg = stack.pop()
        if fg.name in seen:
            continue
        seen.add(fg.name)
        out.append(_function_def(fg))
        for inner in fg._nodes_by_id:
            stack.extend(function_graphs_of(inner))
    return out
