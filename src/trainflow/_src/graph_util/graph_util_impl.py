"""`tf.graph_util`'s GraphDef helpers: `extract_sub_graph`, `remove_training_nodes`,
`must_run_on_cpu` and `tensor_shape_from_node_def_name` (TensorFlow's behaviour)."""
import copy
import re

from trainflow._src.framework import dtypes
from trainflow._src.framework.operation import Operation
from trainflow._src.protos import graph_pb2, node_def_pb2

_VARIABLE_OPS = {"Assign", "AssignAdd", "AssignSub", "Queue", "ScatterAdd", "ScatterSub",
                 "ScatterUpdate", "TruncatedNormal", "Variable", "VariableV2"}


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether a node (Operation or NodeDef) must run on the CPU: int32 or string
    constants, int32 DynamicStitch and Cast from int32, and variable ops when
    `pin_variables_on_cpu`."""
    node_def = node.node_def if isinstance(node, Operation) else node
    if not isinstance(node_def, node_def_pb2.NodeDef):
        raise TypeError(f"node must be an Operation or a NodeDef, got {type(node)}")
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        return node_def.attr["dtype"].type in (dtypes.string.as_datatype_enum,
                                                dtypes.int32.as_datatype_enum)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == dtypes.int32.as_datatype_enum
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == dtypes.int32.as_datatype_enum
    return False


def node_name(name):
    """The node a (tensor or control) input string names."""
    if name.startswith("^"):
        return name[1:]
    return name.split(":")[0]


def _colocated_name(loc):
    loc = loc.decode("utf-8") if isinstance(loc, bytes) else loc
    return loc[5:] if loc.startswith("loc:@") else loc


def _extract_graph_summary(graph_def):
    name_to_input_name, name_to_node, name_to_seq_num = {}, {}, {}
    for seq, node in enumerate(graph_def.node):
        n = node_name(node.name)
        name_to_node[n] = node
        name_to_input_name[n] = [node_name(x) for x in node.input]
        # Keep the nodes a node is colocated with.
        if "_class" in node.attr:
            name_to_input_name[n].extend(_colocated_name(s) for s in node.attr["_class"].list.s)
        name_to_seq_num[n] = seq
    return name_to_input_name, name_to_node, name_to_seq_num


def _reachable(targets, name_to_input_name):
    keep = set()
    todo = list(targets)
    while todo:
        node = todo.pop()
        if node in keep:
            continue
        keep.add(node)
        todo.extend(name_to_input_name.get(node, ()))
    return keep


def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes `dest_nodes` need (inputs, control inputs and colocations,
    followed back), in their original order, with the graph's library and versions.

    Raises:
      TypeError: `graph_def` is no GraphDef or `dest_nodes` is a string.
      AssertionError: a destination node is not in the graph.
    """
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto, but got type "
                        f"{type(graph_def)}.")
    if isinstance(dest_nodes, (str, bytes)):
        raise TypeError("dest_nodes must be an iterable of strings, but got type "
                        f"{type(dest_nodes)}.")
    name_to_input_name, name_to_node, name_to_seq_num = _extract_graph_summary(graph_def)
    for d in dest_nodes:
        assert d in name_to_node, f"{d} is not in graph"
    keep = sorted(_reachable(dest_nodes, name_to_input_name),
                  key=lambda n: name_to_seq_num.get(n, -1))
    out = graph_pb2.GraphDef()
    for n in keep:
        if n in name_to_node:
            out.node.append(copy.deepcopy(name_to_node[n]))
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor `input_name` (`name` means `name:0`) of `graph`."""
    canonical = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(canonical).get_shape()


def _without_inputs(node, drop):
    new = node_def_pb2.NodeDef()
    new.CopyFrom(node)
    del new.input[:]
    new.input.extend(i for i in node.input if re.sub(r"^\^", "", i) not in drop)
    return new


def remove_training_nodes(input_graph, protected_nodes=None):
    """Removes what only training needs from a GraphDef: CheckNumerics nodes, and Identity
    nodes spliced out (their consumers read the Identity's input), except Identities that
    are protected, have or are control inputs, or are colocation targets.

    Returns:
      A new GraphDef (the nodes only).
    """
    protected = set(protected_nodes or ())
    names_to_remove = {n.name for n in input_graph.node
                       if n.op == "CheckNumerics" and n.name not in protected}
    nodes = [_without_inputs(n, names_to_remove) for n in input_graph.node
             if n.name not in names_to_remove]
    control_input_names, with_control_input, colocated = set(), set(), set()
    for node in nodes:
        for i in node.input:
            if "^" in i:
                control_input_names.add(i.replace("^", ""))
                with_control_input.add(node.name)
        if "_class" in node.attr:
            colocated.update(_colocated_name(s) for s in node.attr["_class"].list.s)
    names_to_splice = {
        n.name: n.input[0] for n in nodes
        if n.op == "Identity" and n.name not in protected and n.name not in colocated
        and n.name not in with_control_input and n.name not in control_input_names}
    output = graph_pb2.GraphDef()
    for node in nodes:
        if node.name in names_to_splice:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            name = re.sub(r"^\^", "", full)
            while name in names_to_splice:
                full = names_to_splice[name]
                name = re.sub(r"^\^", "", full)
            new.input.append(full)
        output.node.append(new)
    return output
