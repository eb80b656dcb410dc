"""`tf.graph_util.convert_variables_to_constants`: freezes a session's variables into Const
nodes of the sub-graph the outputs need. Ref variables (VariableV2) become constants; a
resource variable (VarHandleOp) becomes a constant of its value, and what carried its handle
carries the value: ReadVariableOp becomes Identity, ResourceGather becomes GatherV2, and the
Identity, Switch/Merge, Enter/Exit ops and the functional control flow (While, If) and
function calls it passed through get the value's dtype, their function bodies too."""
import logging

from trainflow._src.formats.tensor_proto import make_tensor_proto
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.graph_util.graph_util_impl import extract_sub_graph
from trainflow._src.protos import attr_value_pb2, graph_pb2, node_def_pb2, types_pb2

_log = logging.getLogger(__name__)

_REF_VARIABLES = ("Variable", "VariableV2")
# Ops that pass a value (or handle) through: which outputs carry the input's.
_PASS_THROUGH = {"Identity": (0,), "Enter": (0,), "Exit": (0,), "NextIteration": (0,),
                 "Switch": (0, 1), "Merge": (0,), "Snapshot": (0,)}
# TF1 control flow on refs: the value form of each op once its input is a constant.
_REF_TO_VALUE = {"RefIdentity": "Identity", "RefEnter": "Enter", "RefExit": "Exit",
                 "RefNextIteration": "NextIteration", "RefSwitch": "Switch",
                 "RefMerge": "Merge"}
# Function-calling ops: (the list attr of input types, the first input it covers,
# the attrs naming functions, whether outputs mirror inputs (loops)).
_CALLS = {"While": ("T", 0, ("body", "cond"), True),
          "StatelessWhile": ("T", 0, ("body", "cond"), True),
          "If": ("Tin", 1, ("then_branch", "else_branch"), False),
          "StatelessIf": ("Tin", 1, ("then_branch", "else_branch"), False),
          "PartitionedCall": ("Tin", 0, ("f",), False),
          "StatefulPartitionedCall": ("Tin", 0, ("f",), False)}


def _const_node(name, dtype_attr, data, shape=None):
    node = node_def_pb2.NodeDef(op="Const", name=name)
    node.attr["dtype"].CopyFrom(dtype_attr)
    node.attr["value"].CopyFrom(attr_value_pb2.AttrValue(
        tensor=make_tensor_proto(data, dtype=dtype_attr.type, shape=shape)))
    return node


class _Scope:
    """The nodes of the graph or of one function body, with their consumers by output.

    An output is a key: (node name, output index) in the graph; in a function, (arg name,
    None) for an argument and (node name, "out_name:index") for a node's output."""

    def __init__(self, nodes, function=None):
        self.nodes = {n.name: n for n in nodes}
        self.order = list(nodes)
        self.function = function
        self.consumers = {}
        for node in nodes:
            for pos, name in enumerate(node.input):
                if not name.startswith("^"):
                    self.consumers.setdefault(self.key(name), []).append((node, pos))

    def key(self, name):
        if self.function is None:
            node, _, index = name.partition(":")
            return node, int(index or 0)
        node, _, rest = name.partition(":")
        return node, (rest or None)

    def output_keys(self, node, indices):
        if self.function is None:
            return [(node.name, i) for i in indices]
        name = "output" if node.op in ("Identity", "Snapshot") else None
        if name:
            return [(node.name, f"{name}:{i}") for i in indices]
        # Switch, Merge and the loop frame ops are no function ops; keep graph semantics.
        return [(node.name, f"output:{i}") for i in indices]

    def rename_output(self, node_name, old, new):
        """Rewrites references `node:old:i` to `node:new:i` (a function body's op changed)."""
        prefix_old, prefix_new = f"{node_name}:{old}:", f"{node_name}:{new}:"
        for n in self.order:
            for i, name in enumerate(n.input):
                if name.startswith(prefix_old):
                    n.input[i] = prefix_new + name[len(prefix_old):]
        if self.function is not None:
            for k, v in list(self.function.ret.items()):
                if v.startswith(prefix_old):
                    self.function.ret[k] = prefix_new + v[len(prefix_old):]
        moved = [(k, v) for k, v in self.consumers.items()
                 if k[0] == node_name and isinstance(k[1], str) and k[1].startswith(old + ":")]
        for k, v in moved:
            self.consumers[(node_name, new + k[1][len(old):])] = v


class _Converter:
    """Carries each frozen resource variable's value dtype and shape through the ops and
    function bodies its handle reaches."""

    def __init__(self, graph_def):
        self.graph_def = graph_def
        self.library = {f.signature.name: f for f in graph_def.library.function}
        self.done = set()
        self.extra_nodes = []

    def set_shape(self, node, index, shape):
        if "_output_shapes" in node.attr and index < len(node.attr["_output_shapes"].list.shape):
            node.attr["_output_shapes"].list.shape[index].CopyFrom(shape)

    def propagate(self, scope, key, dtype, shape):
        """Converts the consumers of output `key` of `scope` (a resource handle that now
        carries a value of `dtype`, `shape`). Returns the function-return names reached."""
        todo = [key]
        seen = set()
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            for node, pos in list(scope.consumers.get(key, ())):
                todo.extend(self._convert_consumer(scope, node, pos, dtype, shape))
        return seen

    def _convert_consumer(self, scope, node, pos, dtype, shape):
        op = node.op
        if op == "ReadVariableOp":
            node.op = "Identity"
            node.attr["T"].type = dtype
            del node.attr["dtype"]
            if scope.function is not None:
                scope.rename_output(node.name, "value", "output")
            return []
        if op == "ResourceGather":
            return self._gather(scope, node, dtype)
        if op in _REF_TO_VALUE:
            node.op = op = _REF_TO_VALUE[op]
        if op in _PASS_THROUGH:
            node.attr["T"].type = dtype
            for i in _PASS_THROUGH[op]:
                self.set_shape(node, i, shape)
            return scope.output_keys(node, _PASS_THROUGH[op])
        if op in _CALLS:
            return self._call(scope, node, pos, dtype, shape)
        return []

    def _gather(self, scope, node, dtype):
        if node.attr["batch_dims"].i != 0:
            raise ValueError("batch_dims != 0 is not supported by freeze_graph.")
        axis_name = node.name + "/axis"
        axis = _const_node(axis_name, node.attr["Tindices"], 0)
        if scope.function is None:
            self.extra_nodes.append(axis)
            axis_ref = axis_name
        else:
            scope.function.node_def.add().CopyFrom(axis)
            axis_ref = axis_name + ":output:0"
        node.op = "GatherV2"
        del node.input[2:]
        node.input.append(axis_ref)
        node.attr["Tparams"].type = dtype
        node.attr["Taxis"].CopyFrom(node.attr["Tindices"])
        for attr in ("dtype", "batch_dims", "validate_indices"):
            if attr in node.attr:
                del node.attr[attr]
        return []

    def _call(self, scope, node, pos, dtype, shape):
        types_attr, first, function_attrs, loop = _CALLS[node.op]
        arg = pos - first
        if arg < 0:
            return []
        node.attr[types_attr].list.type[arg] = dtype
        returned = set()
        for attr in function_attrs:
            fname = node.attr[attr].func.name
            returned |= self._convert_function(fname, arg, dtype, shape)
        if loop:
            if "output_shapes" in node.attr and arg < len(node.attr["output_shapes"].list.shape):
                node.attr["output_shapes"].list.shape[arg].CopyFrom(shape)
            self.set_shape(node, arg, shape)
            return scope.output_keys(node, [arg]) if scope.function is None else \
                [(node.name, f"output:{arg}")]
        out = []
        if returned and "Tout" in node.attr:
            for i in sorted(returned):
                node.attr["Tout"].list.type[i] = dtype
                self.set_shape(node, i, shape)
            out = scope.output_keys(node, sorted(returned)) if scope.function is None else \
                [(node.name, f"output:{i}") for i in sorted(returned)]
        return out

    def _convert_function(self, fname, arg, dtype, shape):
        """Converts argument `arg` of function `fname` (once); returns the indices of the
        outputs now carrying the value."""
        fdef = self.library.get(fname)
        if fdef is None or (fname, arg) in self.done:
            return set()
        self.done.add((fname, arg))
        sig = fdef.signature
        if arg >= len(sig.input_arg) or sig.input_arg[arg].type != types_pb2.DT_RESOURCE:
            return set()
        sig.input_arg[arg].type = dtype
        scope = _Scope(list(fdef.node_def), function=fdef)
        reached = self.propagate(scope, (sig.input_arg[arg].name, None), dtype, shape)
        returned = set()
        names = {(k if v is None else f"{k}:{v}") for k, v in reached}
        for i, out in enumerate(sig.output_arg):
            if fdef.ret.get(out.name) in names and out.type == types_pb2.DT_RESOURCE:
                out.type = dtype
                returned.add(i)
        return returned


def _variable_values(sess, graph_def, whitelist, blacklist):
    """{variable node name: its value} of the variables in `graph_def` to freeze."""
    names, fetches = [], []
    for node in graph_def.node:
        if node.op not in _REF_VARIABLES + ("VarHandleOp",):
            continue
        if (whitelist is not None and node.name not in whitelist) or \
                (blacklist is not None and node.name in blacklist):
            continue
        names.append(node.name)
        if node.op == "VarHandleOp":
            fetches.append(_read_tensor(sess, node.name))
        else:
            fetches.append(node.name + ":0")
    values = sess.run(fetches) if fetches else []
    _log.info("Froze %d variables.", len(values))
    return dict(zip(names, values))


def _read_tensor(sess, name):
    """A tensor reading resource variable `name` in the session's graph (TF's
    `<name>/Read/ReadVariableOp`, else one made for it)."""
    graph = sess.graph
    try:
        return graph.get_tensor_by_name(name + "/Read/ReadVariableOp:0")
    except KeyError:
        handle = graph.get_operation_by_name(name).outputs[0]
        from trainflow._src.ops.state import resource_variable_ops  # lazy: ops above framework
        with graph.as_default():
            return resource_variable_ops.read_variable_op(
                handle, graph.get_operation_by_name(name).get_attr("dtype"))


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """Replaces the variables of the sub-graph `output_node_names` need by Const nodes of
    their values in `sess`.

    Args:
      sess: the Session holding the variables' values.
      input_graph_def: the GraphDef (usually `sess.graph.as_graph_def()`).
      output_node_names: the names of the nodes to keep (with what they need).
      variable_names_whitelist: freeze only these variables (node names).
      variable_names_blacklist: do not freeze these.

    Returns:
      The frozen GraphDef (the graph's function library kept).

    Raises:
      ValueError: a ReadVariableOp reads something that is no VarHandleOp.
    """
    inference = extract_sub_graph(input_graph_def, output_node_names)
    by_name = {n.name: n for n in inference.node}
    for node in inference.node:
        if node.op in ("ReadVariableOp", "ResourceGather"):
            source = node.input[0].split(":")[0]
            while source in by_name and by_name[source].op == "Identity":
                source = by_name[source].input[0].split(":")[0]
            if source in by_name and by_name[source].op not in ("VarHandleOp", "Placeholder") \
                    and by_name[source].op not in _CALLS and \
                    by_name[source].op not in ("Switch", "Merge", "Enter"):
                raise ValueError("Cannot find the variable that is an input to the "
                                 "ReadVariableOp.")
    values = _variable_values(sess, inference, variable_names_whitelist,
                              variable_names_blacklist)
    output = graph_pb2.GraphDef()
    output.CopyFrom(inference)
    converter = _Converter(output)
    scope = _Scope(list(output.node))
    converted = 0
    for node in list(output.node):
        if node.name not in values:
            continue
        data = values[node.name]
        dtype_attr = node.attr["dtype"]
        const = _const_node(node.name, dtype_attr, data, data.shape)
        resource = node.op == "VarHandleOp"
        for attr in ("_class",):
            if attr in node.attr:
                const.attr[attr].CopyFrom(node.attr[attr])
        node.Clear()
        node.CopyFrom(const)
        converted += 1
        shape = TensorShape(data.shape).as_proto()
        if resource:
            converter.propagate(scope, (node.name, 0), dtype_attr.type, shape)
        else:
            for consumer, _ in scope.consumers.get((node.name, 0), ()):
                if consumer.op in _REF_TO_VALUE:
                    converter.propagate(scope, (node.name, 0), dtype_attr.type, shape)
                    break
    output.node.extend(converter.extra_nodes)
    _log.info("Converted %d variables to const ops.", converted)
    return output
