"""FunctionDef protos -> FuncGraphs, so functional ops read from a GraphDef
(TensorFlow's While / StatelessWhile and If / StatelessIf) can run.

`function_graph_from_def(fdef, library, outer_graph)` rebuilds one function: one
Placeholder per input argument (`inputs`), the nodes in dependency order, and
the `ret` tensors as `outputs`. Function attrs of the nodes inside (a nested
While's cond and body) are rebuilt from `library` in turn.
"""
from trainflow._src.framework import dtypes, registry
from trainflow._src.framework.attr_value import from_attr_value
from trainflow._src.framework.op_builder import output_dtypes
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.framework.function_graph import FuncGraph


def _output_offsets(op):
    """Output arg name -> (first flat output index, count) for an op."""
    offsets, index = {}, 0
    for arg in op._info.op_def.outputs:
        n = arg.flat_count(op._attrs)
        offsets[arg.name] = (index, n)
        index += n
    return offsets


def _node_order(fdef, arg_names):
    """NodeDefs ordered so that each node follows the nodes it reads.

    Raises:
      ValueError: for unknown inputs or a cycle.
    """
    by_name = {n.name: n for n in fdef.node_def}
    state, order = {}, []
    for root in fdef.node_def:
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                state[node.name] = 2
                order.append(node)
                continue
            if state.get(node.name) == 2:
                continue
            if state.get(node.name) == 1:
                raise ValueError(f"Function '{fdef.signature.name}' has a cycle through "
                                 f"'{node.name}'")
            state[node.name] = 1
            stack.append((node, True))
            for inp in node.input:
                src = inp.lstrip("^").split(":")[0]
                if src in arg_names and not inp.startswith("^"):
                    continue
                if src not in by_name:
                    raise ValueError(f"Function '{fdef.signature.name}': node '{node.name}' "
                                     f"has unknown input '{inp}'")
                if state.get(src) != 2:
                    stack.append((by_name[src], False))
    return order


def _attrs_of(node, info, library, outer_graph, built):
    kinds = info.op_def.attrs
    attrs = {}
    for key, av in node.attr.items():
        if key == "_output_shapes":
            continue
        attr = kinds.get(key)
        kind = attr.kind if attr is not None else None
        value = from_attr_value(av, kind)
        if kind == "func":
            value = _function(value.name, library, outer_graph, built)
        elif kind == "list(func)":
            value = [_function(v if isinstance(v, str) else v.name, library, outer_graph,
                               built) for v in value]
        attrs[key] = value
    for key, attr in kinds.items():
        if key not in attrs and attr.has_default:
            attrs[key] = attr.default
    return attrs


def _function(name, library, outer_graph, built):
    fg = built.get(name)
    if fg is None:
        fdef = library.get(name)
        if fdef is None:
            raise ValueError(f"Function '{name}' is not in the GraphDef's library")
        fg = built[name] = function_graph_from_def(fdef, library, outer_graph, built)
    return fg


def function_graph_from_def(fdef, library, outer_graph, built=None, name=None,
                            input_shapes=None):
    """Builds the FuncGraph of FunctionDef `fdef`.

    Args:
      fdef: a FunctionDef proto.
      library: {function name: FunctionDef} for functions used inside.
      outer_graph: the graph whose op calls the function.
      built: cache {name: FuncGraph} shared across calls.
      name: the FuncGraph's name (default: the function's name).
      input_shapes: optional TensorShapes of the input arguments (default unknown).

    Returns:
      the FuncGraph; its `inputs` follow the signature's input args and its
      `outputs` the output args.

    Raises:
      KeyError: for an op type trainflow does not register.
      ValueError: for malformed functions.
    """
    built = {} if built is None else built
    fg = FuncGraph(name or fdef.signature.name, outer_graph)
    values = {}
    args = fdef.signature.input_arg
    shapes = list(input_shapes) if input_shapes is not None else [unknown_shape()] * len(args)
    for arg, shape in zip(args, shapes):
        values[arg.name] = fg.add_input(dtypes.as_dtype(arg.type), shape, arg.name)
    ops = {}

    def lookup(ref):
        parts = ref.split(":")
        if len(parts) == 1:
            if parts[0] in values:
                return values[parts[0]]
            return ops[parts[0]]._outputs[0]
        op = ops[parts[0]]
        if len(parts) == 2:
            return op._outputs[int(parts[1])]
        start, count = _output_offsets(op)[parts[1]]
        index = int(parts[2])
        if index >= count:
            raise ValueError(f"Function '{fdef.signature.name}': bad output reference {ref!r}")
        return op._outputs[start + index]

    for node in _node_order(fdef, set(values)):
        info = registry.get(node.op)
        attrs = _attrs_of(node, info, library, outer_graph, built)
        inputs = [lookup(i) for i in node.input if not i.startswith("^")]
        controls = [ops[i[1:]] for i in node.input if i.startswith("^")]
        with fg.as_default(), fg.control_dependencies(controls):
            op = fg._create_op_internal(node.op, inputs, output_dtypes(info, attrs),
                                        node.name + "/", attrs, info)
        if node.device:
            op._set_device(node.device)
        ops[node.name] = op
    fg.outputs = [lookup(fdef.ret[arg.name]) for arg in fdef.signature.output_arg]
    return fg
